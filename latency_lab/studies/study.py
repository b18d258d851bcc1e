"""Studies: a design of many scenarios, run into a pandas DataFrame and Parquet shards.

A :class:`Design` names a base (a preset and/or a scenario document), the protocols, and the fields to vary
(any scalar field of a scenario section, as a sweep steps them: :data:`latency_lab.analysis.sweep.SWEEPABLE_FIELDS`):

- ``"grid"``: every combination of each field's ``values`` (the first field varies slowest);
- ``"random"``: ``samples`` scenarios, each field drawn independently from ``seed``: uniformly between ``low`` and
  ``high`` (``"spacing": "log"``: uniformly in their logarithm), or uniformly among its ``values``;
- ``"sobol"``: Saltelli's scheme for Sobol' indices through SALib (``SALib.sample.sobol``, first-order and total
  indices: ``samples`` x (number of fields + 2) scenarios, ``samples`` a power of 2), each field between ``low``
  and ``high``.

A value of an integer field is rounded. Each point's fields are given on top of the base by the rules every
front end uses (:func:`latency_lab.scenario.overlay.overlay`: a given ``network.rtt_ms`` replaces the base's one-way
delays, a given ``page.object_count`` its objects), and the result validated as the command line and the API
validate (:func:`latency_lab.scenario.errors.validate_scenario`).

:func:`run_study` predicts every scenario within one request's work budget (as ``predict --jsonl`` does) and
returns a DataFrame of one row per scenario and protocol (:func:`columns` lists them: ``scenario`` (its index in
the design), each design field under its own dotted name and unit, ``protocol``, ``page_load_ms``,
``leading_ms`` (the time that leads: with loss the expected one, :mod:`latency_lab.analysis.leading`),
``breakdown_ms.*``, ``counts.*``, ``expected_with_loss.*`` and ``error``). A scenario that fails (an invalid
combination of fields, over the work limit) is one row with its ``error`` and no protocol; the others go on.
With ``out`` the rows are written as Parquet shards of ``shard_size`` scenarios (``shard-00000.parquet``, ...;
each written whole or not at all), with the provenance (latency-lab's version, the engine, the TCP profiles, the
design) in each file's metadata (:func:`provenance`); a second run with the same design and ``out`` reads the
shards already written instead of running them again (:func:`run_shard` is one shard's task, for Dask:
docs/dask.md).

Pure: the model, numpy, pandas, pyarrow, SALib and tqdm (its progress bar on standard error).
"""

from __future__ import annotations

import collections
import contextlib
import functools
import hashlib
import itertools
import json
import math
import os
import sys
from collections.abc import Iterator, Sequence
from concurrent.futures import Future, ProcessPoolExecutor
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

try:
    import numpy as np
    import pandas as pd
    import pyarrow as pa
    import pyarrow.parquet as pq
    from tqdm import tqdm
except ModuleNotFoundError as exc:  # the app and the predictions run without them (requirements-studies.txt)
    raise ModuleNotFoundError(
        f"studies need the extra latency-lab[studies] (pandas, pyarrow, SALib, tqdm: requirements-studies.txt); "
        f"{exc.name} is not installed: pip install 'latency-lab[studies]' or pip install -r requirements-studies.txt",
        name=exc.name,
    ) from exc

from latency_lab._backend import engine_backend
from latency_lab.analysis import native
from latency_lab.analysis.critical_path import CATEGORIES
from latency_lab.analysis.leading import leading_ms
from latency_lab.analysis.predict import predict
from latency_lab.analysis.result import COUNT_NAMES, ProtocolResult
from latency_lab.analysis.sweep import SWEEPABLE_FIELDS, field_spec
from latency_lab.analysis.tables import LOSS_COLUMNS
from latency_lab.scenario import limits
from latency_lab.scenario.errors import FieldSpec, did_you_mean, problems, validate_scenario, words
from latency_lab.scenario.json_input import JsonInputError, check_depth
from latency_lab.scenario.overlay import overlay
from latency_lab.scenario.schema import Protocol
from latency_lab.studies.presets import PRESETS
from latency_lab.studies.workers import worker_pool

