"""A scenario's fields and validation errors in words, for every front end.

The command line prints one line per problem, the web page shows a message under each form field
and a JSON API answers with the same problems as data; all of them get the words from here:

- :func:`spec` reads what the field at a location of :class:`Scenario` accepts from its type and
  ``Field`` constraints; :func:`allowed` (:func:`words`) says it: ``a number from 0 to 10,000 ms``,
  with the unit named by the field's suffix (:data:`UNITS`);
- :func:`field_path` writes a location as ``network.rtt_ms`` or ``page.object_bytes[1]``;
- :func:`problems` turns a pydantic :class:`ValidationError` into :class:`Problem` values: the
  path, pydantic's message, the allowed values and the value given, and :attr:`Problem.text`, the
  one-line form people read;
- :func:`validate_scenario` is the one validation every front end applies to a scenario document
  (strict JSON types: ``"70"`` is not a number, ``true`` is not 1);
- :class:`ScenarioError` is what the schema raises to Python callers (``Scenario(...)``, ``model_validate``, an
  assignment, :func:`latency_lab.predict`): a pydantic ``ValidationError`` (so a ``ValueError``) whose message is
  :attr:`Problem.text` of each problem, the lines the command line prints;
- :mod:`latency_lab.scenario.json_input` reads JSON input the same way for every front end, its problems
  as :class:`Problem` values too.

Pure: pydantic and the schema only (no web framework, no I/O).
"""

from __future__ import annotations

import difflib
import functools
import json
import types
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Annotated, Any, Literal, Union, get_args, get_origin

from pydantic import BaseModel, ValidationError
from pydantic.fields import FieldInfo
from pydantic_core import InitErrorDetails

from latency_lab.scenario.schema import Scenario

#: Units named by a field's suffix.
UNITS: dict[str, str] = {
    "_ms": "ms",
    "_bps": "bit/s",
    "_bytes": "bytes",
    "_segments": "segments",
    "_rate": "per packet",  # network.loss_rate: a probability per packet
}

Loc = Sequence[str | int]
#: pydantic's error types for a field the model has not: given (``extra_forbidden``) or assigned (``no_such_attribute``).
UNKNOWN_FIELD = ("extra_forbidden", "no_such_attribute")
Kind = Literal["number", "integer", "boolean", "choice", "array", "object"]


@dataclass(frozen=True, slots=True)
class FieldSpec:
    """What a scenario field (or a list item) accepts, read from its type and ``Field`` constraints."""

    kind: Kind
    name: str  # the field's name (a list item's: its list's name, which gives the unit)
    unit: str = ""  # from the name's suffix, see UNITS; "" if none
    description: str = ""  # the Field's description ("" for a list item)
    nullable: bool = False  # null (None) is accepted too
    low: float | None = None  # number, integer: the lower bound, if any
    high: float | None = None  # number, integer: the upper bound, if any
    low_inclusive: bool = True  # ge (True) or gt (False)
    high_inclusive: bool = True  # le (True) or lt (False)
    choices: tuple[Any, ...] = ()  # choice: the Literal's values
    fields: tuple[str, ...] = ()  # object: the model's field names
    min_items: int | None = None  # array: length bounds
    max_items: int | None = None
    item: FieldSpec | None = None  # array: what each item accepts (None if unknown)

    def within(self, x: float) -> bool:
        """Whether the number ``x`` is within the bounds (``low``, ``high``, each inclusive or not; none: unbounded)."""
        low_ok = self.low is None or (x >= self.low if self.low_inclusive else x > self.low)
        return low_ok and (self.high is None or (x <= self.high if self.high_inclusive else x < self.high))


