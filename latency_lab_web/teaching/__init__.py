"""The teaching panel blueprint (``/explain``): the views in :mod:`latency_lab_web.teaching.views`, its templates in
``templates/teaching/`` (the page and the panel the calculator loads)."""

from __future__ import annotations

from flask import Blueprint

bp = Blueprint("teaching", __name__, template_folder="templates")

from latency_lab_web.teaching import views  # noqa: E402,F401  (registers the routes on bp)