__all__ = [
    "Axis",
    "Design",
    "StudyError",
    "columns",
    "design_problems",
    "expand",
    "failed_scenarios",
    "load_design",
    "pending_shards",
    "provenance",
    "read_study",
    "run_shard",
    "run_study",
    "scenario_count",
    "shard_path",
]

#: The most scenarios one design may expand to.
MAX_STUDY_SCENARIOS = 100_000_000
#: Scenarios a worker process predicts per task (``jobs`` > 1): few hand-overs, a progress bar that moves.
CHUNK_SCENARIOS = 250
#: Tasks per worker process sent ahead of the one whose rows are taken next (``jobs`` > 1).
IN_FLIGHT_PER_JOB = 4
#: The Parquet metadata key of a shard's provenance (:func:`provenance`).
METADATA_KEY = b"latency_lab"

Scalar = bool | int | float | str | None


class StudyError(ValueError):
    """A design that cannot run, or an output folder that holds another study: one problem a line."""


class Axis(BaseModel):
    """How one field varies: its ``values`` (grid; random: drawn among them) or a range ``low`` to ``high``."""

    model_config = ConfigDict(extra="forbid", allow_inf_nan=False)

    values: list[Scalar] | None = Field(None, min_length=1, description="The field's values (grid, random).")
    low: float | None = Field(None, description="The range's low end (random, sobol).")
    high: float | None = Field(None, description="The range's high end (random, sobol).")
    spacing: Literal["linear", "log"] = Field("linear", description="random: uniform, or uniform in the logarithm.")


class Design(BaseModel):
    """A study: the base scenario, the protocols and the fields that vary (see the module's docstring)."""

    model_config = ConfigDict(extra="forbid", allow_inf_nan=False)

    kind: Literal["grid", "random", "sobol"] = Field("grid", description="How the fields vary.")
    preset: str | None = Field(None, description="Start from this preset's document.")
    scenario: dict[str, Any] = Field(default_factory=dict, description="A scenario document, on the preset.")
    protocols: list[Protocol] | None = Field(None, min_length=1, description="The protocols; default: the base's.")
    fields: dict[str, Axis] = Field(min_length=1, description="The fields that vary, by dotted name.")
    samples: int | None = Field(None, ge=1, description="random: scenarios; sobol: base samples (a power of 2).")
    seed: int = Field(0, ge=0, description="The random and Sobol designs' seed.")


# --- the design ------------------------------------------------------------------------------------------------


def _range_problem(name: str, where: str, x: float, s: FieldSpec) -> str | None:
    if s.within(x):
        return None
    return f"fields.{name}.{where}: {x:g} is out of range; allowed: {words(s, with_null=False)}"


def _value_problem(where: str, v: Scalar, s: FieldSpec) -> str | None:
    """What is wrong with ``v`` as a value of the field ``s`` describes (its type, range or choices); None if fine."""
    what = words(s)
    if v is None:
        return None if s.nullable else f"{where}: null is not allowed; allowed: {what}"
    if s.kind in ("number", "integer"):
        if isinstance(v, bool) or not isinstance(v, int | float) or (s.kind == "integer" and v != int(v)):
            return f"{where}: {json.dumps(v)} is not {'a whole number' if s.kind == 'integer' else 'a number'}; allowed: {what}"
        problem = _range_problem("", "", float(v), s)
        return f"{where}: {v:g} is out of range; allowed: {what}" if problem else None
    if s.kind == "boolean":
        return None if isinstance(v, bool) else f"{where}: {json.dumps(v)} is not true or false; allowed: {what}"
    if s.kind == "choice" and v not in s.choices:
        return f"{where}: {json.dumps(v)} is not one of the choices; allowed: {what}"
    return None


def _base_problems(design: Design) -> list[str]:
    """The problems of the base scenario (the preset with ``scenario`` on it) in fields the design does not vary:
    every scenario of the study would have them. A problem of the whole (no field) is left to each scenario's row:
    a varied field may mend it."""
    try:
        check_depth(design.scenario)
    except JsonInputError as exc:
        return [f"scenario: {p.text}" for p in exc.problems]
    try:
        validate_scenario(_base_document(design))
    except ValidationError as exc:
        return [f"scenario.{p.text}" for p in problems(exc) if p.path and p.path not in design.fields]
    return []


