"""The API's OpenAPI 3.1 document, generated from the pydantic models, and the docs page's content.

The schemas are pydantic's JSON Schema (draft 2020-12, which OpenAPI 3.1 uses) of the model's
request models (:class:`~latency_lab.scenario.schema.Scenario`, :class:`~latency_lab.analysis.sweep.SweepRequest`) and of the
answers (:mod:`latency_lab.api_schema`); the GET query parameters are the scenario's fields, one per
dotted path (:mod:`latency_lab_web.web.query`). Nothing here is written by hand that the models already say.
"""

from __future__ import annotations

import copy
import functools
from typing import Any

from pydantic.json_schema import models_json_schema

from latency_lab import PRESETS, Scenario
from latency_lab.analysis.sweep import SWEEPABLE_FIELDS, SweepRequest, field_spec
from latency_lab.api_schema import (
    EXERCISE_PARAMS,
    EXERCISE_RULES,
    ExerciseSet,
    ExerciseTemplates,
    ExerciseVariant,
    FormulaOutput,
    PredictOutput,
    PresetDetail,
    PresetList,
    ProblemDetails,
    SweepOutput,
)
from latency_lab.scenario.har import HarDocument, WhatIf
from latency_lab.scenario.json_input import MAX_JSON_DEPTH
from latency_lab.scenario.limits import (
    LOSS_STEP_COST,
    MAX_ENGINE_STEPS,
    MAX_EXPLAIN_WORK_UNITS,
    MAX_FORMULA_WORK_UNITS,
    MAX_HAR_BYTES,
    MAX_HAR_CONTAINERS,
    MAX_HAR_DEPTH,
    MAX_HAR_ENTRIES,
    MAX_LISTED,
    MAX_PACKETS_ENGINE_STEPS,
    MAX_PACKETS_WORK_UNITS,
    MAX_SWEEP_FIXED_UNITS,
    MAX_SWEEP_POINTS,
    MAX_WORK_UNITS,
    NATIVE_LOSS_RUN_STEPS,
    NATIVE_LOSS_STEP_COST,
    OBJECT_UNITS,
    OBJECTS_PER_POINT_UNIT,
    PYTHON_STEP_COST,
    RUN_COSTS,
    RUN_FIXED_UNITS,
    SWEEP_POINT_UNITS,
    TRACED_STEP_COST,
    WINDOW_ROUND_UNITS,
)
from latency_lab.scenario.schema import ALL_PROTOCOLS, MAX_OBJECTS, MAX_SEGMENTS
from latency_lab.studies.exercises import TEMPLATES as EXERCISE_TEMPLATES
from latency_lab.studies.har import HarAnswer
from latency_lab_web.web.problems import KINDS, type_uri
from latency_lab_web.web.query import LIST_LENGTHS, OBJECT_LIST_PARAMS, SCENARIO_PARAMS

REF = "#/components/schemas/{model}"

#: Default body and query sizes (the app's config API_MAX_BODY_BYTES and API_MAX_QUERY_BYTES).
DEFAULT_MAX_BODY_BYTES = 64 * 1024
DEFAULT_MAX_QUERY_BYTES = 4096

QUERY_SYNTAX = (
    "GET takes the scenario as query parameters, one per field, named by its dotted path: "
    "`network.rtt_ms=70&tcp.nagle=false&page.object_count=10&page.object_size_bytes=2544`. "
    "Lists are comma-separated (`protocols=http10,persistent`, `page.object_bytes=2544,1000`; an empty value "
    "is the empty list); booleans are `true` or `false`; numbers are written as in JSON. A field left out keeps "
    "its default (null cannot be given). A list of objects (`page.origins`) is one parameter per field of its "
    "objects, each a list with one value per object in order: `page.origins.dns_ms=50,0&page.origins.preconnected="
    "false,true` is two origins (those given give as many values; a field left out takes its default; together they "
    "replace a preset's origins). Each parameter at most once; unknown parameters are rejected by name. "
    "POST takes the same scenario as a JSON body (Content-Type: application/json), where types are strict: "
    '`"70"` is not a number.'
)


