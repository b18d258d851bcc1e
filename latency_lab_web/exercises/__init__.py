"""The exercises blueprint (``/exercises`` and ``/api/v1/exercises``): problems over the model drawn from a seed, their
worked solutions, and the teacher's problem sets, worksheets and LMS exports. The views are in
:mod:`latency_lab_web.exercises.views`, the QTI 1.2 and Moodle XML exports in :mod:`latency_lab_web.exercises.export`, the templates in
``templates/exercises/``, the exports' schemas in ``schemas/``."""

from __future__ import annotations

from flask import Blueprint

bp = Blueprint(
    "exercises",
    __name__,
    template_folder="templates",
    static_folder="static",
    static_url_path="/exercises/static",
)

from latency_lab_web.exercises import views  # noqa: E402,F401  (registers the routes on bp)
