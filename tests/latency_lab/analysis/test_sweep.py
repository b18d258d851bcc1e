"""latency_lab.analysis.sweep: which points are validated before a sweep is refused (issue 26: refusals up front)."""

from __future__ import annotations

from typing import Any

import pytest

from latency_lab import Scenario
from latency_lab.analysis import sweep

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
