"""JSON input read the same way by every front end (the API's bodies, the command line's files and lines).

:func:`loads_strict` refuses, each as a :class:`~latency_lab.scenario.errors.Problem` naming its path: nesting more
than :data:`MAX_JSON_DEPTH` deep (checked on the text, without recursion, before anything parses, merges,
validates or serializes it), repeated keys in an object, ``NaN`` or ``Infinity``, an integer too long to read.
:func:`check_depth` checks the nesting of a document already parsed.

Pure: the standard library and :mod:`latency_lab.scenario.errors` only.
"""

from __future__ import annotations

import collections
import json
import re
from collections.abc import Callable, Sequence
from typing import Any

from latency_lab.scenario.errors import Problem, field_path
from latency_lab.scenario.limits import Limit

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
#: A JSON string or a bracket, for a scan of the nesting (the HAR import's: :mod:`latency_lab.scenario.har`).
BRACKET_TOKEN = _BRACKET
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


def location_in_text(text: str, end: int) -> tuple[str | int, ...]:
    """Where in the JSON ``text`` the array or object opened at ``end`` is: the keys and indexes around it."""
    return _location(text, end)


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