def limits(max_body: int = DEFAULT_MAX_BODY_BYTES, max_query: int = DEFAULT_MAX_QUERY_BYTES) -> list[dict[str, Any]]:
    """The documented limits: name, value and what they bound."""
    return [
        {"name": "max_body_bytes", "value": max_body, "what": "Size of a request body (bytes); over it: 413."},
        {"name": "max_query_bytes", "value": max_query, "what": "Size of a query string (bytes); over it: 414."},
        {"name": "max_objects", "value": MAX_OBJECTS, "what": "Embedded objects of a page (the scenario's own)."},
        {
            "name": "max_segments",
            "value": MAX_SEGMENTS,
            "what": "Response segments of a page, times session page loads (the scenario's own).",
        },
        {
            "name": "max_work_units",
            "value": MAX_WORK_UNITS,
            "what": "Work of a prediction or a sweep: per protocol run (and sweep point) the response segments, plus "
            f"{WINDOW_ROUND_UNITS} a round where a response is larger than the receive window (its bytes over what "
            "tcp.receive_window_bytes holds in whole segments, rounded down: each round a stall and its events), plus, "
            "per object (the HTML counts as one), "
            + ", ".join(f"{k} for {p}" for p, k in OBJECT_UNITS.items())
            + "; times the session's page loads and, on a split-proxy path, 3 legs. A run's units are then priced by "
            "its kind: "
            + ", ".join(f"{kind} times {f} plus {c}" for kind, (f, c) in RUN_COSTS.items())
            + " (loss: network.loss_rate above 0). About 0.6 s of "
            "model time on the 2-core reference machine, whatever the kind. Checked before anything runs; over it: "
            "422 limit-exceeded.",
        },
        {
            "name": "max_packets_work_units",
            "value": MAX_PACKETS_WORK_UNITS,
            "what": "Work of a prediction with packets=true (its answer lists every packet).",
        },
        {
            "name": "max_explain_work_units",
            "value": MAX_EXPLAIN_WORK_UNITS,
            "what": "Work of the teaching panel of one protocol (/explain: the run with every packet, its stalls "
            "listed and its ladder drawn). Checked before anything runs; over it: the panel says so in words (400).",
        },
        {
            "name": "max_formula_work_units",
            "value": MAX_FORMULA_WORK_UNITS,
            "what": "Work of a formula (one protocol run on linear forms, then simplified).",
        },
        {"name": "max_sweep_points", "value": MAX_SWEEP_POINTS, "what": "Values of a sweep (values or steps)."},
        {
            "name": "max_sweep_fixed_units",
            "value": MAX_SWEEP_FIXED_UNITS,
            "what": f"Work of a sweep beside its runs' own (max_work_units): {SWEEP_POINT_UNITS} units a distinct "
            f"point plus one per {OBJECTS_PER_POINT_UNIT} objects of its page, the HTML among them (validating it), "
            f"plus {RUN_FIXED_UNITS} a protocol run at each point (starting it), about 0.6 s of CPU in all. Checked "
            "from the number of points, protocols and objects before any point is validated; over it: 422 "
            "limit-exceeded. A sweep of a field the work does not depend on (a time, a rate, a flag of the schedule) "
            "is checked against max_work_units from its first point's units times its points, and any sweep first "
            "against its objects' units alone (units per object of each protocol times the objects, a point).",
        },
        {
            "name": "max_listed",
            "value": MAX_LISTED,
            "what": "Events, and path stalls, an answer of /api/v1/predict lists per protocol result: the first in "
            "time order; events_total and path_stalls_total say how many there are in all, and page_load_ms, "
            "breakdown_ms and the counts are read off all of them. Not a refusal: a long answer is cut, not refused.",
        },
        {
            "name": "max_har_bytes",
            "value": MAX_HAR_BYTES,
            "what": "Size of a HAR (POST /api/v1/har's body, the command line's har FILE, the calculator's upload; "
            "save it without contents), in place of max_body_bytes; over it: 413.",
        },
        {
            "name": "max_har_entries",
            "value": MAX_HAR_ENTRIES,
            "what": "Entries of a HAR: the document and max_objects objects; over it: 422 limit-exceeded.",
        },
        {
            "name": "max_har_containers",
            "value": MAX_HAR_CONTAINERS,
            "what": "Objects and arrays of a HAR, counted as its { and [ characters before it is parsed (200 an "
            "entry); over it: 422 limit-exceeded.",
        },
        {
            "name": "max_har_depth",
            "value": MAX_HAR_DEPTH,
            "what": "Nesting of a HAR (Chrome's initiator stacks nest), in place of max_json_depth; checked on the "
            "text before it is parsed; over it: 422 limit-exceeded naming the path.",
        },
        {
            "name": "max_json_depth",
            "value": MAX_JSON_DEPTH,
            "what": "Nesting of a JSON body (objects and arrays), checked before anything else reads it; over it: "
            "422 limit-exceeded naming the path where it was passed.",
        },
        {
            "name": "max_engine_steps",
            "value": MAX_ENGINE_STEPS,
            "what": "Steps the model's engine may take for one request, counted while it runs: every packet and "
            "timer it schedules and every application write, in every protocol run and sweep point, in the native "
            f"(C++) engine's steps: a step of the Python engine, which runs the formulas, counts {PYTHON_STEP_COST} "
            f"(a run on linear forms, for a formula, {TRACED_STEP_COST} times that); with network.loss_rate above "
            f"0 the expected cost of loss reads the run's schedule: on the native engine a lossy run counts each step "
            f"{NATIVE_LOSS_STEP_COST} times and {NATIVE_LOSS_RUN_STEPS:,} once, on the Python one {LOSS_STEP_COST} "
            "more per step. The backstop behind the estimates above: over it: 422 limit-exceeded.",
        },
        {
            "name": "max_packets_engine_steps",
            "value": MAX_PACKETS_ENGINE_STEPS,
            "what": "Steps of a prediction with packets=true (its answer lists every packet, about 500 bytes of JSON "
            "each), counted as for max_engine_steps; over it: 422 limit-exceeded.",
        },
    ]