@dataclass(frozen=True, slots=True)
class Problem:
    """One validation error of a scenario, as data (for an API) and as one line of text (for people).

    For an unknown field (``type`` in :data:`UNKNOWN_FIELD`) ``allowed`` lists the field names allowed
    at that place and ``suggestion`` is the closest of them, if any is close.
    """

    path: str  # field_path of the location: "network.rtt_ms", "[2].page.object_bytes[1]"; "" for the whole
    message: str  # pydantic's message (without its "Value error, " prefix)
    allowed: str | None = None  # what the field allows, in words (see allowed); None if not known or not useful
    value: Any = None  # the value given, if JSON-able (None otherwise)
    type: str = ""  # pydantic's error type: "greater_than_equal", "extra_forbidden", "value_error", ...
    loc: tuple[str | int, ...] = ()  # the location path is written from
    got: str | None = None  # the value given as text shows it (JSON, else repr); None where text leaves it out
    suggestion: str | None = None  # unknown field: "did you mean" this field

    @property
    def text(self) -> str:
        """The problem in one line: ``network.rtt_ms: Input should be ... (got -5); allowed: a number from 0 to 10,000 ms``."""
        where = self.path or "scenario"
        if self.type in UNKNOWN_FIELD:
            line = f"{where}: unknown field ({self.message})"
            if self.allowed:
                line += f"; allowed fields: {self.allowed}"
            if self.suggestion:
                line += f"; did you mean {self.suggestion!r}?"
            return line
        line = f"{where}: {self.message}"
        if self.got is not None:
            line += f" (got {self.got})"
        if self.allowed and self.type != "literal_error":  # a literal_error's message lists the choices
            line += f"; allowed: {self.allowed}"
        return line


# --- the schema -------------------------------------------------------------------------------


def did_you_mean(name: object, choices: Iterable[str], *, cutoff: float = 0.6, ignore_case: bool = False) -> str:
    """``"; did you mean 'x'?"`` naming the one of ``choices`` closest to ``name`` (difflib's ratio at least
    ``cutoff``; with ``ignore_case`` compared in lower case, the choice named as spelt), or ``""`` if none is close:
    the tail of every "unknown ..." message."""
    options = list(choices)
    if ignore_case:
        folded = {c.lower(): c for c in options}
        close = [folded[c] for c in difflib.get_close_matches(str(name).lower(), list(folded), n=1, cutoff=cutoff)]
    else:
        close = difflib.get_close_matches(str(name), options, n=1, cutoff=cutoff)
    return f"; did you mean {close[0]!r}?" if close else ""


def unit(name: str) -> str:
    """The unit a field's name ends with: ``rtt_ms`` -> ``ms``, ``bandwidth_bps`` -> ``bit/s``; ``""`` if none."""
    return next((u for suffix, u in UNITS.items() if name.endswith(suffix)), "")


def _is_model(annotation: Any) -> bool:
    return isinstance(annotation, type) and issubclass(annotation, BaseModel)


def _unwrap(annotation: Any) -> tuple[Any, list[Any], bool]:
    """``(type, constraints, nullable)`` of an annotation: ``Annotated`` and ``X | None`` looked through."""
    metadata: list[Any] = []
    nullable = False
    while True:
        origin = get_origin(annotation)
        if origin is Annotated:
            annotation, *extra = get_args(annotation)
            for m in extra:
                metadata.extend(m.metadata if isinstance(m, FieldInfo) else [m])
        elif origin in (Union, types.UnionType):
            args = get_args(annotation)
            rest = [a for a in args if a is not type(None)]
            if len(rest) != 1:
                return annotation, metadata, nullable
            annotation, nullable = rest[0], nullable or len(rest) != len(args)
        else:
            return annotation, metadata, nullable


def _make_spec(
    annotation: Any, metadata: Sequence[Any], nullable: bool, name: str, description: str
) -> FieldSpec | None:
    common: dict[str, Any] = {"name": name, "unit": unit(name), "description": description, "nullable": nullable}
    if get_origin(annotation) is Literal:
        return FieldSpec("choice", choices=get_args(annotation), **common)
    if annotation is bool:
        return FieldSpec("boolean", **common)
    if _is_model(annotation):
        return FieldSpec("object", fields=tuple(annotation.model_fields), **common)
    if get_origin(annotation) is list:
        (item,) = get_args(annotation) or (Any,)
        item_type, item_metadata, item_nullable = _unwrap(item)
        return FieldSpec(
            "array",
            min_items=next((m.min_length for m in metadata if getattr(m, "min_length", None) is not None), None),
            max_items=next((m.max_length for m in metadata if getattr(m, "max_length", None) is not None), None),
            item=_make_spec(item_type, item_metadata, item_nullable, name, ""),
            **common,
        )
    if annotation in (int, float):
        low: float | None = None
        high: float | None = None
        low_inclusive = high_inclusive = True
        for m in metadata:  # annotated_types' Ge, Gt, Le, Lt and Interval
            if getattr(m, "ge", None) is not None:
                low, low_inclusive = m.ge, True
            if getattr(m, "gt", None) is not None:
                low, low_inclusive = m.gt, False
            if getattr(m, "le", None) is not None:
                high, high_inclusive = m.le, True
            if getattr(m, "lt", None) is not None:
                high, high_inclusive = m.lt, False
        kind: Kind = "integer" if annotation is int else "number"
        return FieldSpec(kind, low=low, high=high, low_inclusive=low_inclusive, high_inclusive=high_inclusive, **common)
    return None


