"""The calculator blueprint (``/``, ``/sweep.csv``, ``/healthz``): the views in :mod:`latency_lab_web.calculator.views`, its
templates in ``templates/calculator/`` (the page, the form, the results)."""

from __future__ import annotations

from flask import Blueprint

bp = Blueprint("calculator", __name__, template_folder="templates")

from latency_lab_web.calculator import views  # noqa: E402,F401  (registers the routes on bp)