def _problem(description: str) -> dict[str, Any]:
    return {
        "description": description,
        "content": {"application/problem+json": {"schema": {"$ref": REF.format(model="ProblemDetails")}}},
    }


def _query_param(name: str, schema: dict[str, Any]) -> dict[str, Any]:
    s = copy.deepcopy(schema)
    s.pop("title", None)
    description = s.pop("description", "")
    if "anyOf" in s:  # X | None: null cannot be given in a query (leave the parameter out)
        options = [o for o in s.pop("anyOf") if o.get("type") != "null"]
        if len(options) == 1:
            s.update(options[0])
        else:  # pragma: no cover - every scenario field is one type or null
            s["anyOf"] = options
    if s.get("default") is None:
        s.pop("default", None)
    param: dict[str, Any] = {"name": name, "in": "query", "required": False, "schema": s}
    if description:
        param["description"] = description
    if s.get("type") == "array":
        param["style"] = "form"
        param["explode"] = False
    return param


def _field_schema(defs: dict[str, Any], path: str) -> dict[str, Any]:
    """A scenario field's schema in the components: ``network.rtt_ms`` -> Network's ``rtt_ms`` property,
    ``proxy.client_leg.delay_ms`` -> Leg's ``delay_ms``; a field of a list's objects (``page.origins.dns_ms``, see
    :data:`latency_lab_web.web.query.OBJECT_LIST_PARAMS`): an array of Origin's ``dns_ms`` values, one an origin."""
    if path in OBJECT_LIST_PARAMS:
        items = copy.deepcopy(_field_schema(defs, OBJECT_LIST_PARAMS[path][0])["items"])
        item_model: dict[str, Any] = defs[items["$ref"].rsplit("/", 1)[1]]
        item = copy.deepcopy(item_model["properties"][OBJECT_LIST_PARAMS[path][1]])
        for key in ("title", "description", "default"):
            item.pop(key, None)
        if "anyOf" in item:  # X | None (page.origins.rtt_ms): null is written as an empty value, not as a value
            (option,) = [o for o in item.pop("anyOf") if o.get("type") != "null"]
            item.update(option)
        s = SCENARIO_PARAMS[path]
        out: dict[str, Any] = {"type": "array", "items": item, "description": s.description}
        if s.max_items is not None:
            out["maxItems"] = s.max_items
        return out
    model: dict[str, Any] = defs["Scenario"]
    *outer, name = path.split(".")
    for part in outer:
        prop = model["properties"][part]
        ref = prop.get("$ref") or prop["anyOf"][0]["$ref"]
        model = defs[ref.rsplit("/", 1)[1]]
    inner: dict[str, Any] = model["properties"][name]
    return inner