def spec(loc: Loc, root: type[BaseModel] = Scenario) -> FieldSpec | None:
    """What the field at ``loc`` (a pydantic error location in a :class:`Scenario`, or in ``root``) accepts.

    Walks ``Scenario.model_fields`` and the nested models' fields; a list index descends into the
    item type. ``None`` if the location names no known field (or one of a type not described).
    """
    annotation: Any = root
    metadata: list[Any] = []
    nullable = False
    name = description = ""
    for part in loc:
        if isinstance(part, int):
            if get_origin(annotation) is not list:
                return None
            (item,) = get_args(annotation) or (Any,)
            annotation, metadata, nullable = _unwrap(item)
            description = ""
            continue
        if not _is_model(annotation) or part not in annotation.model_fields:
            return None
        info = annotation.model_fields[part]
        annotation, extra, nullable = _unwrap(info.annotation)
        metadata = [*info.metadata, *extra]
        name, description = part, info.description or ""
    return _make_spec(annotation, metadata, nullable, name, description)


def _model_at(loc: Loc, root: type[BaseModel] = Scenario) -> type[BaseModel] | None:
    """The pydantic model at ``loc`` in a :class:`Scenario` or ``root`` (``()``: ``root`` itself), if it is one."""
    annotation: Any = root
    for part in loc:
        if isinstance(part, int) or not _is_model(annotation) or part not in annotation.model_fields:
            return None
        annotation, _, _ = _unwrap(annotation.model_fields[part].annotation)
    return annotation if _is_model(annotation) else None


# --- in words -------------------------------------------------------------------------------------


def _number(x: float) -> str:
    """A bound for people: ``10000`` -> ``10,000``, ``100e9`` -> ``100,000,000,000``, ``0.5`` -> ``0.5``."""
    return f"{int(x):,}" if float(x).is_integer() else f"{x:,}"


def _either(alternatives: Sequence[str]) -> str:
    """``["a", "b", "c"]`` -> ``a, b or c``."""
    if len(alternatives) <= 1:
        return "".join(alternatives)
    return f"{', '.join(alternatives[:-1])} or {alternatives[-1]}"


def _range(s: FieldSpec) -> str:
    """``from 0 to 10,000``, ``at least 1``, ``more than 0 and at most 5``; ``""`` without bounds."""
    if s.low is not None and s.high is not None and s.low_inclusive and s.high_inclusive:
        return f"from {_number(s.low)} to {_number(s.high)}"
    parts: list[str] = []
    if s.low is not None:
        parts.append(f"{'at least' if s.low_inclusive else 'more than'} {_number(s.low)}")
    if s.high is not None:
        parts.append(f"{'at most' if s.high_inclusive else 'less than'} {_number(s.high)}")
    return " and ".join(parts)


def _alternatives(s: FieldSpec, with_null: bool) -> list[str]:
    """The allowed values of ``s`` in words, one alternative each (joined by :func:`_either`)."""
    out: list[str]
    if s.kind == "choice":
        out = [repr(c) for c in s.choices]
    elif s.kind == "boolean":
        out = ["true", "false"]
    elif s.kind == "object":
        out = [f"an object with the fields {', '.join(s.fields)}"]
    elif s.kind == "array":
        low, high = s.min_items, s.max_items
        if low is not None and high is not None:
            size = f"{_number(low)} to {_number(high)} items"
        elif high is not None:
            size = f"at most {_number(high)} items"
        elif low is not None:
            size = f"at least {_number(low)} items"
        else:
            size = "items"
        each = f", each {_either(_alternatives(s.item, with_null))}" if s.item is not None else ""
        out = [f"an array of {size}{each}"]
    else:
        what = "a whole number" if s.kind == "integer" else "a number"
        bounds = _range(s)
        if bounds:
            out = [f"{what} {bounds}" + (f" {s.unit}" if s.unit else "")]
        else:
            out = [f"{what} of {s.unit}" if s.unit else what]
    if not (s.nullable and with_null):
        return out
    # "null or an array of ..., each X": "an array of ..., each X or null" would read as items that may be null.
    return ["null", *out] if s.kind == "array" else [*out, "null"]


