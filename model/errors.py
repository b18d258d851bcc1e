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
- :func:`loads_strict` reads JSON input the same way for every front end: nesting at most
  :data:`MAX_JSON_DEPTH` deep (checked on the text, without recursion, before anything parses,
  merges, validates or serializes it), no repeated keys in an object, no ``NaN`` or ``Infinity``,
  no integer too long to read; each problem is a :class:`Problem` naming its path.
  :func:`check_depth` checks the nesting of a document already parsed.

Pure: pydantic and the schema only (no web framework, no I/O).
"""

from __future__ import annotations

import collections
import difflib
import json
import re
import types
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Annotated, Any, Literal, Union, get_args, get_origin

from pydantic import BaseModel, ValidationError
from pydantic.fields import FieldInfo

from model.limits import Limit
from model.scenario import Scenario

#: Units named by a field's suffix.
UNITS: dict[str, str] = {
    "_ms": "ms",
    "_bps": "bit/s",
    "_bytes": "bytes",
    "_segments": "segments",
    "_rate": "per packet",  # network.loss_rate: a probability per packet
}

Loc = Sequence[str | int]
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


@dataclass(frozen=True, slots=True)
class Problem:
    """One validation error of a scenario, as data (for an API) and as one line of text (for people).

    For an unknown field (``type == "extra_forbidden"``) ``allowed`` lists the field names allowed
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
        if self.type == "extra_forbidden":
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


def spec(loc: Loc) -> FieldSpec | None:
    """What the field at ``loc`` (a pydantic error location in a :class:`Scenario`) accepts.

    Walks ``Scenario.model_fields`` and the nested models' fields; a list index descends into the
    item type. ``None`` if the location names no known field (or one of a type not described).
    """
    annotation: Any = Scenario
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


def _model_at(loc: Loc) -> type[BaseModel] | None:
    """The pydantic model at ``loc`` in a :class:`Scenario` (``()``: the scenario itself), if it is one."""
    annotation: Any = Scenario
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


def allowed(loc: Loc, *, with_null: bool = True) -> str | None:
    """What the field at ``loc`` in a :class:`Scenario` allows, in words; ``None`` if ``loc`` names no known field.

    ``a number from 0 to 10,000 ms``, ``a whole number from 1 to 100 segments or null``, ``true or
    false``, ``'bsd' or 'ns3'``, ``an array of 1 to 7 items, each 'http10', ... or 'h3'``.
    ``with_null=False`` leaves out ``null`` (for inputs that cannot give it, like a web form).
    """
    s = spec(loc)
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


