"""Sweeps: one scenario field stepped over a list of values, every protocol predicted at each.

A :class:`SweepRequest` names a base scenario, a field (``network.rtt_ms``, ``page.object_count``,
any scalar field of a scenario section: :data:`SWEEPABLE_FIELDS`), the values (a list, or ``start``,
``stop``, ``steps`` with linear or log spacing) and the protocols. :func:`sweep` returns one series
per protocol: ``page_load_ms`` and every count at each value, in the order of the values.

How a value is put into the base scenario: the field is given on top of the scenario document the
base was made from (``model_dump(exclude_unset=True)``: fields the base left out keep following their
defaults and the TCP profile) by the rules every front end uses (:func:`latency_lab.scenario.overlay.overlay`):
a swept ``page.object_count`` or ``page.object_size_bytes`` replaces the base's objects, the other taken
from them (their number; their mean size); a swept ``network.rtt_ms`` replaces the base's one-way delays.

Generated values of an integer field are rounded, and repeats dropped. Every point is validated
before anything runs, and the whole sweep must fit :data:`~latency_lab.scenario.limits.MAX_WORK_UNITS`; problems
raise :class:`SweepError`, each naming where in the request it is (``values[3]``, ``start``, ...).

Pure: the model and pydantic only.
"""

from __future__ import annotations

import difflib
import json
import math
from collections.abc import Iterable, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Annotated, Any, Literal, TypedDict

from pydantic import BaseModel, ConfigDict, Field, ValidationError, WithJsonSchema

from latency_lab.analysis.predict import summaries
from latency_lab.scenario import errors
from latency_lab.scenario.errors import FieldSpec, Problem, allowed, did_you_mean, problems, spec, words
from latency_lab.scenario.limits import (
    MAX_SWEEP_POINTS,
    MAX_WORK_UNITS,
    MONOTONE_WORK_FIELDS,
    OBJECT_COUNT_FIELDS,
    WORK_FREE_FIELDS,
    Limit,
    check,
    check_sweep_size,
    objects_floor,
    work_floor,
    work_units,
)
from latency_lab.scenario.overlay import overlay
from latency_lab.scenario.schema import Protocol, Scenario

#: Scenario sections (the fields that are objects) whose scalar fields can be swept.
SECTIONS: tuple[str, ...] = tuple(
    name
    for name, info in Scenario.model_fields.items()
    if isinstance(info.annotation, type) and issubclass(info.annotation, BaseModel)
)


def _sweepable() -> tuple[str, ...]:
    out = []
    for section in SECTIONS:
        model = Scenario.model_fields[section].annotation
        assert isinstance(model, type) and issubclass(model, BaseModel)
        for name in model.model_fields:
            s = spec((section, name))
            if s is not None and s.kind in ("number", "integer", "boolean", "choice"):
                out.append(f"{section}.{name}")
    return tuple(out)


#: Every field a sweep can step: the scalar fields of the scenario's sections.
SWEEPABLE_FIELDS: tuple[str, ...] = _sweepable()

if TYPE_CHECKING:
    SweepField = str
else:
    SweepField = Literal[SWEEPABLE_FIELDS]

Spacing = Literal["linear", "log"]
Value = bool | int | float | str | None
#: A value in a request: any JSON scalar here; each is checked as the swept field's value (its path: values[i]).
RequestValue = Annotated[Any, WithJsonSchema({"type": ["boolean", "number", "string", "null"]})]