def allowed(loc: Loc, *, with_null: bool = True, root: type[BaseModel] = Scenario) -> str | None:
    """What the field at ``loc`` in a :class:`Scenario` allows, in words; ``None`` if ``loc`` names no known field.

    ``a number from 0 to 10,000 ms``, ``a whole number from 1 to 100 segments or null``, ``true or
    false``, ``'bsd' or 'ns3'``, ``an array of 1 to 7 items, each 'http10', ... or 'h3'``.
    ``with_null=False`` leaves out ``null`` (for inputs that cannot give it, like a web form).
    """
    s = spec(loc, root)
    return None if s is None else words(s, with_null=with_null)


def words(s: FieldSpec, *, with_null: bool = True) -> str:
    """What ``s`` accepts, in words (see :func:`allowed`)."""
    return _either(_alternatives(s, with_null))


def field_path(loc: Loc) -> str:
    """``("network", "rtt_ms")`` -> ``network.rtt_ms``; ``("page", "object_bytes", 1)`` -> ``page.object_bytes[1]``."""
    out = ""
    for part in loc:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out


# --- validation errors ----------------------------------------------------------------------------


def _jsonable(value: Any) -> bool:
    try:
        json.dumps(value, allow_nan=False)
    except (TypeError, ValueError):
        return False
    return True


def problems(exc: ValidationError, at: Loc = (), root: type[BaseModel] = Scenario) -> list[Problem]:
    """The errors of validating a :class:`Scenario`, one :class:`Problem` each, in pydantic's order.

    ``at`` is where the scenario sits in a larger document (``(2,)``: item 2 of a batch); it goes
    before every path: ``[2].network.rtt_ms``. ``root``: the model validated, if not a :class:`Scenario` (one of its
    sections: ``Network``, with ``at=("network",)`` for the paths a scenario gives).
    """
    out: list[Problem] = []
    for err in exc.errors(include_url=False):
        loc = tuple(err["loc"])
        full = (*at, *loc)
        kind = str(err["type"])
        given = err.get("input")
        message = str(err["msg"]).removeprefix("Value error, ")
        common: dict[str, Any] = {
            "path": field_path(full),
            "message": message,
            "value": given if _jsonable(given) else None,
            "type": kind,
            "loc": full,
        }
        if kind in UNKNOWN_FIELD:
            parent = _model_at(loc[:-1], root)
            fields = list(parent.model_fields) if parent is not None else []
            close = difflib.get_close_matches(str(loc[-1]), fields, n=1)
            out.append(Problem(allowed=", ".join(fields) or None, suggestion=close[0] if close else None, **common))
            continue
        if kind == "value_error":  # a model validator's: its message says it all
            out.append(Problem(**common))
            continue
        got = None
        if not isinstance(given, dict | list):
            got = json.dumps(given) if _jsonable(given) else repr(given)
        out.append(Problem(allowed=allowed(loc, root=root), got=got, **common))
    return out


def _places() -> dict[type[BaseModel], tuple[str, ...]]:
    """Where each model of the schema sits in a :class:`Scenario` (``Network``: ``("network",)``), for the ones that
    sit in one place only (a split proxy's ``Leg`` sits in two)."""
    found: dict[type[BaseModel], list[tuple[str, ...]]] = {Scenario: [()]}
    todo: list[tuple[type[BaseModel], tuple[str, ...]]] = [(Scenario, ())]
    while todo:
        model, at = todo.pop()
        for name, info in model.model_fields.items():
            annotation, _, _ = _unwrap(info.annotation)
            if _is_model(annotation):
                found.setdefault(annotation, []).append((*at, name))
                todo.append((annotation, (*at, name)))
    return {model: where[0] for model, where in found.items() if len(where) == 1}


#: Each schema model's place in a scenario, where it has one (see :func:`_places`).
PLACES: dict[type[BaseModel], tuple[str, ...]] = _places()