def design_problems(design: Design) -> list[str]:
    """What is wrong with ``design`` (one line each, naming the place and what it allows); [] if nothing."""
    out: list[str] = []
    if design.preset is not None and design.preset not in PRESETS:
        hint = did_you_mean(design.preset, PRESETS)
        out.append(f"preset: unknown preset {design.preset!r}; presets: {', '.join(PRESETS)}{hint}")
    if design.kind != "grid" and design.samples is None:
        out.append(f"samples: a {design.kind} design needs samples (a whole number, at least 1)")
    if design.kind == "sobol" and design.samples is not None and design.samples & (design.samples - 1):
        out.append(f"samples: {design.samples} is not a power of 2; allowed: 1, 2, 4, 8, ... (Saltelli's scheme)")
    if design.kind == "grid" and design.samples is not None:
        out.append("samples: a grid design takes no samples (its size is the product of the values' counts)")
    for name, axis in design.fields.items():
        if name not in SWEEPABLE_FIELDS:
            hint = did_you_mean(name, SWEEPABLE_FIELDS)
            out.append(f"fields.{name}: not a field a study can vary{hint} (a scalar field of a scenario section)")
            continue
        s = field_spec(name)
        ranged = axis.low is not None or axis.high is not None
        numeric = s.kind in ("number", "integer")
        if design.kind == "grid" and axis.values is None:
            out.append(f"fields.{name}: a grid design needs values (a list)")
        elif design.kind == "sobol" and not ranged:
            out.append(f"fields.{name}: a sobol design needs low and high")
        elif design.kind == "random" and not ranged and axis.values is None:
            out.append(f"fields.{name}: a random design needs low and high, or values")
        for k, v in enumerate(axis.values or ()):
            problem = _value_problem(f"fields.{name}.values[{k}]", v, s)
            if problem:
                out.append(problem)
        if axis.values is not None and ranged:
            out.append(f"fields.{name}: give values, or low and high, not both")
        if ranged:
            if not numeric:
                out.append(f"fields.{name}: not a number, give its values; allowed: {words(s, with_null=False)}")
                continue
            if axis.low is None or axis.high is None:
                out.append(f"fields.{name}: give both low and high")
                continue
            for where, x in (("low", axis.low), ("high", axis.high)):
                problem = _range_problem(name, where, x, s)
                if problem:
                    out.append(problem)
            if axis.low > axis.high:
                out.append(f"fields.{name}: low ({axis.low:g}) is above high ({axis.high:g})")
            if axis.spacing == "log" and axis.low <= 0:
                out.append(f"fields.{name}.low: log spacing needs low above 0")
    if not out:
        out.extend(_base_problems(design))
    if not out:
        n = scenario_count(design)
        if n > MAX_STUDY_SCENARIOS:
            out.append(f"the design has {n:,} scenarios; at most {MAX_STUDY_SCENARIOS:,} (split it into studies)")
    return out


def load_design(data: Any) -> Design:
    """A :class:`Design` from a parsed JSON document; :class:`StudyError` naming each problem and what it allows."""
    try:
        design = Design.model_validate(data, strict=False)
    except ValidationError as exc:
        lines = []
        for e in exc.errors(include_url=False):
            where = ".".join(str(p) for p in e["loc"]) or "the design"
            lines.append(f"{where}: {e['msg']}")
        raise StudyError("\n".join(lines)) from None
    found = design_problems(design)
    if found:
        raise StudyError("\n".join(found))
    return design


def scenario_count(design: Design) -> int:
    """How many scenarios ``design`` expands to."""
    if design.kind == "grid":
        return math.prod(len(a.values or ()) for a in design.fields.values())
    assert design.samples is not None
    return design.samples * (len(design.fields) + 2) if design.kind == "sobol" else design.samples


def _typed(s: FieldSpec, x: Any) -> Scalar:
    """A drawn value as the field takes it: an integer field's rounded; numpy scalars as Python's."""
    if isinstance(x, np.generic):
        x = x.item()
    if s.kind == "integer" and isinstance(x, float) and math.isfinite(x):
        return round(x)
    return x  # type: ignore[no-any-return]