class SweepRequest(BaseModel):
    """A sweep: the base scenario, the field, its values and the protocols."""

    model_config = ConfigDict(extra="forbid", allow_inf_nan=False)

    scenario: Scenario = Field(
        default_factory=Scenario, description="The base scenario (as for /api/v1/predict); every field optional."
    )
    field: SweepField = Field(description="The scenario field to step, as a dotted path: network.rtt_ms.")
    values: list[RequestValue] | None = Field(
        None,
        min_length=1,
        max_length=MAX_SWEEP_POINTS,
        description="The field's values, in order. Give either values or start, stop and steps.",
    )
    start: float | None = Field(None, description="First value (with stop and steps).")
    stop: float | None = Field(None, description="Last value (with start and steps).")
    steps: int | None = Field(
        None, ge=2, le=MAX_SWEEP_POINTS, description="Number of values from start to stop, both included."
    )
    spacing: Spacing = Field(
        "linear", description="linear: equal differences; log: equal ratios (start and stop above 0)."
    )
    protocols: list[Protocol] | None = Field(
        None,
        min_length=1,
        max_length=7,
        json_schema_extra={"uniqueItems": True},  # the validator refuses a repeat
        description="Protocols to predict (no repeats); default: the base scenario's protocols.",
    )


class SweepSeries(TypedDict):
    """One protocol's series: each list in the order of the sweep's values."""

    protocol: Protocol
    page_load_ms: list[float]
    expected_with_loss_ms: list[float]
    counts: dict[str, list[int]]


class SweepResult(TypedDict):
    """A sweep's answer (:func:`sweep`); the API's ``SweepOutput`` is made from it (:mod:`latency_lab.api_schema`)."""

    field: str
    values: list[Value]
    protocols: list[Protocol]
    scenario: dict[str, Any]
    series: list[SweepSeries]


class SweepError(ValueError):
    """A sweep that cannot run: its problems (paths in the request) and the limit it went past, if any."""

    def __init__(self, found: Sequence[Problem], limit: Limit | None = None) -> None:
        super().__init__("; ".join(p.text for p in found))
        self.problems = list(found)
        self.limit = limit


# --- validation errors of the request itself -------------------------------------------------------


def _request_spec(loc: Sequence[str | int]) -> FieldSpec | None:
    """What the field at ``loc`` of a :class:`SweepRequest` (not inside its scenario) accepts."""
    if not loc or not isinstance(loc[0], str) or loc[0] not in SweepRequest.model_fields:
        return None
    info = SweepRequest.model_fields[loc[0]]
    annotation, extra, nullable = errors._unwrap(info.annotation)
    annotation_spec = errors._make_spec(annotation, [*info.metadata, *extra], nullable, loc[0], info.description or "")
    if len(loc) == 1 or annotation_spec is None:
        return annotation_spec
    return annotation_spec.item if annotation_spec.kind == "array" else None


def request_problems(exc: ValidationError) -> list[Problem]:
    """The errors of validating a :class:`SweepRequest`, with what each field allows.

    Errors inside ``scenario`` read as :func:`latency_lab.scenario.errors.problems` has them (path ``scenario.network.rtt_ms``);
    the request's own fields are described from :class:`SweepRequest`.
    """
    out: list[Problem] = []
    for p in problems(exc):
        loc = p.loc
        if loc and loc[0] == "scenario":
            inner = loc[1:]
            if p.type == "extra_forbidden":
                parent = errors._model_at(inner[:-1])
                fields = list(parent.model_fields) if parent is not None else []
                close = difflib.get_close_matches(str(inner[-1]), fields, n=1)
                out.append(replace(p, allowed=", ".join(fields) or None, suggestion=close[0] if close else None))
            elif p.type == "value_error":
                out.append(p)
            else:
                out.append(replace(p, allowed=allowed(inner)))
            continue
        if p.type == "extra_forbidden":
            fields = list(SweepRequest.model_fields)
            close = difflib.get_close_matches(str(loc[-1]), fields, n=1)
            out.append(replace(p, allowed=", ".join(fields), suggestion=close[0] if close else None))
            continue
        s = _request_spec(loc)
        out.append(replace(p, allowed=words(s) if s is not None else None))
    return out


# --- planning -------------------------------------------------------------------------------------