class ScenarioError(ValidationError):
    """A scenario (or one of its sections) that is not valid, as the schema raises it to Python callers.

    A pydantic ``ValidationError`` (``errors()``, ``error_count()`` as pydantic gives them; a ``ValueError`` too)
    whose message is the front ends' words, one line per problem (:attr:`Problem.text`): the field's path in the
    scenario, pydantic's message, the value given and what the field allows, and for an unknown field the fields
    allowed there and the closest one::

        network.rtt_ms: Input should be greater than or equal to 0 (got -1); allowed: a number from 0 to 10,000 ms
        network.rtt: unknown field (Extra inputs are not permitted); allowed fields: rtt_ms, ...; did you mean 'rtt_ms'?

    :attr:`problems` holds them as :class:`Problem` values. An error of a section validated or assigned on its own
    (``s.network.rtt_ms = -1``) is named by the section's path in a scenario (``network.rtt_ms``).
    """

    problems: list[Problem]

    @classmethod
    def of(cls, exc: ValidationError, model: type[BaseModel] = Scenario) -> ScenarioError:
        """``exc``, raised validating ``model`` (the scenario or one of its sections), as a :class:`ScenarioError`."""
        details = exc.errors(include_url=False)
        line_errors = [
            InitErrorDetails(type=d["type"], loc=d["loc"], input=d["input"], ctx=d["ctx"])
            if "ctx" in d
            else InitErrorDetails(type=d["type"], loc=d["loc"], input=d["input"])
            for d in details
        ]
        out = cls.from_exception_data(exc.title, line_errors)
        out.problems = problems(exc, at=PLACES.get(model, ()), root=model)
        return out

    def __str__(self) -> str:
        return "\n".join(p.text for p in self.problems)


#: Whole floats up to this size stand for integers (2**53: beyond it a float holds no exact integer).
WHOLE_FLOAT_MAX = 2**53


def whole_number(x: float) -> int | float:
    """``1460.0`` -> ``1460``: a float without a fraction as the integer it is (JSON has one number type, and JSON
    Schema's ``integer`` is any number with a zero fractional part); other floats unchanged."""
    return int(x) if x.is_integer() and abs(x) <= WHOLE_FLOAT_MAX else x


@functools.lru_cache(maxsize=1024)
def _field_spec(loc: tuple[str, ...]) -> FieldSpec | None:
    """:func:`spec` of a location of field names, remembered: :func:`whole_numbers` asks it for every field of every
    document it sees (without it, most of a validation's time: 0.25 of 0.28 ms a validation-grid scenario). Bounded,
    since a document's unknown fields are asked about too (they get ``None``, and are refused by the validation
    after)."""
    return spec(loc)


def _whole_at(value: Any, s: FieldSpec | None, loc: tuple[str, ...]) -> Any:
    if s is None or isinstance(value, bool):
        return value
    if s.kind == "integer" and isinstance(value, float):
        return whole_number(value)
    if s.kind == "array" and isinstance(value, list) and s.item is not None and s.item.kind == "integer":
        return [whole_number(v) if isinstance(v, float) else v for v in value]
    if s.kind == "object" and isinstance(value, dict):
        return whole_numbers(value, loc)
    return value


def whole_numbers(doc: Any, loc: tuple[str, ...] = ()) -> Any:
    """A scenario document (or the part of one at ``loc``) with every whole float at a field that takes an integer
    as that integer (``"mss_bytes": 1460.0`` -> ``1460``); nothing else changes (``"70"`` and ``true`` stay what
    they are, and are refused). Walks only the schema's own fields, so it goes no deeper than they nest."""
    if not isinstance(doc, dict):
        return doc
    return {k: _whole_at(v, _field_spec((*loc, k)), (*loc, k)) if isinstance(k, str) else v for k, v in doc.items()}


def validate_scenario(doc: Any) -> Scenario:
    """The scenario of a parsed JSON document, validated as every front end does (the API, the command line):
    strictly, with JSON's types (``"70"`` is not a number, ``true`` is not 1), where a whole number may be
    written as a float (``1460.0``: :func:`whole_numbers`); :class:`ValidationError` otherwise (see
    :func:`problems`)."""
    return Scenario.model_validate(whole_numbers(doc), strict=True)
