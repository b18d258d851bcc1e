"""A HAR's page predicted, with what-ifs: the answer the command line (``har``) and the API (``POST /api/v1/har``) give.

:func:`answer` builds the scenario of a :class:`~latency_lab.scenario.har.HarPage` with a
:class:`~latency_lab.scenario.har.WhatIf` (:func:`latency_lab.scenario.har.to_scenario`), validates it, refuses it
before anything runs if it is over the work limit (:data:`~latency_lab.scenario.limits.MAX_WORK_UNITS`), predicts
it and puts the HAR's own measured load time (``onLoad``) beside the model's prediction for the protocol the HAR's
document came over. The answer is a :class:`HarAnswer` (the API's OpenAPI document is made from it). The caller
holds the request's step budget (:func:`latency_lab.scenario.limits.request_budget`).
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field, ValidationError

from latency_lab.analysis.predict import predict
from latency_lab.scenario import limits
from latency_lab.scenario.errors import Problem, problems, validate_scenario
from latency_lab.scenario.har import HarError, HarPage, WhatIf, to_scenario
from latency_lab.scenario.schema import Protocol

MEASURED_NOTE = (
    "onLoad is the browser's whole load (parsing, scripts, rendering, and every origin's own connections); the "
    "model's time is the network's, for one origin, from the click to the last byte"
)


class HarOriginSummary(BaseModel):
    origin: str = Field(description="scheme://host:port")
    protocol: str = Field(description="h1, h2 or h3: what most of its responses came over")
    objects: int = Field(description="Responses of the page from this origin (the document among them).")
    wire_bytes: int = Field(description="Their bodies' bytes on the wire.")
    rtt_ms: float | None = Field(description="Median TCP connect time of its new connections; null if none shown.")
    dns_ms: float | None = Field(description="Its longest DNS lookup; null if none shown.")


class HarSummary(BaseModel):
    document: str = Field(description="The HTML document's URL.")
    objects: int = Field(description="Embedded objects (every other response of the page up to onLoad).")
    wire_bytes: int = Field(description="Bytes on the wire of the HTML and the objects (bodies).")
    html_bytes: int
    tree_depth: int = Field(description="Depth of the initiator tree: 1 if every object hangs off the HTML.")
    origins: list[HarOriginSummary] = Field(description="The document's origin first.")
    on_load_ms: float | None = Field(description="The HAR's pageTimings.onLoad.")
    on_content_load_ms: float | None
    bandwidth_bps: float | None = Field(description="The fastest large response's rate; null if none is large.")
    creator: str
    notes: list[str]


class HarResult(BaseModel):
    protocol: Protocol
    page_load_ms: float = Field(description="The model's page load time (lossless schedule).")
    expected_with_loss_ms: float = Field(description="Its expected value with network.loss_rate.")


class HarMeasured(BaseModel):
    protocol: Protocol = Field(description="The model's protocol for the one the HAR's document came over.")
    on_load_ms: float | None
    predicted_ms: float | None = Field(description="The model's time for that protocol, if it was asked for.")
    note: str


class HarAnswer(BaseModel):
    """A HAR's page, the scenario made of it, the predictions and the HAR's own load time."""

    page: HarSummary
    scenario: dict[str, Any] = Field(description="The scenario document predicted (a Scenario, fields set).")
    merged_origins: list[str] = Field(
        description="Origins past the most a page may have beside the document's (50), whose objects the document's "
        "origin serves; empty for most pages (each origin is one of the scenario's page.origins)."
    )
    removed_objects: int = Field(description="Objects dropped with remove_origins (and what they initiated).")
    object_parents: list[int] = Field(
        description="Each kept object's initiator: 0 the HTML, k the k-th object (the scenario's page.object_parents)."
    )
    notes: list[str]
    measured: HarMeasured
    results: list[HarResult]


def answer(page: HarPage, what_if: WhatIf | None = None) -> HarAnswer:
    """The HAR's page, the scenario made of it, each protocol's predicted load time and the measured one.

    :class:`~latency_lab.scenario.har.HarError` if the scenario is refused (its problems at their scenario paths,
    e.g. ``scenario.page.object_bytes`` past the page's segment limit) or over the work limit (``kind`` ``limit``)."""
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
        HarResult(
            protocol=r["protocol"],
            page_load_ms=r["page_load_ms"],
            expected_with_loss_ms=r["expected_with_loss"]["page_load_ms"],
        )
        for r in out["results"]
    ]
    predicted = next((r.page_load_ms for r in results if r.protocol == built.har_protocol), None)
    return HarAnswer(
        page=HarSummary.model_validate(page.summary()),
        scenario=scenario.model_dump(mode="json", exclude_unset=True),
        merged_origins=built.merged_origins,
        removed_objects=built.removed_objects,
        object_parents=built.parents,
        notes=[*page.notes, *built.notes],
        measured=HarMeasured(
            protocol=built.har_protocol, on_load_ms=page.on_load_ms, predicted_ms=predicted, note=MEASURED_NOTE
        ),
        results=results,
    )
