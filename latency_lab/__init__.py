"""latency-lab's model: closed-form page-load latency for HTTP over TCP, with the reasons why.

Public API (everything else is internal):

- :class:`Scenario` — the one scenario schema (pydantic): strict types, validated on assignment too; a refusal is a
  :class:`ScenarioError` (a ``ValueError``) in the command line's words (the field, what it allows, the value given,
  "did you mean").
- :func:`predict` — scenario (a :class:`Scenario` or a dict) in, output document out: a :class:`Prediction` (typed
  dictionaries, the JSON answer as is; :class:`ProtocolResult` per protocol, :mod:`latency_lab.analysis.result`).
- :func:`expression` — the sympy expression of a protocol's page load time for a scenario (what :func:`predict`
  takes), with its parts and its symbols by name.
- :func:`sweep` — one field stepped over values, every protocol predicted at each: a :class:`SweepResult`
  (:mod:`latency_lab.analysis.sweep`); a request that cannot run raises :class:`SweepError`.
- :data:`PRESETS`, :func:`preset` — the seeds' setups.
- :data:`GLOSSARY` — the symbols used in expressions; :data:`SYMBOLS`, :func:`symbol` — the symbols themselves, to
  differentiate or substitute by (``sympy.Symbol("RTT")`` is another symbol: these have assumptions).
- :class:`Design`, :func:`run_study`, :func:`read_study`, :func:`load_design`, :class:`StudyError` — studies of
  many scenarios into a pandas DataFrame and Parquet shards (:mod:`latency_lab.studies.study`; imported on first use:
  pandas and pyarrow take a while to import).
- :data:`__version__` — the installed package's version.
- :func:`engine_backend` — which engine runs the numbers: ``"native"`` (C++, built by ``pip install -e .``) or
  ``"python"`` (the readable reference, which runs the formulas either way; see :mod:`latency_lab._backend`).
"""

import importlib.metadata
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from latency_lab import _backend

_backend.install()  # before any engine module is imported: native or Python (latency_lab._backend)

from latency_lab._backend import engine_backend  # noqa: E402
from latency_lab.analysis import predict as _predict  # noqa: E402
from latency_lab.analysis import sweep as _sweep  # noqa: E402
from latency_lab.analysis.result import Prediction, ProtocolResult  # noqa: E402
from latency_lab.analysis.sweep import Spacing, SweepError, SweepResult, Value  # noqa: E402
from latency_lab.analysis.symbolic import GLOSSARY, SYMBOLS, symbol  # noqa: E402
from latency_lab.scenario import limits  # noqa: E402
from latency_lab.scenario.errors import ScenarioError, did_you_mean  # noqa: E402
from latency_lab.scenario.schema import ALL_PROTOCOLS, SEED_PROTOCOLS, Scenario, checked  # noqa: E402
from latency_lab.studies.presets import PRESETS, preset  # noqa: E402

if TYPE_CHECKING:
    from latency_lab.studies.study import Design, StudyError, load_design, read_study, run_study

try:
    __version__: str = importlib.metadata.version("latency-lab")
except importlib.metadata.PackageNotFoundError:  # a checkout that was never installed (pip install -e .)
    __version__ = "0+unknown"

#: The study API's names (latency_lab.studies.study), imported on first use.
_STUDY = ("Design", "StudyError", "load_design", "read_study", "run_study")


def __getattr__(name: str) -> Any:
    """The study API on first use (PEP 562): ``import latency_lab`` stays quick for the app and the command line."""
    if name in _STUDY:
        from latency_lab.studies import study

        return getattr(study, name)
    raise AttributeError(f"module 'latency_lab' has no attribute {name!r}")


def _scenario(scenario: Scenario | Mapping[str, Any]) -> Scenario:
    """A :class:`Scenario` as given (its rules between sections checked again if a field was assigned to:
    :func:`latency_lab.scenario.schema.checked`), or one validated from a dict; :class:`ScenarioError` if it is not valid."""
    if isinstance(scenario, Scenario):
        return checked(scenario)
    return Scenario.model_validate(scenario if isinstance(scenario, dict) else dict(scenario))