#: The rules of a valid request that its JSON Schema does not say (they relate fields or parameters to each
#: other, or bound the work): a request that breaks one is answered 422, each problem item with this ``type``
#: (or, for a sweep's generated values, at this ``path``). In the document as ``x-cross-field-rules``; any other
#: 422 means the request broke its schema.
CROSS_FIELD_RULES: list[dict[str, Any]] = [
    {
        "type": "value_error",
        "rule": "A rule relating a scenario's fields, named in the message: page.object_bytes, or page.object_count "
        "with page.object_size_bytes (not both); receive windows (tcp.receive_window_bytes, the split proxy's legs "
        "and long haul) at least tcp.mss_bytes, and for h3 at least quic.max_datagram_bytes less 30; split_proxy "
        "only with tls.version none and HTTP/1.x protocols; with http.response_header_bytes 0 every response at "
        "least one byte; at most max_segments response segments (times session.pages, times 3 legs with "
        "split_proxy); an origin with a path of its own (page.origins[].rtt_ms or bandwidth_bps) not coalesced with "
        "the HTML's (its coalesce_with_html false), nor with network.loss_rate above 0 or split_proxy; packets=true "
        "only with format json (the format parameter or the Accept header).",
    },
    {
        "type": LIST_LENGTHS,
        "rule": "The query parameters of a list's objects (page.origins.dns_ms, page.origins.preconnected, "
        "page.origins.coalesce_with_html, page.origins.early_hint_preconnect, page.origins.rtt_ms, "
        "page.origins.bandwidth_bps) give one value per origin each: those given must give as many values (an empty "
        "value of rtt_ms or bandwidth_bps: that origin on the network's path).",
    },
    {
        "type": "limit_exceeded",
        "rule": "The request's work is over a documented limit (max_work_units, max_sweep_fixed_units, "
        "max_packets_work_units, "
        "max_formula_work_units, max_engine_steps, max_packets_engine_steps); the problem's limit says which.",
    },
    {
        "path": ["start", "stop", "steps"],
        "rule": "A sweep's generated value (from start, stop and steps; whole-number fields rounded) is not a valid "
        "value of the swept field, or makes the base scenario break a rule above.",
    },
    {
        "type": "points",
        "rule": "That more of a sweep's points are invalid than the first ones' problems list (points after the next "
        "invalid one are not checked).",
    },
    {
        "type": "har_page",
        "rule": "A HAR valid by its schema whose page the model cannot take: no entry of its first page, no HTML "
        "entry among them, a URL that is not http or https, a startedDateTime that is not an ISO 8601 time, or "
        "remove_origins naming an origin the page has not (or the document's own).",
    },
    *({"type": kind, "rule": f"Exercises: {rule}"} for kind, rule in EXERCISE_RULES.items()),
]


def _sweep_rules(defs: dict[str, Any]) -> None:
    """The sweep's rules its JSON Schema can say, added to the SweepRequest schema: values *or* start, stop and
    steps (oneOf); each value valid for the swept field and a generated range only for a numeric field (oneOf, a
    branch per field: fifty if/then pairs are as true, but schemathesis' generator gives up on their product), and
    log spacing only above 0 (if/then)."""
    sweep = defs["SweepRequest"]
    sweep["oneOf"] = [
        {
            "title": "values",
            "required": ["values"],
            "properties": {
                "values": {"type": "array"},
                "start": {"type": "null"},
                "stop": {"type": "null"},
                "steps": {"type": "null"},
            },
        },
        {
            "title": "range",
            "required": ["start", "stop", "steps"],
            "properties": {
                "values": {"type": "null"},
                "start": {"type": "number"},
                "stop": {"type": "number"},
                "steps": {"type": "integer"},
            },
        },
    ]
    by_field: list[dict[str, Any]] = []
    for name in SWEEPABLE_FIELDS:
        value = copy.deepcopy(_field_schema(defs, name))
        for key in ("title", "description", "default"):
            value.pop(key, None)
        then: dict[str, Any] = {"values": {"anyOf": [{"type": "array", "items": value}, {"type": "null"}]}}
        if field_spec(name).kind not in ("number", "integer"):
            then["start"] = {"type": "null"}  # a range only for numbers
        by_field.append({"properties": {"field": {"const": name}, **then}})
    rules: list[dict[str, Any]] = [{"oneOf": by_field}]  # one branch per field (not if/then: see above)
    rules.append(
        {
            "if": {"required": ["spacing"], "properties": {"spacing": {"const": "log"}}},
            "then": {
                "properties": {
                    "start": {"anyOf": [{"type": "number", "exclusiveMinimum": 0}, {"type": "null"}]},
                    "stop": {"anyOf": [{"type": "number", "exclusiveMinimum": 0}, {"type": "null"}]},
                }
            },
        }
    )
    sweep["allOf"] = rules