def _problem(path: str, message: str, kind: str, given: Any = None, allowed_words: str | None = None) -> Problem:
    got = json.dumps(given) if given is not None and not isinstance(given, dict | list) else None
    return Problem(path=path, message=message, allowed=allowed_words, value=given, type=kind, got=got)


def field_spec(field: str) -> FieldSpec:
    """What a sweepable field accepts (see :func:`latency_lab.scenario.errors.spec`)."""
    section, name = field.split(".", 1)
    found = spec((section, name))
    assert found is not None, field
    return found


def values(req: SweepRequest) -> list[Value]:
    """The values to sweep: the list given, or ``steps`` values from ``start`` to ``stop``."""
    s = field_spec(req.field)
    generated = (req.start, req.stop, req.steps)
    if req.values is not None:
        if any(g is not None for g in generated):
            raise SweepError(
                [_problem("values", "give either values or start, stop and steps, not both", "sweep_values")]
            )
        return list(req.values)
    missing = [name for name, g in zip(("start", "stop", "steps"), generated, strict=True) if g is None]
    if len(missing) == 3:
        raise SweepError([_problem("values", "give values, or start, stop and steps", "missing")])
    if missing:
        raise SweepError(
            [_problem(name, f"{name} is needed with start, stop and steps", "missing") for name in missing]
        )
    assert req.start is not None and req.stop is not None and req.steps is not None
    if s.kind not in ("number", "integer"):
        raise SweepError(
            [
                _problem(
                    "start",
                    f"{req.field} is not a number: give its values as a list",
                    "sweep_values",
                    allowed_words=words(s),
                )
            ]
        )
    start, stop, n = req.start, req.stop, req.steps
    if req.spacing == "log":
        bad = [(name, x) for name, x in (("start", start), ("stop", stop)) if x <= 0]
        if bad:
            raise SweepError(
                [
                    _problem(name, "log spacing needs start and stop above 0", "greater_than", x, "a number above 0")
                    for name, x in bad
                ]
            )
        out = [start * (stop / start) ** (i / (n - 1)) for i in range(n)]
    else:
        out = [start + (stop - start) * i / (n - 1) for i in range(n)]
    out[0], out[-1] = start, stop
    if s.kind == "integer":  # an infinity (start and stop near the float's limits) stays, for validation to refuse
        return list(dict.fromkeys(round(x) if math.isfinite(x) else x for x in out))
    return [float(x) for x in out]


def base_document(req: SweepRequest) -> dict[str, Any]:
    """The base scenario's document with the swept field given (its value set per point), combined by the rules
    every front end uses (:func:`latency_lab.scenario.overlay.overlay`) so the field takes effect."""
    section, name = req.field.split(".", 1)
    doc = overlay(req.scenario.model_dump(mode="json", exclude_unset=True), {section: {name: None}})
    if req.protocols is not None:
        doc["protocols"] = list(req.protocols)
    for key, value in doc.items():
        # The other sections as the base scenario validated them, not their documents: a point validates only the
        # swept field's section (the overlay's rules stay within a section, and a section's rules read only it). A
        # 663-object page's lists, validated again at each of 121 points, cost a calculator page 0.3 s (issue 26).
        if key != section and isinstance(value, dict) and isinstance(getattr(req.scenario, key, None), BaseModel):
            doc[key] = getattr(req.scenario, key)
    return doc


def point(req: SweepRequest, base: dict[str, Any], value: Value) -> Scenario:
    """The scenario at one value of the sweep: ``base`` (:func:`base_document`) with the field set to ``value``,
    validated (the one validation a point gets); :class:`pydantic.ValidationError` if it is not valid. Its sections
    other than the field's are copies of the base scenario's (:func:`base_document`), not validated again."""
    section, name = req.field.split(".", 1)
    doc = {key: part.model_copy() if isinstance(part, BaseModel) else part for key, part in base.items()}
    doc[section] = {**base.get(section, {}), name: value}  # the base's section is shared, not changed
    return Scenario.model_validate(doc, strict=True)