def problems(exc: ValidationError, at: Loc = ()) -> list[Problem]:
    """The errors of validating a :class:`Scenario`, one :class:`Problem` each, in pydantic's order.

    ``at`` is where the scenario sits in a larger document (``(2,)``: item 2 of a batch); it goes
    before every path: ``[2].network.rtt_ms``.
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
        if kind == "extra_forbidden":
            parent = _model_at(loc[:-1])
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
        out.append(Problem(allowed=allowed(loc), got=got, **common))
    return out


#: Whole floats up to this size stand for integers (2**53: beyond it a float holds no exact integer).
WHOLE_FLOAT_MAX = 2**53


def whole_number(x: float) -> int | float:
    """``1460.0`` -> ``1460``: a float without a fraction as the integer it is (JSON has one number type, and JSON
    Schema's ``integer`` is any number with a zero fractional part); other floats unchanged."""
    return int(x) if x.is_integer() and abs(x) <= WHOLE_FLOAT_MAX else x


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
    return {k: _whole_at(v, spec((*loc, k)), (*loc, k)) if isinstance(k, str) else v for k, v in doc.items()}


def validate_scenario(doc: Any) -> Scenario:
    """The scenario of a parsed JSON document, validated as every front end does (the API, the command line):
    strictly, with JSON's types (``"70"`` is not a number, ``true`` is not 1), where a whole number may be
    written as a float (``1460.0``: :func:`whole_numbers`); :class:`ValidationError` otherwise (see
    :func:`problems`)."""
    return Scenario.model_validate(whole_numbers(doc), strict=True)


# --- strict JSON input ------------------------------------------------------------------------------------

#: Deepest nesting of arrays and objects in JSON input (an API body, a command-line file or line). A
#: scenario nests three levels, a sweep request four. Deeper input is refused from its text, before it is
#: parsed, merged, validated or serialized (the json module, pydantic and copying all recurse).
MAX_JSON_DEPTH = 32
#: The documented name of :data:`MAX_JSON_DEPTH`.
MAX_JSON_DEPTH_NAME = "max_json_depth"

#: A JSON string (also one missing its closing quote: matched to the end, so a scan never starts over inside
#: it) or a structural character. A linear scan: the string's body is the "unrolled loop" form.
_TOKEN = re.compile(r'"[^"\\]*(?:\\[\s\S][^"\\]*)*"?|[\[\]{},:]')
_BRACKET = re.compile(r'"[^"\\]*(?:\\[\s\S][^"\\]*)*"?|[\[\]{}]')
#: Most problems of one JSON input listed (the rest are counted in one more).
MAX_JSON_PROBLEMS_LISTED = 20

Describe = Callable[[tuple[str | int, ...]], str | None]


class JsonInputError(ValueError):
    """JSON input that is not strict JSON, or nests deeper than allowed: its problems (paths in the input) and,
    for the nesting, the limit (:data:`MAX_JSON_DEPTH_NAME`)."""

    def __init__(self, found: Sequence[Problem], limit: Limit | None = None) -> None:
        super().__init__("\n".join(p.text for p in found))
        self.problems = list(found)
        self.limit = limit

    @property
    def not_json(self) -> bool:
        """Whether the input is not (strict) JSON: a repeated key, ``NaN`` or ``Infinity``; otherwise it is JSON
        over the nesting limit or with an integer too long for any field."""
        return any(p.type in ("duplicate_key", "json_constant") for p in self.problems)


class _Repeated(dict[str, Any]):
    """An object given a key more than once (the last value kept, as :func:`json.loads` would): the keys repeated
    and how often each was given."""

    repeated: dict[str, int]


class _Constant:
    """``NaN``, ``Infinity`` or ``-Infinity`` where a value was: not JSON."""

    __slots__ = ("name",)

    def __init__(self, name: str) -> None:
        self.name = name


class _LongInteger:
    """An integer with more digits than Python reads (``sys.get_int_max_str_digits()``, 4,300 by default)."""

    __slots__ = ("digits",)

    def __init__(self, digits: int) -> None:
        self.digits = digits


def _depth_problem(loc: tuple[str | int, ...], deepest: int, max_depth: int) -> JsonInputError:
    path = field_path(loc)
    message = (
        f"level {max_depth + 1} of nested arrays and objects (the input nests {deepest:,} levels deep); "
        f"at most {max_depth} levels allowed ({MAX_JSON_DEPTH_NAME})"
    )
    where = Problem(path=path, message=message, type="limit_exceeded", loc=loc)
    limit = Limit(
        MAX_JSON_DEPTH_NAME,
        max_depth,
        deepest,
        f"the JSON input nests {deepest:,} levels deep (at {path or 'the top'}), "
        f"at most {max_depth} allowed ({MAX_JSON_DEPTH_NAME})",
    )
    return JsonInputError([where], limit)


def _key(token: str) -> str:
    try:
        key = json.loads(token)
    except ValueError:
        return token.strip('"')
    return key if isinstance(key, str) else token


def _location(text: str, end: int) -> tuple[str | int, ...]:
    """Where in ``text`` the array or object opened at ``end`` is: the keys and indexes of the ones around it."""
    frames: list[list[Any]] = []  # [is an object, its current key or index]
    last: str | None = None  # the string token just before, if the one before was a string
    for m in _TOKEN.finditer(text, 0, end):
        c = text[m.start()]
        if c == '"':
            last = m.group()
            continue
        if c in "[{":
            frames.append([c == "{", None if c == "{" else 0])
        elif c in "]}":
            if frames:
                frames.pop()
        elif c == "," and frames:
            top = frames[-1]
            top[1] = None if top[0] else top[1] + 1
        elif c == ":" and frames and frames[-1][0] and last is not None:
            frames[-1][1] = _key(last)
        last = None
    return tuple("?" if key is None else key for _, key in frames)


def check_depth_of_text(text: str, max_depth: int = MAX_JSON_DEPTH) -> None:
    """:class:`JsonInputError` naming the limit and the path if the JSON ``text`` nests arrays and objects more than
    ``max_depth`` deep. A linear scan of the text (strings skipped), without recursion and without parsing it."""
    if text.count("[") + text.count("{") <= max_depth:
        return
    depth = deepest = 0
    first = -1
    for m in _BRACKET.finditer(text):
        c = text[m.start()]
        if c == "[" or c == "{":
            depth += 1
            if depth > deepest:
                deepest = depth
                if depth > max_depth and first < 0:
                    first = m.start()
        elif c == "]" or c == "}":
            depth -= 1
    if first >= 0:
        raise _depth_problem(_location(text, first), deepest, max_depth)


def check_depth(doc: Any, max_depth: int = MAX_JSON_DEPTH) -> None:
    """:class:`JsonInputError` naming the limit and the path if the parsed document ``doc`` nests lists and dicts
    more than ``max_depth`` deep (a dict or list is 1 level). Without recursion."""
    deepest = 0
    seen: set[int] = set()
    stack: list[tuple[Any, int]] = [(doc, 1)]
    while stack:
        value, depth = stack.pop()
        if not isinstance(value, dict | list) or id(value) in seen:
            continue
        seen.add(id(value))
        deepest = max(deepest, depth)
        stack.extend((v, depth + 1) for v in (value.values() if isinstance(value, dict) else value))
    if deepest <= max_depth:
        return
    # the first place (in document order) past the limit: walked again, no deeper than that
    found: list[tuple[Any, tuple[str | int, ...]]] = [(doc, ())]
    while found:
        value, loc = found.pop()
        if not isinstance(value, dict | list):
            continue
        if len(loc) == max_depth:
            raise _depth_problem(loc, deepest, max_depth)
        items = list(value.items() if isinstance(value, dict) else enumerate(value))
        found.extend((v, (*loc, k)) for k, v in reversed(items))
    raise AssertionError("unreachable: a level past the limit was found")  # pragma: no cover


def _digits(text: str) -> int:
    return len(text) - text.startswith("-")


def _strict_problems(doc: Any, describe: Describe | None) -> list[Problem]:
    """The problems :func:`loads_strict`'s parse hooks left in ``doc``, in document order (without recursion)."""
    found: list[Problem] = []
    stack: list[tuple[tuple[str | int, ...], Any]] = [((), doc)]
    while stack:
        loc, value = stack.pop()
        if isinstance(value, dict):
            if isinstance(value, _Repeated):
                for key, times in value.repeated.items():
                    here = (*loc, key)
                    found.append(
                        Problem(
                            path=field_path(here),
                            message=f"the key {key!r} is given {times} times in one object; give each key once",
                            value=key,
                            type="duplicate_key",
                            loc=here,
                        )
                    )
            stack.extend(((*loc, k), v) for k, v in reversed(list(value.items())))
        elif isinstance(value, list):
            stack.extend(((*loc, i), v) for i, v in reversed(list(enumerate(value))))
        elif isinstance(value, _Constant):
            found.append(
                Problem(
                    path=field_path(loc),
                    message="Input should be a finite number; NaN, Infinity and -Infinity are not JSON",
                    allowed=describe(loc) if describe is not None else None,
                    type="json_constant",
                    loc=loc,
                    got=value.name,
                )
            )
        elif isinstance(value, _LongInteger):
            found.append(
                Problem(
                    path=field_path(loc),
                    message="a whole number too long to read, out of range",
                    allowed=describe(loc) if describe is not None else None,
                    type="too_large",
                    loc=loc,
                    got=f"an integer of {value.digits:,} digits",
                )
            )
    if len(found) > MAX_JSON_PROBLEMS_LISTED:
        rest = len(found) - MAX_JSON_PROBLEMS_LISTED
        found = found[:MAX_JSON_PROBLEMS_LISTED]
        found.append(Problem(path="", message=f"and {rest:,} more problems like these", type=found[-1].type))
    return found


def loads_strict(text: str, *, max_depth: int = MAX_JSON_DEPTH, describe: Describe | None = None) -> Any:
    """The JSON document in ``text``, read strictly: what every front end accepts as JSON input.

    - nesting deeper than ``max_depth`` arrays and objects is refused from the text, before it is parsed;
    - an object may not give a key twice (RFC 8259 leaves it to the reader; the model would see only one);
    - ``NaN``, ``Infinity`` and ``-Infinity`` are not JSON;
    - an integer longer than Python reads (4,300 digits) is out of every field's range.

    Raises :class:`json.JSONDecodeError` for a syntax error and :class:`JsonInputError` for the rest, with a
    :class:`Problem` for each at its path (``describe(loc)``, if given, says what the field there allows).
    """
    check_depth_of_text(text, max_depth)
    suspect = False  # set by the hooks: only then is the document walked for problems

    def pairs(items: list[tuple[str, Any]]) -> dict[str, Any]:
        nonlocal suspect
        out = dict(items)
        if len(out) == len(items):
            return out
        suspect = True
        repeated = _Repeated(out)
        repeated.repeated = {k: n for k, n in collections.Counter(k for k, _ in items).items() if n > 1}
        return repeated

    def constant(name: str) -> _Constant:
        nonlocal suspect
        suspect = True
        return _Constant(name)

    def integer(digits: str) -> int | _LongInteger:
        nonlocal suspect
        try:
            return int(digits)
        except ValueError:  # over sys.get_int_max_str_digits()
            suspect = True
            return _LongInteger(_digits(digits))

    doc = json.loads(text, object_pairs_hook=pairs, parse_constant=constant, parse_int=integer)
    if suspect:
        found = _strict_problems(doc, describe)
        if found:
            raise JsonInputError(found)
    return doc