def _option_params(names: tuple[str, ...]) -> list[dict[str, Any]]:
    options = {
        "format": {
            "name": "format",
            "in": "query",
            "required": False,
            "description": "Output format; also chosen by the Accept header (text/csv). CSV has one row per protocol "
            "(sweep: per value and protocol).",
            "schema": {"type": "string", "enum": ["json", "csv"]},
        },
        "packets": {
            "name": "packets",
            "in": "query",
            "required": False,
            "description": "Add each result's packet schedule (JSON only: not with format csv or Accept: text/csv, "
            "a 422; its own work limit, max_packets_work_units).",
            "schema": {"type": "boolean", "default": False},
        },
        "preset": {
            "name": "preset",
            "in": "query",
            "required": False,
            "description": "Start from this preset's scenario; the given fields go on top (nested objects merge, "
            "lists replace).",
            "schema": {"type": "string", "enum": list(PRESETS)},
        },
    }
    return [options[n] for n in names]


CACHE_STATUS = {
    "Cache-Status": {
        "description": "RFC 9211: `latency-lab; hit` if the answer came from the cache of answers (keyed on the "
        "validated request), else `latency-lab; fwd=miss`.",
        "schema": {"type": "string"},
    }
}


def _ok(schema: str, csv: bool = False, cached: bool = True) -> dict[str, Any]:
    content: dict[str, Any] = {"application/json": {"schema": {"$ref": REF.format(model=schema)}}}
    if csv:
        content["text/csv"] = {"schema": {"type": "string"}}
    out: dict[str, Any] = {"description": "OK", "content": content}
    if cached:
        out["headers"] = CACHE_STATUS
    return out


CROSS_FIELD_WORDS = (
    " A request valid by its schema can still break a rule relating its fields or be over a work limit: see "
    "x-cross-field-rules."
)
ERRORS_GET = {
    "414": _problem("The query string is over max_query_bytes."),
    "422": _problem(
        "A parameter is not valid (invalid-request) or the request is over a limit (limit-exceeded)."
        + CROSS_FIELD_WORDS
    ),
}
ERRORS_POST = {
    "400": _problem("The body is not JSON (invalid-json)."),
    "413": _problem("The body is over max_body_bytes."),
    "414": _problem("The query string is over max_query_bytes."),
    "415": _problem("The body is not application/json in UTF-8."),
    "422": _problem(
        "A field is not valid (invalid-request) or the request is over a limit (limit-exceeded)." + CROSS_FIELD_WORDS
    ),
}


def _exercise_param(name: str, where: str = "query") -> dict[str, Any]:
    spec = EXERCISE_PARAMS[name]
    return {"name": name, "in": where, "required": False, "description": spec["description"], "schema": spec["schema"]}


