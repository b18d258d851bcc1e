"""latency-lab's model: closed-form page-load latency for HTTP over TCP, with the reasons why.

Public API (everything else is internal):

- :class:`Scenario` — the one scenario schema (pydantic).
- :func:`predict` — scenario in, output document out: a :class:`Prediction` (typed dictionaries, the JSON
  answer as is; :class:`ProtocolResult` per protocol, :mod:`model.analysis.result`).
- :func:`expression` — the sympy expression of a protocol's page load time for a scenario.
- :data:`PRESETS`, :func:`preset` — the seeds' setups.
- :data:`GLOSSARY` — the symbols used in expressions.
- :class:`Design`, :func:`run_study`, :func:`read_study`, :func:`load_design`, :class:`StudyError` — studies of
  many scenarios into a pandas DataFrame and Parquet shards (:mod:`model.studies.study`; imported on first use:
  pandas and pyarrow take a while to import).
- :data:`__version__` — the installed package's version.
- :func:`engine_backend` — which engine runs: ``"compiled"`` (Cython, built by ``pip install -e .``) or
  ``"python"`` (the readable reference; see :mod:`model._backend`).
"""

import importlib.metadata
from typing import TYPE_CHECKING, Any

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

if TYPE_CHECKING:
    from model.studies.study import Design, StudyError, load_design, read_study, run_study

try:
    __version__: str = importlib.metadata.version("latency-lab")
except importlib.metadata.PackageNotFoundError:  # a checkout that was never installed (pip install -e .)
    __version__ = "0+unknown"

#: The study API's names (model.studies.study), imported on first use.
_STUDY = ("Design", "StudyError", "load_design", "read_study", "run_study")


def __getattr__(name: str) -> Any:
    """The study API on first use (PEP 562): ``import model`` stays quick for the app and the command line."""
    if name in _STUDY:
        from model.studies import study

        return getattr(study, name)
    raise AttributeError(f"module 'model' has no attribute {name!r}")


# each engine's step budget (model.scenario.limits.ENGINE_STEPS): the native engine's where it is built and wanted
limits.follow_engine("native" if _native_engine.available() else engine_backend())

__all__ = [
    "ALL_PROTOCOLS",
    "GLOSSARY",
    "PRESETS",
    "SEED_PROTOCOLS",
    "Design",
    "Prediction",
    "ProtocolResult",
    "Scenario",
    "StudyError",
    "engine_backend",
    "expression",
    "load_design",
    "predict",
    "preset",
    "read_study",
    "run_study",
]