class _Plan:
    """A design's points, column by column: the value of each field at each index (drawn once)."""

    def __init__(self, design: Design) -> None:
        self.names = list(design.fields)
        self.specs = [field_spec(n) for n in self.names]
        self.n = scenario_count(design)
        self.grid: list[list[Scalar]] | None = None
        self.table: list[list[Scalar]] = []
        axes = list(design.fields.values())
        if design.kind == "grid":
            self.grid = [[_typed(s, v) for v in a.values or ()] for a, s in zip(axes, self.specs, strict=True)]
        elif design.kind == "random":
            rng = np.random.default_rng(design.seed)
            for a, s in zip(axes, self.specs, strict=True):
                if a.values is not None:
                    picks = rng.integers(0, len(a.values), size=self.n)
                    self.table.append([a.values[i] for i in picks])
                else:
                    assert a.low is not None and a.high is not None
                    if a.spacing == "log":
                        drawn = np.exp(rng.uniform(math.log(a.low), math.log(a.high), size=self.n))
                    else:
                        drawn = rng.uniform(a.low, a.high, size=self.n)
                    self.table.append([_typed(s, x) for x in drawn.tolist()])
        else:
            from SALib.sample import sobol as saltelli  # imported here: SALib's import takes a while

            problem = {
                "num_vars": len(axes),
                "names": self.names,
                "bounds": [[a.low, a.high] for a in axes],
            }
            matrix = saltelli.sample(problem, design.samples, calc_second_order=False, seed=design.seed)
            self.table = [[_typed(s, x) for x in matrix[:, j].tolist()] for j, s in enumerate(self.specs)]

    def point(self, i: int) -> dict[str, Scalar]:
        """The fields' values of scenario ``i``."""
        if self.grid is None:
            return {name: col[i] for name, col in zip(self.names, self.table, strict=True)}
        out: dict[str, Scalar] = {}
        for name, vals in zip(reversed(self.names), reversed(self.grid), strict=True):
            i, k = divmod(i, len(vals))
            out[name] = vals[k]
        return dict(reversed(out.items()))


def _base_document(design: Design) -> dict[str, Any]:
    base = PRESETS[design.preset].document if design.preset is not None else None
    doc = overlay(base, design.scenario)
    if design.protocols is not None:
        doc["protocols"] = list(design.protocols)
    return doc


def _given(point: dict[str, Scalar]) -> dict[str, Any]:
    """``{"network.rtt_ms": 20}`` -> ``{"network": {"rtt_ms": 20}}``."""
    out: dict[str, dict[str, Any]] = {}
    for name, value in point.items():
        section, field = name.split(".", 1)
        out.setdefault(section, {})[field] = value
    return out


def _key(design: Design) -> str:
    return design.model_dump_json()


@functools.lru_cache(maxsize=4)
def _prepared(key: str) -> tuple[Design, _Plan, dict[str, Any]]:
    """A design (by its JSON), its plan and base document: drawn once per process (a worker's many tasks)."""
    design = Design.model_validate_json(key)
    return design, _Plan(design), _base_document(design)


def expand(design: Design, start: int = 0, stop: int | None = None) -> Iterator[tuple[int, dict[str, Any]]]:
    """Scenarios ``start`` to ``stop`` of ``design`` (default: all) as (index, scenario document), unvalidated."""
    _, plan, base = _prepared(_key(design))
    for i in range(start, plan.n if stop is None else min(stop, plan.n)):
        yield i, overlay(base, _given(plan.point(i)))


# --- the rows --------------------------------------------------------------------------------------------------

_RESULT_COLUMNS: list[tuple[str, pa.DataType]] = [
    ("protocol", pa.string()),
    ("page_load_ms", pa.float64()),
    ("leading_ms", pa.float64()),
    *((f"breakdown_ms.{c}", pa.float64()) for c in CATEGORIES),
    *((f"counts.{c}", pa.int64()) for c in COUNT_NAMES),
    *((f"expected_with_loss.{c}", pa.float64()) for c in LOSS_COLUMNS),
    ("error", pa.string()),
]
_ARROW_TYPE = {"number": pa.float64(), "integer": pa.int64(), "boolean": pa.bool_(), "choice": pa.string()}