def _exercise_paths() -> dict[str, Any]:
    """The exercises' JSON (latency_lab_web/exercises/views.py): the templates, one variant with its check, a problem set."""
    template = {
        "name": "template",
        "in": "path",
        "required": True,
        "description": "The exercise template.",
        "schema": {"type": "string", "enum": list(EXERCISE_TEMPLATES)},
    }
    return {
        "/api/v1/exercises": {
            "get": {
                "operationId": "exerciseTemplates",
                "summary": "List the exercise templates",
                "responses": {"200": _ok("ExerciseTemplates", cached=False), **ERRORS_GET},
            }
        },
        "/api/v1/exercises/{template}": {
            "get": {
                "operationId": "exercise",
                "summary": "One problem drawn from a template by a seed, with its worked solution",
                "description": "The problem in words with units, its numbers, the answer within its tolerance and "
                "the worked solution (the textbook's formula with the numbers, the model's value); with answer= "
                "the answer's check.",
                "parameters": [template, _exercise_param("seed"), _exercise_param("answer")],
                "responses": {"200": _ok("ExerciseVariant", cached=False), **ERRORS_GET},
            }
        },
        "/api/v1/exercises/set": {
            "get": {
                "operationId": "exerciseSet",
                "summary": "A problem set: every template's problem for every seed",
                "description": "Answers and solutions only where released: an open set (no lock), or a locked one "
                "with its key.",
                "parameters": [
                    {**_exercise_param("templates"), "required": True},
                    {**_exercise_param("seeds"), "required": True},
                    _exercise_param("lock"),
                    _exercise_param("key"),
                ],
                "responses": {"200": _ok("ExerciseSet", cached=False), **ERRORS_GET},
            }
        },
    }


def _har_paths(defs: dict[str, Any]) -> dict[str, Any]:
    """POST /api/v1/har: the HAR as the body (HarDocument: the parts read), the what-ifs (WhatIf's fields) as query
    parameters, lists comma-separated."""
    what_if = defs["WhatIf"]["properties"]
    params = []
    for name, schema in what_if.items():
        schema = copy.deepcopy(schema)
        description = schema.pop("description", "")
        schema.pop("default", None)
        options = schema.pop("anyOf", None)
        if options:  # "X or null": a query parameter is left out for null
            schema.update(next(o for o in options if o.get("type") != "null"))
        param: dict[str, Any] = {"name": name, "in": "query", "required": False, "description": description}
        if schema.get("type") == "array":
            param.update(style="form", explode=False)
        params.append({**param, "schema": schema})
    return {
        "/api/v1/har": {
            "post": {
                "operationId": "harPost",
                "summary": "Predict a HAR's page (DevTools, WebPageTest, Firefox), with what-ifs",
                "description": "The body is a HAR 1.2 file (Content-Type: application/json; at most max_har_bytes: "
                "save it without contents). Its first page becomes a scenario: the HTML document, each object's size "
                "on the wire, the protocol the document came over, the RTT from the connect times; each other origin "
                "is one of page.origins (its own DNS lookup, connections and TLS, over the document's path; past 50 "
                "origins merged_origins names those the document's serves); the initiator tree is the scenario's page.object_parents (each object requested once its initiator has "
                "arrived). The answer puts the HAR's own "
                "onLoad beside the model's time for the HAR's protocol.",
                "parameters": params,
                "requestBody": {
                    "required": True,
                    "content": {"application/json": {"schema": {"$ref": REF.format(model="HarDocument")}}},
                },
                "responses": {
                    "200": {
                        "description": "OK",
                        "content": {"application/json": {"schema": {"$ref": REF.format(model="HarAnswer")}}},
                    },
                    **ERRORS_POST,
                    "413": _problem("The HAR is over max_har_bytes."),
                },
            }
        }
    }