def predict(scenario: Scenario | Mapping[str, Any], *, packets: bool = False, formulas: bool = False) -> Prediction:
    """Predict the page load time of every protocol the scenario asks for.

    ``scenario``: a :class:`Scenario`, or a dict of its fields validated as ``Scenario.model_validate`` does (strict
    types; :class:`ScenarioError` in words). Returns the output document (:class:`Prediction`): ``{"scenario": ...,
    "results": [...]}`` with the scenario as computed (every default filled in) and one result per protocol, in the
    order asked. With ``packets=True`` each result also lists the packet schedule; with ``formulas=True`` each result
    also carries ``formula`` (the page load time and each breakdown part as text, LaTeX and MathML) and the document
    the ``glossary`` of the symbols used. No work limit applies here (the app's and the command line's do).
    """
    return _predict.predict(_scenario(scenario), packets=packets, formulas=formulas)


def expression(scenario: Scenario | Mapping[str, Any], protocol: str) -> dict[str, Any]:
    """The page load time of ``protocol`` as a sympy expression, with its parts and its symbols.

    ``scenario``: what :func:`predict` takes; ``protocol``: any of :data:`ALL_PROTOCOLS` (the scenario's rules for it
    apply, as if it had asked for it). Returns ``{"page_load_ms": Expr, "breakdown_ms": {category: Expr},
    "substitutions": {Symbol: value}, "symbols": {name: Symbol}}``: ``symbols`` names the ones the expressions use
    (from :data:`SYMBOLS`), so ``sympy.diff(e["page_load_ms"], e["symbols"]["RTT"])`` is the round-trip count. The
    expression is the active piece of the model's piecewise-linear form: exact for this scenario and any other whose
    critical path has the same shape.
    """
    s = _scenario(scenario)
    if protocol not in ALL_PROTOCOLS:
        hint = did_you_mean(protocol, ALL_PROTOCOLS, cutoff=0.5)  # "h4": h3
        raise ValueError(f"unknown protocol {protocol!r}; protocols: {', '.join(ALL_PROTOCOLS)}{hint}")
    if protocol not in s.protocols:  # its own rules: h3's window, a split proxy's HTTP/1.x only
        s = checked(s.model_copy(update={"protocols": [protocol]}), always=True)
    out = _predict.expression(s, protocol)
    used = set().union(*(e.free_symbols for e in (out["page_load_ms"], *out["breakdown_ms"].values())))
    out["symbols"] = {name: x for name, x in SYMBOLS.items() if x in used}
    return out


def sweep(
    scenario: Scenario | Mapping[str, Any] | None,
    field: str,
    values: Iterable[Value] | None = None,
    *,
    start: float | None = None,
    stop: float | None = None,
    steps: int | None = None,
    spacing: Spacing = "linear",
    protocols: Sequence[str] | None = None,
) -> SweepResult:
    """One scenario field stepped over values, every protocol predicted at each (:mod:`latency_lab.analysis.sweep`).

    ``scenario``: the base, what :func:`predict` takes (``None``: the default scenario); ``field``: a dotted path,
    ``"network.rtt_ms"`` (any of ``latency_lab.analysis.sweep.SWEEPABLE_FIELDS``); either ``values`` (each typed as the
    field takes it) or ``start``, ``stop`` and ``steps`` (``spacing`` ``"linear"`` or ``"log"``; an integer field's
    values rounded); ``protocols``: the ones to predict (default: the scenario's). The field is put into the base by
    the rules every front end uses (a swept ``network.rtt_ms`` replaces the one-way delays). Returns a
    :class:`SweepResult`: ``{"field", "values", "protocols", "scenario", "series"}``, a series per protocol with
    ``page_load_ms``, ``expected_with_loss_ms`` and every count, each a list in the order of ``values``. Within the
    API's limits (``MAX_SWEEP_POINTS`` points, ``MAX_WORK_UNITS`` of work); :class:`SweepError` naming each problem
    (``values[3]: ...``) otherwise.
    """
    base = None if scenario is None else _scenario(scenario)
    req = _sweep.request(base, field, values, start=start, stop=stop, steps=steps, spacing=spacing, protocols=protocols)
    return _sweep.sweep(req)


# the sweep plot's runs priced by the engine that runs them (latency_lab.scenario.limits.run_cost)
limits.follow_engine(engine_backend())

__all__ = [
    "ALL_PROTOCOLS",
    "GLOSSARY",
    "PRESETS",
    "SEED_PROTOCOLS",
    "SYMBOLS",
    "Design",
    "Prediction",
    "ProtocolResult",
    "Scenario",
    "ScenarioError",
    "StudyError",
    "SweepError",
    "SweepResult",
    "__version__",
    "engine_backend",
    "expression",
    "load_design",
    "predict",
    "preset",
    "read_study",
    "run_study",
    "sweep",
    "symbol",
]