def _schema(design: Design) -> pa.Schema:
    fields = [pa.field("scenario", pa.int64())]
    for name in design.fields:
        s = field_spec(name)
        numeric_choice = s.kind == "choice" and all(isinstance(c, int | float) for c in s.choices)
        fields.append(pa.field(name, pa.float64() if numeric_choice else _ARROW_TYPE[s.kind]))
    return pa.schema([*fields, *(pa.field(n, t) for n, t in _RESULT_COLUMNS)])


def columns(design: Design) -> list[str]:
    """The columns of ``design``'s DataFrame and Parquet files, in order."""
    return list(_schema(design).names)


def _one(doc: dict[str, Any]) -> tuple[list[ProtocolResult], str | None]:
    """The results of one scenario document, or its error in words."""
    try:
        scenario = validate_scenario(doc)
        with limits.request_budget():
            return list(predict(scenario)["results"]), None
    except ValidationError as exc:
        return [], "; ".join(p.text for p in problems(exc))
    except limits.WorkLimitExceeded as exc:
        return [], exc.limit.message
    except (ValueError, ArithmeticError, RecursionError) as exc:  # recorded with its kind, the study goes on
        return [], f"{type(exc).__name__}: {exc}"


def _rows(key: str, start: int, stop: int) -> dict[str, list[Any]]:
    """The rows of scenarios ``start`` to ``stop`` of the design ``key``, column by column (a worker's task)."""
    design, plan, base = _prepared(key)
    names = list(design.fields)
    cols: dict[str, list[Any]] = {n: [] for n in ["scenario", *names, *(c for c, _ in _RESULT_COLUMNS)]}
    for i in range(start, min(stop, plan.n)):
        point = plan.point(i)
        results, error = _one(overlay(base, _given(point)))
        outcomes: list[ProtocolResult | None] = [*results] if results else [None]
        for r in outcomes:
            cols["scenario"].append(i)
            for n in names:
                cols[n].append(point[n])
            if r is None:
                for c, _ in _RESULT_COLUMNS:
                    cols[c].append(error if c == "error" else None)
                continue
            loss: dict[str, Any] = dict(r["expected_with_loss"])
            cols["protocol"].append(r["protocol"])
            cols["page_load_ms"].append(r["page_load_ms"])
            cols["leading_ms"].append(leading_ms(r))
            for c in CATEGORIES:
                cols[f"breakdown_ms.{c}"].append(r["breakdown_ms"][c])
            for c in COUNT_NAMES:
                cols[f"counts.{c}"].append(r["counts"][c])
            for c in LOSS_COLUMNS:
                head, _, rest = c.partition(".")
                cols[f"expected_with_loss.{c}"].append(loss[head][rest] if rest else loss[head])
            cols["error"].append(None)
    return cols


def _table(design: Design, cols: dict[str, list[Any]]) -> pa.Table:
    schema = _schema(design)
    arrays = []
    for f in schema:
        values = cols[f.name]
        if f.type == pa.float64():
            values = [float(v) if isinstance(v, int | float) and not isinstance(v, bool) else v for v in values]
        try:
            arrays.append(pa.array(values, type=f.type))
        except (pa.ArrowInvalid, pa.ArrowTypeError, TypeError):  # a value of another type (a failed row's)
            arrays.append(pa.array([json.dumps(v) if v is not None else None for v in values], type=pa.string()))
            schema = schema.set(schema.get_field_index(f.name), pa.field(f.name, pa.string()))
    return pa.Table.from_arrays(arrays, schema=schema)


# --- provenance, shards, resume --------------------------------------------------------------------------------


def _version() -> str:
    from latency_lab import __version__  # the package's seam: latency_lab/__init__.py (imported by then)

    return __version__


def _digest(design: Design) -> str:
    return hashlib.sha256(_key(design).encode()).hexdigest()


def provenance(design: Design, shard: int | None = None, shard_size: int | None = None) -> dict[str, Any]:
    """What a study's file says of where its numbers came from: latency-lab's version, the engine that ran the
    numbers (``native`` or ``python``; ``native_engine`` says the same as a flag, as files from before issue 29 have it,
    whose ``engine`` was ``compiled`` or ``python``), the TCP profiles of the base and the
    design, the design itself and its digest, and (for a shard) its number, size and scenarios."""
    base = _base_document(design)
    profiles = {str(base.get("tcp", {}).get("profile", "bsd"))}
    if "tcp.profile" in design.fields:
        profiles.update(str(v) for v in design.fields["tcp.profile"].values or ())
    out: dict[str, Any] = {
        "version": _version(),
        "engine": engine_backend(),
        "native_engine": native.available(),
        "profiles": sorted(profiles),
        "design": json.loads(_key(design)),
        "design_sha256": _digest(design),
        "scenarios": scenario_count(design),
    }
    if shard is not None and shard_size is not None:
        first = shard * shard_size
        out.update(shard=shard, shard_size=shard_size, first=first, stop=min(first + shard_size, out["scenarios"]))
    return out


