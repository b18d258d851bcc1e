"""A scenario from a flat query string: ``GET /api/v1/predict?network.rtt_ms=70&tcp.nagle=false``.

The syntax (documented in the OpenAPI document and on the docs page):

- a scenario field is named by its dotted path: ``network.rtt_ms=70``, ``page.object_count=10``,
  ``proxy.client_leg.delay_ms=5`` (a field of a nested object: each of its fields is a parameter);
- a list is comma-separated: ``protocols=http10,persistent``, ``page.object_bytes=2544,1000``
  (an empty value is the empty list: ``page.object_bytes=``);
- a boolean is ``true`` or ``false``; a number is written as in JSON (``1e6`` works; a whole number may be
  written ``1460.0``, as JSON Schema's ``integer`` allows);
- a field left out keeps its default (``null`` cannot be given: leave the field out);
- a list of objects (``page.origins``) is written one parameter per field of its objects, each a comma-separated
  list with one value per object, in order: ``page.origins.dns_ms=50,0&page.origins.preconnected=false,true`` is
  two origins, the first with a 50 ms lookup, the second preconnected. The parameters given must give the same
  number of values (a field left out takes its default in every object); together they replace the base's list
  (a preset's); ``page.origins.dns_ms=`` is no origin; an empty value in a list of a field that may be null
  (``page.origins.rtt_ms=20,``) is that object's default (the second origin on the network's path);
- each parameter at most once; unknown parameters are rejected by name.

Values are converted by the field's type as JSON would give them; a value that does not read as its
type is passed on as a string, so the scenario's own validation rejects it with the field's path and
allowed range (``network.rtt_ms: Input should be a valid number (got "fast"); allowed: ...``).
"""

from __future__ import annotations

import difflib
import re
import typing
from collections.abc import Iterable, Mapping
from typing import Any

from pydantic import BaseModel
from werkzeug.datastructures import MultiDict

from latency_lab import Scenario
from latency_lab.scenario.errors import FieldSpec, Problem, spec, whole_number
from latency_lab.scenario.schema import MAX_ORIGINS, Origin

_NUMBER = re.compile(r"-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?")
_INTEGER = re.compile(r"-?(?:0|[1-9]\d*)")


def _objects_list(annotation: Any) -> bool:
    """Whether a field's type is a list of objects (``list[Origin]``, optionally ``| None``)."""
    args = typing.get_args(annotation)
    if typing.get_origin(annotation) is list:
        return bool(args) and isinstance(args[0], type) and issubclass(args[0], BaseModel)
    return any(_objects_list(a) for a in args if a is not type(None))


#: The list of objects the query writes one parameter per field (:data:`OBJECT_LIST_PARAMS`): its path and its item.
OBJECT_LISTS: dict[str, type[BaseModel]] = {"page.origins": Origin}
#: An object of each such list in words, and the most the list holds.
_ONE = {"page.origins": ("origin", MAX_ORIGINS)}
#: Each field of those lists' objects as its query parameter: ``page.origins.dns_ms`` -> (``page.origins``,
#: ``dns_ms``).
OBJECT_LIST_PARAMS: dict[str, tuple[str, str]] = {
    f"{path}.{name}": (path, name) for path, model in OBJECT_LISTS.items() for name in model.model_fields
}
#: The type of a problem where those parameters give different numbers of values (a cross-field rule).
LIST_LENGTHS = "object_list_lengths"


def _list_field_spec(path: str, name: str) -> FieldSpec:
    """``page.origins.dns_ms``: a comma-separated list, one value per origin, each as ``Origin.dns_ms`` takes it."""
    item = spec((*path.split("."), 0, name))
    assert item is not None, (path, name)
    one, most = _ONE[path]
    return FieldSpec(
        "array",
        name=name,
        unit=item.unit,
        description=f"One value per {one} of {path}, {one} 1 first (every {path} parameter given gives as many "
        f"values): {item.description}",
        max_items=most,
        item=item,
    )


def _scenario_params() -> dict[str, FieldSpec]:
    out: dict[str, FieldSpec] = {}

    def walk(model: type[BaseModel], loc: tuple[str, ...]) -> None:
        for name, info in model.model_fields.items():
            annotation = info.annotation
            here = (*loc, name)
            if isinstance(annotation, type) and issubclass(annotation, BaseModel):
                walk(annotation, here)  # a section, or an object inside one (proxy.client_leg): its fields
                continue
            if _objects_list(annotation):  # page.origins: a parameter per field of its objects, each a list
                joined = ".".join(here)
                assert joined in OBJECT_LISTS, f"{joined}: a list of objects with no query syntax"
                for param, (path, name) in OBJECT_LIST_PARAMS.items():
                    if path == joined:
                        out[param] = _list_field_spec(path, name)
                continue
            found = spec(here)
            if found is not None:
                out[".".join(here)] = found

    walk(Scenario, ())
    return out


#: The scenario's query parameters: dotted path -> what the field accepts.
SCENARIO_PARAMS: dict[str, FieldSpec] = _scenario_params()


def convert(text: str, s: FieldSpec) -> Any:
    """A query value as the JSON value it stands for, by the field's type; unreadable values stay strings."""
    if s.kind == "array":
        if text == "":
            return []
        item = s.item
        if item is not None and item.nullable:  # page.origins.rtt_ms=20,: an empty value is that object's default
            return [None if part == "" else convert(part, item) for part in text.split(",")]
        return [convert(part, item) if item is not None else part for part in text.split(",")]
    if s.kind == "number" and _NUMBER.fullmatch(text):
        return float(text)
    if s.kind == "integer" and _INTEGER.fullmatch(text):
        try:
            return int(text)
        except ValueError:  # more digits than Python converts: the range check can't pass anyway
            return text
    if s.kind == "integer" and _NUMBER.fullmatch(text):  # 1460.0 or 1e3: whole numbers written as JSON may be
        return whole_number(float(text))
    if s.kind == "boolean" and text in ("true", "false"):
        return text == "true"
    return text


