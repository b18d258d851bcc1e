"""latency-lab's model: closed-form page-load latency for HTTP over TCP, with the reasons why.

Public API (everything else is internal):

- :class:`Scenario` — the one scenario schema (pydantic).
- :func:`predict` — scenario in, output document out: a :class:`Prediction` (typed dictionaries, the JSON
  answer as is; :class:`ProtocolResult` per protocol, :mod:`model.analysis.result`).
- :func:`expression` — the sympy expression of a protocol's page load time for a scenario.
- :data:`PRESETS`, :func:`preset` — the seeds' setups.
- :data:`GLOSSARY` — the symbols used in expressions.
- :func:`engine_backend` — which engine runs: ``"compiled"`` (Cython, built by ``pip install -e .``) or
  ``"python"`` (the readable reference; see :mod:`model._backend`).
"""

from model import _backend

_backend.install()  # before any engine module is imported: compiled or Python (model._backend)

from model._backend import engine_backend  # noqa: E402
from model.analysis import native as _native_engine  # noqa: E402
from model.analysis.predict import expression, predict  # noqa: E402
from model.analysis.result import Prediction, ProtocolResult  # noqa: E402
from model.analysis.symbolic import GLOSSARY  # noqa: E402
from model.scenario import limits  # noqa: E402
from model.scenario.schema import ALL_PROTOCOLS, SEED_PROTOCOLS, Scenario  # noqa: E402
from model.studies.presets import PRESETS, preset  # noqa: E402

# each engine's step budget (model.scenario.limits.ENGINE_STEPS): the native engine's where it is built and wanted
limits.follow_engine("native" if _native_engine.available() else engine_backend())

__all__ = [
    "ALL_PROTOCOLS",
    "GLOSSARY",
    "PRESETS",
    "SEED_PROTOCOLS",
    "Prediction",
    "ProtocolResult",
    "Scenario",
    "engine_backend",
    "expression",
    "predict",
    "preset",
]