def shard_path(out: str | os.PathLike[str], shard: int) -> Path:
    """Shard ``shard``'s file in the folder ``out``: ``shard-00003.parquet``."""
    return Path(out) / f"shard-{shard:05d}.parquet"


def _done(path: Path, design: Design, shard_size: int) -> bool:
    """Whether ``path`` holds this design's shard already; :class:`StudyError` if it holds another study's."""
    if not path.exists():
        return False
    try:
        meta = pq.read_schema(path).metadata or {}
        info = json.loads(meta[METADATA_KEY])
    except (OSError, KeyError, ValueError, pa.ArrowException):
        return False  # unreadable: written again
    if info.get("design_sha256") != _digest(design) or info.get("shard_size") != shard_size:
        raise StudyError(
            f"{path}: holds a shard of another study (another design or shard size); "
            "write this one to another folder, or delete the old one"
        )
    return True


def _write(path: Path, table: pa.Table, info: dict[str, Any]) -> None:
    """``table`` with ``info`` in its metadata, to ``path``: written beside it, then renamed (whole or not at all)."""
    table = table.replace_schema_metadata({**(table.schema.metadata or {}), METADATA_KEY: json.dumps(info)})
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        pq.write_table(table, tmp)
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)


def pending_shards(design: Design, out: str | os.PathLike[str], shard_size: int = 10_000) -> list[int]:
    """The shards of ``design`` not yet in the folder ``out`` (made if need be), in order: what a (re)run has to
    do. :class:`StudyError` if ``out`` holds shards of another study or the design is bad."""
    found = design_problems(design)
    if found:
        raise StudyError("\n".join(found))
    if shard_size < 1:
        raise StudyError(f"shard_size: {shard_size} is not allowed; allowed: a whole number, at least 1")
    Path(out).mkdir(parents=True, exist_ok=True)
    shards = range(math.ceil(scenario_count(design) / shard_size))
    return [k for k in shards if not _done(shard_path(out, k), design, shard_size)]


def run_shard(shard: int, design: Design, *, shard_size: int, out: str | os.PathLike[str]) -> str:
    """Shard ``shard`` of ``design`` (scenarios ``shard * shard_size`` on, ``shard_size`` of them) predicted and
    written to ``out`` as :func:`shard_path` names it after the shard, unless it is there already: one task of a
    study on Dask (docs/dask.md). Returns the file's path."""
    path = shard_path(out, shard)
    if _done(path, design, shard_size):
        return str(path)
    first = shard * shard_size
    table = _table(design, _rows(_key(design), first, first + shard_size))
    _write(path, table, provenance(design, shard, shard_size))
    return str(path)


def read_study(out: str | os.PathLike[str]) -> pd.DataFrame:
    """Every shard in the folder ``out`` as one DataFrame, in scenario order (counts as nullable integers)."""
    paths = sorted(Path(out).glob("shard-*.parquet"))
    if not paths:
        raise StudyError(f"{out}: no shards (shard-*.parquet) in it")
    table = pa.concat_tables([pq.read_table(p) for p in paths], promote_options="permissive")
    return _frame(table)


def _frame(table: pa.Table) -> pd.DataFrame:
    frame: pd.DataFrame = table.to_pandas(types_mapper={pa.int64(): pd.Int64Dtype(), pa.bool_(): pd.BooleanDtype()}.get)
    return frame


# --- running ---------------------------------------------------------------------------------------------------


