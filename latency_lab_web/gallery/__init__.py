"""The experiments gallery blueprint (``/experiments/``): the views in :mod:`latency_lab_web.gallery.views`, its templates
in ``templates/gallery/``."""

from __future__ import annotations

from flask import Blueprint

bp = Blueprint("gallery", __name__, url_prefix="/experiments", template_folder="templates")

from latency_lab_web.gallery import views  # noqa: E402,F401  (registers the routes on bp)