def unknown(name: str, known: Iterable[str]) -> Problem:
    """The problem of an unknown query parameter, naming the known ones and the closest."""
    names = list(known)
    close = difflib.get_close_matches(name, names, n=1)
    return Problem(
        path=name,
        message="unknown query parameter",
        allowed=", ".join(names),
        type="extra_forbidden",
        loc=(name,),
        suggestion=close[0] if close else None,
    )


def repeated(name: str, values: list[str]) -> Problem:
    """The problem of a parameter given more than once."""
    return Problem(
        path=name,
        message=f"given {len(values)} times; give it once (a list is comma-separated)",
        type="repeated_parameter",
        loc=(name,),
        value=values[:10],
    )


def scenario_document(args: MultiDict[str, str], options: Iterable[str]) -> tuple[dict[str, Any], list[Problem]]:
    """The scenario document of the query's scenario parameters, and the problems of the query.

    ``options`` are the endpoint's other parameters (``format``, ``preset``, ...): they are read
    elsewhere and only checked here for repeats.
    """
    opts = set(options)
    found: list[Problem] = []
    converted: dict[str, Any] = {}
    for name in args:
        values = args.getlist(name)
        if len(values) > 1:
            found.append(repeated(name, values))
            continue
        if name in opts:
            continue
        s = SCENARIO_PARAMS.get(name)
        if s is None:
            found.append(unknown(name, [*SCENARIO_PARAMS, *sorted(opts)]))
            continue
        converted[name] = convert(values[0], s)
    doc, placed = place_values(converted)
    return doc, found + placed


def place_values(converted: Mapping[str, Any]) -> tuple[dict[str, Any], list[Problem]]:
    """The scenario document of scenario parameters already read (:func:`convert`), and the problems of lists of
    objects given different numbers of values; :func:`scenario_document`'s second half (the canonical address tries
    the given parameters without each in turn, each read once: ``latency_lab_web.web.form.canonical``). The values are
    placed, not copied."""
    doc: dict[str, Any] = {}
    found: list[Problem] = []
    lists: dict[str, dict[str, Any]] = {}  # page.origins -> its parameters' values (each a list, or unreadable text)
    for name, value in converted.items():
        if name in OBJECT_LIST_PARAMS:
            lists.setdefault(OBJECT_LIST_PARAMS[name][0], {})[name] = value
            continue
        *sections, field = name.split(".")
        place = doc
        for section in sections:
            place = place.setdefault(section, {})
        place[field] = value
    for path, given in lists.items():
        found.extend(_place_objects(doc, path, given))
    return doc, found


def _place_objects(doc: dict[str, Any], path: str, given: dict[str, list[Any]]) -> list[Problem]:
    """The objects of the list at ``path`` (``page.origins``) from its parameters' lists, zipped, put in ``doc``;
    the problem of parameters giving different numbers of values (nothing put) if they do."""
    counts = {param: len(values) for param, values in given.items()}
    if len(set(counts.values())) > 1:
        first, *rest = counts
        return [
            Problem(
                path=param,
                message=f"gives {_values(counts[param])} and {first} gives {counts[first]}: each {path} parameter "
                f"gives one value per {_ONE[path][0]}, in the same order",
                allowed=f"{counts[first]} comma-separated values, as {first} gives",
                type=LIST_LENGTHS,
                loc=(param,),
            )
            for param in rest
            if counts[param] != counts[first]
        ]
    n = next(iter(counts.values()))
    objects: list[dict[str, Any]] = [{} for _ in range(n)]
    for param, values in given.items():
        name = OBJECT_LIST_PARAMS[param][1]
        for obj, value in zip(objects, values, strict=True):
            obj[name] = value
    *sections, field = path.split(".")
    place = doc
    for section in sections:
        place = place.setdefault(section, {})
    place[field] = objects
    return []


def _values(n: int) -> str:
    return f"{n} value" if n == 1 else f"{n} values"


def object_list_pairs(path: str, objects: list[Any]) -> list[tuple[str, list[Any]]]:
    """The query parameters giving the list of objects at ``path`` (dicts, or models), each with its values: the
    fields some object gives another value than the default; the first field alone where none does (the parameter
    gives the number of objects). ``[]`` for no objects (the list left out: the default is none)."""
    model = OBJECT_LISTS[path]
    rows = [
        o.model_dump(mode="json") if isinstance(o, BaseModel) else model(**o).model_dump(mode="json") for o in objects
    ]
    if not rows:
        return []
    default = model().model_dump(mode="json")
    names = [name for name in model.model_fields if any(row[name] != default[name] for row in rows)]
    return [(f"{path}.{name}", [row[name] for row in rows]) for name in names or list(model.model_fields)[:1]]


def only_options(args: MultiDict[str, str], options: Iterable[str]) -> list[Problem]:
    """The problems of a query that may hold only ``options`` (a POST's scenario is in its body)."""
    opts = sorted(options)
    found: list[Problem] = []
    for name in args:
        values = args.getlist(name)
        if len(values) > 1:
            found.append(repeated(name, values))
        elif name not in opts:
            p = unknown(name, opts)
            if name in SCENARIO_PARAMS:
                p = Problem(
                    path=name,
                    message="scenario fields go in the JSON body of a POST (or use GET)",
                    allowed=p.allowed,
                    type="extra_forbidden",
                    loc=(name,),
                )
            found.append(p)
    return found
