"""The JSON API blueprint, under ``/api``: the endpoints are in :mod:`latency_lab_web.api.views`, the OpenAPI document and
its docs page in :mod:`latency_lab_web.api.openapi`, the docs page's template in ``templates/api/``."""

from __future__ import annotations

from flask import Blueprint

bp = Blueprint("api", __name__, url_prefix="/api", template_folder="templates")

from latency_lab_web.api import views  # noqa: E402,F401  (registers the routes on bp)
