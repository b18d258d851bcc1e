"""The side-by-side comparison blueprint (``/compare``): the views in :mod:`latency_lab_web.compare.views`, its templates in
``templates/compare/`` (the page and its print view)."""

from __future__ import annotations

from flask import Blueprint

bp = Blueprint("compare", __name__, template_folder="templates")

from latency_lab_web.compare import views  # noqa: E402,F401  (registers the routes on bp)
