"""latency_lab.analysis.sweep: which points are validated before a sweep is refused (issue 26: refusals up front)."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import ValidationError

from latency_lab import PRESETS, Scenario
from latency_lab.analysis import sweep
from latency_lab.scenario.errors import problems
from latency_lab.scenario.overlay import overlay

BASE = Scenario(protocols=["h3"], page={"object_count": 2, "object_size_bytes": 2_000})
FIELD = "tcp.receive_window_bytes"  # a whole number from 1,000 to 1,073,725,440 bytes


def test_out_of_range_names_the_numbers_outside_the_fields_range() -> None:
    vals: list[Any] = [1_000, 999, 0, 5_000.5, float("inf"), True, "x", None, 2_000_000_000, -3]
    assert sweep.out_of_range(FIELD, vals) == {1, 2, 8, 9}  # not infinity, a boolean, text or null: pydantic's to say
    assert sweep.out_of_range("tcp.nagle", [True, 5]) == frozenset()  # not a number field: no range


def _counting(monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    seen: list[Any] = []
    real = sweep.point

    def point(req: sweep.SweepRequest, doc: dict[str, Any], value: Any) -> Scenario:
        seen.append(value)
        return real(req, doc, value)

    monkeypatch.setattr(sweep, "point", point)
    return seen


def test_a_value_out_of_range_is_refused_without_validating_the_others(monkeypatch: pytest.MonkeyPatch) -> None:
    values = [100_000 + 1_000 * i for i in range(300)] + [0, 500]
    req = sweep.request(BASE, FIELD, values)
    validated = _counting(monkeypatch)
    with pytest.raises(sweep.SweepError) as refused:
        sweep.points(req)
    assert validated == [0, 500]  # the two out of range, not the 300 valid points before them
    texts = [p.text for p in refused.value.problems]
    assert len(texts) == 2 and texts[0].startswith("values[300]: Input should be greater than or equal to 1000")
    assert texts[1].startswith("values[301]: ")


def test_the_same_problems_as_validating_every_point(monkeypatch: pytest.MonkeyPatch) -> None:
    values = [2_000, 0, 3_000, 999, 4_000]
    req = sweep.request(BASE, FIELD, values)
    with pytest.raises(sweep.SweepError) as quick:
        sweep.points(req)
    monkeypatch.setattr(sweep, "out_of_range", lambda field, vals: frozenset())  # the range check off: all validated
    with pytest.raises(sweep.SweepError) as full:
        sweep.points(req)
    assert quick.value.problems == full.value.problems


def test_a_value_the_range_flags_but_validation_accepts_is_no_refusal(monkeypatch: pytest.MonkeyPatch) -> None:
    values = [2_000, 3_000, 4_000]
    req = sweep.request(BASE, FIELD, values)
    monkeypatch.setattr(sweep, "out_of_range", lambda field, vals: frozenset({1}))  # wrongly: every point is validated
    validated = _counting(monkeypatch)
    pts = sweep.points(req)
    assert [v for v, _ in pts] == values and validated == [3_000, *values]


# --- a point validates only its field's section (issue 26: a 663-object page's lists were validated at each point) ---


def _values_to_try(field: str) -> list[Any]:
    """A few values of ``field`` a sweep could take: its bounds, a value between, its choices; some refused."""
    s = sweep.field_spec(field)
    if s.kind == "boolean":
        return [True, False]
    if s.kind == "choice":
        return list(s.choices)
    low = s.low if s.low is not None else 0
    high = s.high if s.high is not None else low + 1_000
    out: list[Any] = [low, high, low + (high - low) / 3, low - 1, high + 1]
    if s.kind == "integer":
        out = [round(x) for x in out]
    return [*out, *([None] if s.nullable else [])]


def _by_its_whole_document(req: sweep.SweepRequest, value: Any) -> Any:
    """The point as a sweep validated it before: the base scenario's document, the field set, all of it validated."""
    section, name = req.field.split(".", 1)
    doc = overlay(req.scenario.model_dump(mode="json", exclude_unset=True), {section: {name: None}})
    if req.protocols is not None:
        doc["protocols"] = list(req.protocols)
    doc[section] = {**doc.get(section, {}), name: value}
    try:
        return Scenario.model_validate(doc, strict=True).model_dump(mode="json")
    except ValidationError as exc:
        return [(p.loc, p.message) for p in problems(exc)]


BASES = {
    "n97-wan": PRESETS["n97-wan"].scenario,
    "lists": Scenario.model_validate(
        {
            "protocols": ["persistent", "h2", "h3", "persistent_parallel"],
            "tcp": {"profile": "linux"},
            "network": {"uplink_delay_ms": 20, "downlink_delay_ms": 30},
            "page": {
                "object_bytes": [9_000, 20_000, 1_500, 3_000],
                "object_parents": [0, 1, 1, 0],
                "object_named_at_bytes": [100, 5_000, 8_000, 6_000],
                "object_origins": [0, 1, 2, 1],
                "origins": [{"dns_ms": 20}, {"dns_ms": 5, "preconnected": True}],
                "object_early_hint": [True, False, False, True],
            },
        },
        strict=False,
    ),
}


@pytest.mark.parametrize("base", list(BASES))
def test_a_point_is_the_scenario_its_whole_document_validates(base: str) -> None:
    """Every sweepable field, at its bounds, between, past them: :func:`sweep.point` (the other sections taken from
    the validated base) gives the scenario, or the problems, that validating the point's whole document gives."""
    compared = 0
    for field in sweep.SWEEPABLE_FIELDS:
        req = sweep.request(BASES[base], field, [0])
        doc = sweep.base_document(req)
        for value in _values_to_try(field):
            try:
                got: Any = sweep.point(req, doc, value).model_dump(mode="json")
            except ValidationError as exc:
                got = [(p.loc, p.message) for p in problems(exc)]
            assert got == _by_its_whole_document(req, value), (field, value)
            compared += 1
    assert compared >= 2 * len(sweep.SWEEPABLE_FIELDS)


def test_points_do_not_share_sections() -> None:
    req = sweep.request(BASES["lists"], "network.rtt_ms", [10, 20])
    (_, a), (_, b) = sweep.points(req)
    assert a.page == b.page == req.scenario.page
    assert a.page is not b.page and a.page is not req.scenario.page and a.tcp is not b.tcp
