"""A HAR's what-ifs read from a query, a HAR refusal as a problem, and a scenario as the calculator's address: shared
by the API (``POST /api/v1/har``) and the calculator's upload (``POST /har``). The HAR itself is read by the model
(:mod:`latency_lab.scenario.har`); nothing here parses it.
"""

from __future__ import annotations

import math
from typing import Any

from pydantic import ValidationError
from werkzeug.datastructures import MultiDict

from latency_lab.scenario.errors import Problem, problems
from latency_lab.scenario.har import HarError, WhatIf
from latency_lab_web.web.form import query_text
from latency_lab_web.web.problems import ApiError, invalid
from latency_lab_web.web.query import OBJECT_LISTS, object_list_pairs, repeated, unknown

#: Bytes of an upload's form beside the HAR itself (the calculator's multipart framing).
UPLOAD_FRAMING_BYTES = 64 * 1024
#: The paths whose bodies are HARs, held to ``MAX_HAR_BYTES`` (and the upload's framing), not ``API_MAX_BODY_BYTES``:
#: the API's and the calculator's upload (the server bounds a chunked body by it: latency_lab_web/serving.py).
HAR_PATHS = ("/api/v1/har", "/har")

#: The what-if query parameters: WhatIf's fields. Lists are comma-separated, booleans true or false.
WHAT_IF_PARAMS = tuple(WhatIf.model_fields)
_LISTS = ("protocols", "remove_origins", "origin_rtts")
_NUMBERS = ("rtt_ms", "bandwidth_bps", "loss_rate")


def what_if_of(args: MultiDict[str, str]) -> WhatIf:
    """The what-ifs given as query parameters; :class:`ApiError` (422) naming each bad one."""
    found: list[Problem] = []
    doc: dict[str, Any] = {}
    for name in args:
        values = args.getlist(name)
        if name not in WHAT_IF_PARAMS:
            found.append(unknown(name, WHAT_IF_PARAMS))
            continue
        if len(values) > 1:
            found.append(repeated(name, values))
            continue
        text = values[0]
        if name in _LISTS:
            doc[name] = [t.strip() for t in text.split(",") if t.strip()]
        elif name in _NUMBERS:
            try:
                number = float(text)
            except ValueError:
                number = math.nan
            doc[name] = number if math.isfinite(number) else text  # a string: refused by the model as not a number
        elif name in ("preconnect", "early_hints", "origin_paths"):
            doc[name] = {"true": True, "false": False}.get(text, text)
    if found:
        raise invalid(found)
    try:
        return WhatIf.model_validate(doc)
    except ValidationError as exc:
        raise invalid(problems(exc, root=WhatIf)) from None


#: The API's answer for each kind of HAR refusal.
KIND_OF = {
    "not_json": "invalid-json",
    "too_large": "body-too-large",
    "limit": "limit-exceeded",
    "invalid": "invalid-request",
}


def har_problem(exc: HarError) -> ApiError:
    """A refused HAR as a problem document: 400 not JSON, 413 too large, 422 over a limit or invalid."""
    kind = KIND_OF[exc.kind]
    if kind == "invalid-request":
        return invalid(exc.problems)
    if kind == "limit-exceeded":
        return invalid(exc.problems, exc.limit)
    detail = "; ".join(p.text for p in exc.problems[:10])
    return ApiError(kind, detail, exc.problems, exc.limit)


def calculator_query(document: dict[str, Any]) -> list[tuple[str, str]]:
    """A scenario document as the calculator's query: one parameter per field given, by its dotted path; a list of
    objects (``page.origins``) one parameter per field of its objects (:func:`latency_lab_web.web.query.object_list_pairs`)."""
    pairs: list[tuple[str, str]] = []

    def walk(value: Any, path: str) -> None:
        if path in OBJECT_LISTS and isinstance(value, list):
            pairs.extend((param, query_text(values)) for param, values in object_list_pairs(path, value))
        elif isinstance(value, dict):
            for key, inner in value.items():
                walk(inner, f"{path}.{key}" if path else key)
        else:
            pairs.append((path, query_text(value)))

    walk(document, "")
    return pairs