@functools.cache
def _document() -> dict[str, Any]:
    models = [
        (Scenario, "validation"),
        (SweepRequest, "validation"),
        (PredictOutput, "serialization"),
        (SweepOutput, "serialization"),
        (PresetList, "serialization"),
        (PresetDetail, "serialization"),
        (FormulaOutput, "serialization"),
        (ProblemDetails, "serialization"),
        (ExerciseTemplates, "serialization"),
        (ExerciseVariant, "serialization"),
        (ExerciseSet, "serialization"),
        (HarDocument, "validation"),
        (WhatIf, "validation"),
        (HarAnswer, "serialization"),
    ]
    _, top = models_json_schema(models, ref_template=REF)  # type: ignore[arg-type]
    defs: dict[str, Any] = top["$defs"]
    _sweep_rules(defs)
    scenario_params = [_query_param(name, _field_schema(defs, name)) for name in SCENARIO_PARAMS]
    body = {"required": True, "content": {"application/json": {"schema": {"$ref": REF.format(model="Scenario")}}}}
    protocol_param = {
        "name": "protocol",
        "in": "path",
        "required": True,
        "schema": {"type": "string", "enum": list(ALL_PROTOCOLS)},
    }
    not_found = {"404": _problem("No such protocol.")}
    paths: dict[str, Any] = {
        "/api/v1/predict": {
            "get": {
                "operationId": "predictGet",
                "summary": "Predict a scenario given as query parameters",
                "description": QUERY_SYNTAX,
                "parameters": [*_option_params(("format", "packets", "preset")), *scenario_params],
                "responses": {"200": _ok("PredictOutput", csv=True), **ERRORS_GET},
            },
            "post": {
                "operationId": "predictPost",
                "summary": "Predict a scenario given as a JSON body",
                "description": "The body is the scenario document (every field optional: {} is the defaults). "
                "The answer is the model's output document, field for field as the command line prints it. Each "
                "result's expected_with_loss gives the expected cost of random loss at network.loss_rate in closed "
                "form (an expected value and a lower bound; zeros with no loss); page_load_ms stays the lossless "
                "schedule's.",
                "parameters": _option_params(("format", "packets", "preset")),
                "requestBody": body,
                "responses": {"200": _ok("PredictOutput", csv=True), **ERRORS_POST},
            },
        },
        "/api/v1/sweep": {
            "post": {
                "operationId": "sweep",
                "summary": "Step one scenario field over values; one series per protocol",
                "description": "Give values, or start, stop and steps (linear or log spacing). Fields: "
                + ", ".join(SWEEPABLE_FIELDS)
                + ". Sweeping page.object_count or page.object_size_bytes turns a base page given as object_bytes "
                "into equal objects; sweeping network.rtt_ms drops one-way delays the base gives both of.",
                "parameters": _option_params(("format",)),
                "requestBody": {
                    "required": True,
                    "content": {"application/json": {"schema": {"$ref": REF.format(model="SweepRequest")}}},
                },
                "responses": {"200": _ok("SweepOutput", csv=True), **ERRORS_POST},
            }
        },
        "/api/v1/presets": {
            "get": {
                "operationId": "presets",
                "summary": "List the presets (the seed papers' setups)",
                "responses": {"200": _ok("PresetList", cached=False), **ERRORS_GET},
            }
        },
        "/api/v1/presets/{name}": {
            "get": {
                "operationId": "preset",
                "summary": "One preset with its scenario",
                "parameters": [{"name": "name", "in": "path", "required": True, "schema": {"type": "string"}}],
                "responses": {
                    "200": _ok("PresetDetail", cached=False),
                    "404": _problem("No such preset."),
                    **ERRORS_GET,
                },
            }
        },
        "/api/v1/formulas/{protocol}": {
            "get": {
                "operationId": "formulaGet",
                "summary": "A protocol's page load time as a formula (scenario as query parameters)",
                "description": "LaTeX, MathML and text, the same with the scenario's numbers, and the glossary. "
                "The scenario's protocols field is replaced by the path's protocol. " + QUERY_SYNTAX,
                "parameters": [protocol_param, *_option_params(("preset",)), *scenario_params],
                "responses": {"200": _ok("FormulaOutput"), **not_found, **ERRORS_GET},
            },
            "post": {
                "operationId": "formulaPost",
                "summary": "A protocol's page load time as a formula (scenario as a JSON body)",
                "description": "The scenario's protocols field is replaced by the path's protocol.",
                "parameters": [protocol_param, *_option_params(("preset",))],
                "requestBody": body,
                "responses": {"200": _ok("FormulaOutput"), **not_found, **ERRORS_POST},
            },
        },
    }
    paths.update(_har_paths(defs))
    paths.update(_exercise_paths())
    return {
        "openapi": "3.1.0",
        "jsonSchemaDialect": "https://json-schema.org/draft/2020-12/schema",
        "info": {
            "title": "latency-lab API",
            "version": "1.0.0",
            "summary": "Page load times of HTTP over TCP from an analytic model, for scripted what-if questions.",
            "description": "Every error is application/problem+json (RFC 9457) naming each field's path and "
            "allowed range. Limits: "
            + "; ".join(f"{x['name']} = {x['value']:,}" for x in limits())
            + ". Answers may gain fields as the model grows: ignore fields you do not know.",
        },
        "paths": paths,
        "components": {"schemas": defs},
        "x-cross-field-rules": CROSS_FIELD_RULES,
        "x-problem-types": {type_uri(k.name): {"status": k.status, "title": k.title} for k in KINDS.values()},
    }


