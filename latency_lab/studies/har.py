"""A HAR's page predicted, with what-ifs: the answer the command line (``har``) and the API (``POST /api/v1/har``) give.

:func:`answer` builds the scenario of a :class:`~latency_lab.scenario.har.HarPage` with a
:class:`~latency_lab.scenario.har.WhatIf` (:func:`latency_lab.scenario.har.to_scenario`), validates it, refuses it
before anything runs if it is over the work limit (:data:`~latency_lab.scenario.limits.MAX_WORK_UNITS`), predicts
it and puts the HAR's own measured load time (``onLoad``) beside the model's prediction for the protocol the HAR's
document came over. The caller holds the request's step budget (:func:`latency_lab.scenario.limits.request_budget`).
"""

from __future__ import annotations

from typing import Any

from pydantic import ValidationError

from latency_lab.analysis.predict import predict
from latency_lab.scenario import limits
from latency_lab.scenario.errors import Problem, problems, validate_scenario
from latency_lab.scenario.har import HarError, HarPage, WhatIf, to_scenario


def answer(page: HarPage, what_if: WhatIf | None = None) -> dict[str, Any]:
    """The HAR's page, the scenario made of it, each protocol's predicted load time and the measured one.

    :class:`~latency_lab.scenario.har.HarError` if the scenario is refused (its problems at their scenario paths,
    e.g. ``page.html_bytes`` past the page's segment limit) or over the work limit (``kind`` ``limit``)."""
    built = to_scenario(page, what_if)
    try:
        scenario = validate_scenario(built.document)
    except ValidationError as exc:
        raise HarError(problems(exc, at=("scenario",))) from None
    units = limits.work_units(scenario)
    limit = limits.check(units, limits.MAX_WORK_UNITS, "max_work_units", "this HAR's prediction")
    if limit is not None:
        where = Problem(path="", message=limit.message, type="limit_exceeded", loc=())
        raise HarError([where], "limit", limit)
    out = predict(scenario)
    results = [
        {
            "protocol": r["protocol"],
            "page_load_ms": r["page_load_ms"],
            "expected_with_loss_ms": r["expected_with_loss"]["page_load_ms"],
        }
        for r in out["results"]
    ]
    predicted = next((r["page_load_ms"] for r in results if r["protocol"] == built.har_protocol), None)
    return {
        "page": page.summary(),
        "scenario": scenario.model_dump(mode="json", exclude_unset=True),
        "merged_origins": built.merged_origins,
        "removed_objects": built.removed_objects,
        "object_parents": built.parents,
        "notes": [*page.notes, *built.notes],
        "measured": {
            "protocol": built.har_protocol,
            "on_load_ms": page.on_load_ms,
            "predicted_ms": predicted,
            "note": "onLoad is the browser's whole load (parsing, scripts, rendering and every origin's own "
            "connections); the model's time is the network's for one origin, from the click to the last byte",
        },
        "results": results,
    }