def _in_order(
    pool: ProcessPoolExecutor, key: str, tasks: Sequence[tuple[int, int, int]], ahead: int
) -> Iterator[dict[str, list[Any]]]:
    """The rows of each task, in order, from ``pool``, with at most ``ahead`` tasks sent and not yet taken (memory
    stays bounded whatever the study's size)."""
    window: collections.deque[Future[dict[str, list[Any]]]] = collections.deque()
    todo = iter(tasks)
    for _, a, b in itertools.islice(todo, ahead):
        window.append(pool.submit(_rows, key, a, b))
    while window:
        done = window.popleft().result()
        for _, a, b in itertools.islice(todo, 1):
            window.append(pool.submit(_rows, key, a, b))
        yield done


def _merge(parts: Sequence[dict[str, list[Any]]]) -> dict[str, list[Any]]:
    out: dict[str, list[Any]] = {k: [] for k in parts[0]}
    for part in parts:
        for k, v in part.items():
            out[k].extend(v)
    return out


def run_study(
    design: Design,
    out: str | os.PathLike[str] | None = None,
    *,
    shard_size: int = 10_000,
    jobs: int = 1,
    progress: bool | None = None,
    frame: bool = True,
) -> pd.DataFrame | None:
    """Run ``design``: a DataFrame of one row per scenario and protocol (:func:`columns`; a failed scenario one
    row with its ``error``), in scenario order.

    ``out``: a folder to write Parquet shards of ``shard_size`` scenarios into (:func:`shard_path`, with
    :func:`provenance` in each file's metadata); the shards already there for this design are read, not run
    again (resume). ``jobs``: worker processes (1: this one). ``progress``: a tqdm bar on standard error (None:
    on a terminal, for studies of 1,000 scenarios or more). ``frame=False`` returns None (a study too big for
    memory: read its shards in parts).
    """
    if shard_size < 1 or jobs < 1:
        raise StudyError("shard_size and jobs: each a whole number, at least 1")
    found = design_problems(design)
    if found:
        raise StudyError("\n".join(found))
    key = _key(design)
    n = scenario_count(design)
    shards = range(math.ceil(n / shard_size))
    if out is not None:
        todo = pending_shards(design, out, shard_size)
    else:
        todo = list(shards)
    pending = set(todo)
    done_before = sum(min(shard_size, n - k * shard_size) for k in shards if k not in pending)
    show = n >= 1000 and sys.stderr.isatty() if progress is None else progress
    tables: dict[int, pa.Table] = {}
    with contextlib.ExitStack() as stack:
        bar = stack.enter_context(
            tqdm(total=n, initial=done_before, disable=not show, unit="scenario", desc="study", file=sys.stderr)
        )
        chunk = min(CHUNK_SCENARIOS, shard_size)
        tasks = [
            (k, first, min(first + chunk, (k + 1) * shard_size, n))
            for k in todo
            for first in range(k * shard_size, min((k + 1) * shard_size, n), chunk)
        ]
        if jobs > 1 and len(tasks) > 1:
            pool = stack.enter_context(worker_pool(min(jobs, len(tasks)), __name__))
            results: Iterator[dict[str, list[Any]]] = _in_order(pool, key, tasks, IN_FLIGHT_PER_JOB * jobs)
        else:
            results = (_rows(key, a, b) for _, a, b in tasks)
        parts: list[dict[str, list[Any]]] = []
        for (k, a, b), cols in zip(tasks, results, strict=True):
            parts.append(cols)
            bar.update(b - a)
            if b == min((k + 1) * shard_size, n):  # the shard's last chunk
                table = _table(design, _merge(parts))
                parts = []
                if out is not None:
                    _write(shard_path(out, k), table, provenance(design, k, shard_size))
                if frame:
                    tables[k] = table
    if not frame:
        return None
    if out is not None:
        for k in shards:
            if k not in tables:
                tables[k] = pq.read_table(shard_path(out, k))
    ordered = [tables[k] for k in shards]
    if not ordered:
        return _frame(_schema(design).empty_table())
    return _frame(pa.concat_tables(ordered, promote_options="permissive"))


def failed_scenarios(out: str | os.PathLike[str]) -> int:
    """How many scenarios of the study in the folder ``out`` failed (rows with an ``error``)."""
    paths = sorted(Path(out).glob("shard-*.parquet"))
    return sum(_errors(p) for p in paths)


def _errors(path: Path) -> int:
    column = pq.read_table(path, columns=["error"]).column("error")
    return int(len(column) - column.null_count)