def document() -> dict[str, Any]:
    """The OpenAPI 3.1 document (a fresh copy)."""
    return copy.deepcopy(_document())


# --- the docs page --------------------------------------------------------------------------------------


def _number(x: Any) -> str:
    if isinstance(x, float) and x.is_integer():
        x = int(x)
    return f"{x:,}" if isinstance(x, int) else str(x)


def type_words(schema: dict[str, Any]) -> str:
    """A JSON Schema in a few words: ``number, 0 to 10,000``, ``array of integer``, ``'bsd' | 'ns3'``."""
    if "$ref" in schema:
        return str(schema["$ref"]).rsplit("/", 1)[1]
    if "anyOf" in schema:
        return " or ".join(type_words(s) for s in schema["anyOf"])
    if "enum" in schema:
        return " | ".join(repr(v) for v in schema["enum"])
    if "const" in schema:
        return repr(schema["const"])
    kind = schema.get("type", "any")
    if kind == "array":
        items = schema.get("items", {})
        size = ""
        if "minItems" in schema or "maxItems" in schema:
            size = f" ({_number(schema.get('minItems', 0))} to {_number(schema.get('maxItems', '…'))} items)"
        return f"array of {type_words(items) if items else 'any'}{size}"
    if kind == "object" and "additionalProperties" in schema and isinstance(schema["additionalProperties"], dict):
        return f"object of {type_words(schema['additionalProperties'])}"
    words = str(kind)
    low, high = schema.get("minimum", schema.get("exclusiveMinimum")), schema.get("maximum")
    if low is not None and high is not None:
        words += f", {_number(low)} to {_number(high)}"
    elif low is not None:
        words += f", at least {_number(low)}"
    elif high is not None:
        words += f", at most {_number(high)}"
    return words


def _schema_rows(schema: dict[str, Any]) -> list[dict[str, Any]]:
    required = set(schema.get("required", []))
    return [
        {
            "name": name,
            "type": type_words(prop),
            "ref": prop.get("$ref", "").rsplit("/", 1)[-1] or None,
            "required": name in required,
            "default": prop.get("default"),
            "description": prop.get("description", ""),
        }
        for name, prop in schema.get("properties", {}).items()
    ]


def docs_context(
    doc: dict[str, Any], max_body: int = DEFAULT_MAX_BODY_BYTES, max_query: int = DEFAULT_MAX_QUERY_BYTES
) -> dict[str, Any]:
    """What the docs page template needs: operations, schemas, limits, problem types and examples."""
    operations = []
    for path, item in doc["paths"].items():
        for method, op in item.items():
            params = [
                {
                    "name": p["name"],
                    "in": p["in"],
                    "type": type_words(p["schema"]),
                    "description": p.get("description", ""),
                }
                for p in op.get("parameters", [])
            ]
            body = op.get("requestBody", {}).get("content", {}).get("application/json", {}).get("schema", {})
            operations.append(
                {
                    "id": op["operationId"],
                    "method": method.upper(),
                    "path": path,
                    "summary": op.get("summary", ""),
                    "description": op.get("description", ""),
                    "params": params,
                    "body": body.get("$ref", "").rsplit("/", 1)[-1] or None,
                    "responses": [
                        {
                            "status": status,
                            "description": r["description"],
                            "types": list(r.get("content", {})),
                            "schema": next(
                                (
                                    c["schema"]["$ref"].rsplit("/", 1)[-1]
                                    for c in r.get("content", {}).values()
                                    if "$ref" in c.get("schema", {})
                                ),
                                None,
                            ),
                        }
                        for status, r in op["responses"].items()
                    ],
                }
            )
    schemas = [
        {"name": name, "description": s.get("description", ""), "rows": _schema_rows(s)}
        for name, s in sorted(doc["components"]["schemas"].items())
    ]
    return {
        "info": doc["info"],
        "operations": operations,
        "schemas": schemas,
        "limits": limits(max_body, max_query),
        "kinds": list(KINDS.values()),
        "query_syntax": QUERY_SYNTAX,
    }