#: Most point problems reported; past it one more problem says how many points failed in all.
MAX_POINT_PROBLEMS = 10


def _most_objects(req: SweepRequest, vals: Sequence[Value]) -> int:
    """The most objects (the HTML among them) a point of the sweep has: the base page's, or on a sweep of
    ``page.object_count`` the largest count asked (known before any point is validated)."""
    objects = len(req.scenario.page.sizes()) + 1
    if req.field == "page.object_count":
        counts = [v for v in vals if isinstance(v, int) and not isinstance(v, bool)]
        objects = max([objects, *(c + 1 for c in counts)])
    return objects


#: Most values of a sweep of one of :data:`~latency_lab.scenario.limits.MONOTONE_WORK_FIELDS` that :func:`monotone_floor`
#: prices (about 0.1-0.3 ms each on a 1,000-object page), each standing for the values on its costlier side down to
#: the one before.
FLOOR_PRICES = 16


def monotone_floor(req: SweepRequest, vals: Sequence[Value]) -> int | None:
    """A floor of the work units of a sweep of one of :data:`~latency_lab.scenario.limits.MONOTONE_WORK_FIELDS`, known
    before any point is validated (``None`` for another field): its distinct values within the field's range (whole
    numbers for a whole-number field), from the cheapest side, are priced at :data:`FLOOR_PRICES` of them (the base
    scenario with the field set, not validated: the units' arithmetic only, :func:`~latency_lab.scenario.limits.work_floor`),
    each price standing for the values since the one before, which cost at least as much; a value out of range or of
    another type counts as nothing (it is no point: the sweep is refused for it anyway)."""
    if req.field not in MONOTONE_WORK_FIELDS:
        return None
    direction, rounds = MONOTONE_WORK_FIELDS[req.field]
    s = field_spec(req.field)
    numbers: set[float] = set()
    for v in vals:
        if isinstance(v, bool) or not isinstance(v, int | float) or (s.kind == "integer" and not isinstance(v, int)):
            continue
        if math.isfinite(v) and s.within(v):
            numbers.add(v)
    in_range = sorted(numbers, reverse=direction > 0)  # the costliest first: each price stands for the values before it
    if not in_range:
        return 0
    section, name = req.field.split(".", 1)
    base = req.scenario
    if req.protocols is not None:
        base = base.model_copy(update={"protocols": list(req.protocols)})
    step = -(-len(in_range) // FLOOR_PRICES)
    total = 0
    last = -1
    for i in sorted({*range(step - 1, len(in_range), step), len(in_range) - 1}):
        part = getattr(base, section).model_copy(update={name: in_range[i]})
        total += (i - last) * work_floor(base.model_copy(update={section: part}), rounds)
        last = i
    return total


def _over(limit: Limit, explicit: bool) -> SweepError:
    """The refusal of a sweep over ``limit``, named on the values given (``explicit``) or the steps asked."""
    return SweepError([_problem("values" if explicit else "steps", limit.message, "limit_exceeded")], limit)


def points(req: SweepRequest) -> list[tuple[Value, Scenario]]:
    """Each value with its validated scenario; :class:`SweepError` if any point or the total work is bad.

    A sweep of more points, protocols and objects than :data:`~latency_lab.scenario.limits.MAX_SWEEP_FIXED_UNITS` allows
    is refused before any point is validated. A sweep of a field the work does not depend on
    (:data:`~latency_lab.scenario.limits.WORK_FREE_FIELDS`) is refused at its first point if that point's units times the
    points pass :data:`~latency_lab.scenario.limits.MAX_WORK_UNITS`, and any sweep whose objects' units alone
    (:func:`~latency_lab.scenario.limits.objects_floor`) pass it before any, as does a sweep of a field whose work moves one
    way with its value (:data:`~latency_lab.scenario.limits.MONOTONE_WORK_FIELDS`: the segment size, the page's bytes, ...)
    whose values' floor (:func:`monotone_floor`) passes it. Otherwise the work is added up point by point,
    so a sweep far over the limit is refused after a few points (the rest estimated like the last), not after
    validating every one.
    """
    vals = values(req)
    explicit = req.values is not None
    keys = [json.dumps(v) for v in vals]
    protocols = len(req.protocols if req.protocols is not None else req.scenario.protocols)
    distinct = len(set(keys))
    limit = check_sweep_size(distinct, protocols, _most_objects(req, vals))
    if limit is not None:
        raise _over(limit, explicit)
    if req.field not in OBJECT_COUNT_FIELDS:
        # every point costs at least its objects' units: a sweep over the limit by them alone is refused unvalidated
        floor = distinct * objects_floor(req.scenario, req.protocols or req.scenario.protocols)
        limit = check(floor, MAX_WORK_UNITS, "max_work_units", f"this sweep ({distinct} points, its objects alone)")
        if limit is not None:
            raise _over(limit, explicit)
    least = monotone_floor(req, vals)  # a field whose work moves one way: priced from its values, unvalidated
    if least is not None:
        what = f"this sweep ({distinct} points, each priced at the least its value of {req.field} can cost)"
        limit = check(least, MAX_WORK_UNITS, "max_work_units", what)
        if limit is not None:
            raise _over(limit, explicit)
    # values out of the field's own range: the sweep is refused for them, so only their points are validated (for
    # pydantic's words), not the valid ones before them (874 receive windows of an h3 page whose last is 0: 90-115 ms)
    doomed = out_of_range(req.field, vals)
    return _points(req, vals, keys, base_document(req), only=doomed or None)


def out_of_range(field: str, vals: Sequence[Value]) -> frozenset[int]:
    """The indices of the numbers among ``vals`` that are outside ``field``'s range (:meth:`FieldSpec.within`): each
    is a point the sweep is refused for, known without validating a scenario."""
    s = field_spec(field)
    if s.kind not in ("number", "integer"):
        return frozenset()
    return frozenset(
        i
        for i, v in enumerate(vals)
        if isinstance(v, int | float) and not isinstance(v, bool) and math.isfinite(v) and not s.within(v)
    )


def _points(
    req: SweepRequest,
    vals: Sequence[Value],
    keys: Sequence[str],
    doc: dict[str, Any],
    only: frozenset[int] | None,
) -> list[tuple[Value, Scenario]]:
    """:func:`points`' validation of the points (``keys``: their values' JSON, ``doc``: :func:`base_document`), every one
    or ``only`` those (the points out of range, which the sweep is refused for: the others are not validated, nor their
    work added up)."""
    loc = tuple(req.field.split(".", 1))
    explicit = req.values is not None
    same_cost = req.field in WORK_FREE_FIELDS
    distinct = len(set(keys))
    out: list[tuple[Value, Scenario]] = []
    found: list[Problem] = []
    bad_points = reported = unchecked = 0
    units = 0
    seen: dict[str, Scenario] = {}
    for i, (v, key) in enumerate(zip(vals, keys, strict=True)):
        if only is not None and i not in only:
            continue
        if key in seen:
            out.append((v, seen[key]))
            continue
        try:
            s = point(req, doc, v)
        except ValidationError as exc:
            bad_points += 1
            if reported >= MAX_POINT_PROBLEMS:
                # enough to say what is wrong: the rest are not validated (a point of a 1,000-object page takes
                # about 1 ms, and 519 of them made a refusal cost 0.24 s of CPU, bench/worst_case.py 2026-11-28)
                unchecked = len(vals) - i - 1
                break
            reported += 1
            where = f"values[{i}]" if explicit else ("start" if i == 0 else "stop" if i == len(vals) - 1 else "steps")
            at = ("values", i) if explicit else (where,)
            for p in problems(exc):
                if tuple(p.loc) == loc:
                    found.append(replace(p, path=where, loc=at))
                else:
                    found.append(replace(p, path=where, message=f"with {req.field} = {key}: {p.text}", loc=at))
            continue
        seen[key] = s
        out.append((v, s))
        cost = work_units(s)
        units += cost
        if same_cost and len(seen) == 1 and not bad_points and cost * distinct > MAX_WORK_UNITS:
            # every point costs what this one does: decided now, not after validating the points until they pass it
            limit = check(cost * distinct, MAX_WORK_UNITS, "max_work_units", f"this sweep ({distinct} points)")
            assert limit is not None
            raise _over(limit, explicit)
        if units > MAX_WORK_UNITS and not bad_points:
            rest = len(set(keys[i + 1 :]) - set(seen))
            total = units + rest * cost
            limit = check(total, MAX_WORK_UNITS, "max_work_units", f"this sweep ({len(seen) + rest} points)")
            assert limit is not None
            raise _over(limit, explicit)
    if bad_points:
        if bad_points > reported:  # first, so that a listing of the first problems shows it
            found.insert(
                0,
                _problem(
                    "values",
                    f"at least {bad_points} of the {len(vals)} points are invalid ({unchecked} after the "
                    f"{MAX_POINT_PROBLEMS + 1}th invalid one not checked)",
                    "points",
                ),
            )
        raise SweepError(found)
    if only is not None:  # the range said they were out, validation let them through: every point is validated
        return _points(req, vals, keys, doc, only=None)
    return out


def work(req: SweepRequest) -> int:
    """Work units of a sweep (see :mod:`latency_lab.scenario.limits`); raises :class:`SweepError` like :func:`points`."""
    seen = {json.dumps(v): s for v, s in points(req)}
    return sum(work_units(s) for s in seen.values())


# --- running --------------------------------------------------------------------------------------


def sweep(req: SweepRequest, pts: Sequence[tuple[Value, Scenario]] | None = None) -> SweepResult:
    """Run a sweep: ``{"field", "values", "protocols", "scenario", "series"}``.

    ``series`` has one entry per protocol: ``{"protocol", "page_load_ms": [...], "expected_with_loss_ms":
    [...], "counts": {name: [...]}}``, each list in the order of ``values``. ``expected_with_loss_ms`` is the
    expected page load time with random loss at the point's ``network.loss_rate`` (:mod:`latency_lab.analysis.expected_loss`,
    an expected value; equal to ``page_load_ms`` where the loss rate is 0), so a sweep of the loss rate is not
    flat. ``scenario`` is the base scenario as computed.

    ``pts``: the points, each value with its scenario, when the caller has them already (from :func:`point`, so
    that no point is validated twice); then the caller answers for their work. Else :func:`points` (``req``'s
    values, validated, within :data:`~latency_lab.scenario.limits.MAX_WORK_UNITS`).
    """
    if pts is None:
        pts = points(req)
    protocols = list(req.protocols if req.protocols is not None else req.scenario.protocols)
    cache: dict[int, dict[str, Any]] = {}
    per_point: list[dict[str, dict[str, Any]]] = []
    for _, s in pts:
        if id(s) not in cache:
            cache[id(s)] = {r["protocol"]: r for r in summaries(s)}  # what predict gives of the keys read below
        per_point.append(cache[id(s)])
    series: list[SweepSeries] = []
    for proto in protocols:
        rs = [pp[proto] for pp in per_point]
        names = list(rs[0]["counts"]) if rs else []
        series.append(
            {
                "protocol": proto,
                "page_load_ms": [r["page_load_ms"] for r in rs],
                "expected_with_loss_ms": [r["expected_with_loss"]["page_load_ms"] for r in rs],
                "counts": {k: [r["counts"][k] for r in rs] for k in names},
            }
        )
    return {
        "field": req.field,
        "values": [v for v, _ in pts],
        "protocols": protocols,
        "scenario": req.scenario.model_dump(mode="json"),
        "series": series,
    }


def csv_rows(out: SweepResult) -> list[list[Any]]:
    """A sweep's output as CSV rows: header, then one row per value and protocol.

    Columns: the field's path, ``protocol``, ``page_load_ms``, ``expected_with_loss_ms``, ``counts.<name>`` for
    every count.
    """
    counts = list(dict.fromkeys(k for s in out["series"] for k in s["counts"]))
    rows: list[list[Any]] = [
        [out["field"], "protocol", "page_load_ms", "expected_with_loss_ms", *(f"counts.{k}" for k in counts)]
    ]
    for i, v in enumerate(out["values"]):
        for s in out["series"]:
            value = ("true" if v else "false") if isinstance(v, bool) else v
            rows.append(
                [
                    value,
                    s["protocol"],
                    s["page_load_ms"][i],
                    s["expected_with_loss_ms"][i],
                    *(s["counts"].get(k, [""] * (i + 1))[i] for k in counts),
                ]
            )
    return rows


# --- from Python --------------------------------------------------------------------------------------


def given(model: BaseModel) -> dict[str, Any]:
    """The fields given to a scenario (or section) and its sections, as a document: ``model_dump(exclude_unset=True)``
    but also with a section's fields assigned after the scenario was made (``s.network.rtt_ms = 20``: ``network``
    itself was never given, so pydantic's dump leaves it out)."""
    out: dict[str, Any] = {}
    for name in type(model).model_fields:
        value = getattr(model, name)
        if isinstance(value, BaseModel):
            inner = given(value)
            if inner or name in model.model_fields_set:
                out[name] = inner
        elif name in model.model_fields_set:
            out[name] = model.model_dump(mode="json", include={name})[name]
    return out


def request(
    scenario: Scenario | None,
    field: str,
    values: Iterable[Any] | None = None,
    *,
    start: float | None = None,
    stop: float | None = None,
    steps: int | None = None,
    spacing: Spacing = "linear",
    protocols: Sequence[str] | None = None,
) -> SweepRequest:
    """The :class:`SweepRequest` of :func:`latency_lab.sweep`'s arguments, validated strictly as the API validates a
    request's JSON; :class:`SweepError` naming each problem (an unknown field with the closest one)."""
    if field not in SWEEPABLE_FIELDS:
        hint = did_you_mean(field, SWEEPABLE_FIELDS)
        message = f"{field!r} is not a field a sweep can step (any number, whole number, true/false or choice of a section){hint}"
        raise SweepError([_problem("field", message, "literal_error", field if isinstance(field, str) else None)])
    doc: dict[str, Any] = {"field": field, "spacing": spacing}
    if scenario is not None:
        doc["scenario"] = given(scenario)
    if values is not None:
        doc["values"] = [float(v) if isinstance(v, float) else v for v in values]  # numpy's float64 as float
        bad = [i for i, v in enumerate(doc["values"]) if v is not None and not isinstance(v, bool | int | float | str)]
        if bad:
            raise SweepError(
                [
                    _problem(
                        f"values[{i}]",
                        f"Input should be a number, true or false, a string or null (got {doc['values'][i]!r}): "
                        "convert it with int() or float()",
                        "value_type",
                    )
                    for i in bad
                ]
            )
    for name, x in (("start", start), ("stop", stop), ("steps", steps)):
        if x is not None:
            doc[name] = x
    if protocols is not None:
        doc["protocols"] = list(protocols)
    try:
        return SweepRequest.model_validate(doc, strict=True)
    except ValidationError as exc:
        raise SweepError(request_problems(exc)) from None


__all__ = [
    "MAX_POINT_PROBLEMS",
    "SWEEPABLE_FIELDS",
    "SweepError",
    "SweepRequest",
    "SweepResult",
    "SweepSeries",
    "base_document",
    "csv_rows",
    "given",
    "point",
    "points",
    "request",
    "request_problems",
    "sweep",
    "values",
    "work",
]
