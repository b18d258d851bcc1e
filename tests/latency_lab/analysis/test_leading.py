"""The time that leads a result (latency_lab/analysis/leading.py): with loss the expected time, its parts adding up."""

from __future__ import annotations

from typing import Any

import pytest

from latency_lab import PRESETS, Scenario, predict, preset
from latency_lab.analysis.expected_loss import CAUSES
from latency_lab.analysis.leading import LOSS_PARTS, fastest, head_of_line_ms, leading_ms, lossless_ms, lossy, parts_ms


def _with_loss(name: str, p: float, **network: Any) -> Scenario:
    doc = preset(name).model_dump(exclude_unset=True)
    doc["network"] = {**doc.get("network", {}), **network, "loss_rate": p}
    return Scenario.model_validate(doc)


def test_issue_25s_example_with_loss_h2_is_fastest_not_pipelined() -> None:
    """p98-satellite at 1 % loss: pipelined is fastest without loss, HTTP/2 with it (issue 25)."""
    scenario = _with_loss("p98-satellite", 0.01)
    results = predict(scenario.model_copy(update={"protocols": ["pipelined", "h2"]}))["results"]
    pipelined, h2 = results
    assert pipelined["page_load_ms"] < h2["page_load_ms"]  # without loss
    assert h2["expected_with_loss"]["page_load_ms"] < pipelined["expected_with_loss"]["page_load_ms"]
    assert fastest(results) == "h2"
    assert leading_ms(h2) == h2["expected_with_loss"]["page_load_ms"]
    assert lossless_ms(h2) == h2["page_load_ms"]


def test_without_loss_the_schedules_time_leads() -> None:
    results = predict(preset("p98-satellite"))["results"]
    assert not any(lossy(r) for r in results)
    assert [leading_ms(r) for r in results] == [r["page_load_ms"] for r in results]
    assert fastest(results) == min(results, key=lambda r: r["page_load_ms"])["protocol"]
    assert all(set(parts_ms(r)) == set(r["breakdown_ms"]) for r in results)
    assert all(head_of_line_ms(r) == 0 for r in results)
    assert fastest([]) == ""


def test_loss_parts_are_the_analysis_causes() -> None:
    assert list(LOSS_PARTS) == list(CAUSES)
    assert all(name.startswith("loss_") for name in LOSS_PARTS.values())


@pytest.mark.parametrize("name", sorted(PRESETS))
@pytest.mark.parametrize("p", [0.0, 0.02])
def test_parts_add_up_to_the_time_that_leads(name: str, p: float) -> None:
    """On every preset, with and without loss: the parts (the breakdown's keys, whatever they are, then loss's)
    add up to the time that leads, and loss's parts are expected_with_loss.by_cause_ms as it is."""
    scenario = _with_loss(name, p)
    if p and len(scenario.page.sizes()) > 60:
        scenario = scenario.model_copy(update={"protocols": scenario.protocols[:2]})  # lossy runs are slower
    for r in predict(scenario)["results"]:
        parts = parts_ms(r)
        assert sum(parts.values()) == pytest.approx(leading_ms(r), rel=1e-9, abs=1e-6)
        assert list(parts)[: len(r["breakdown_ms"])] == list(r["breakdown_ms"])
        if p:
            assert lossy(r) and leading_ms(r) == r["expected_with_loss"]["page_load_ms"] >= r["page_load_ms"]
            assert {k: parts[v] for k, v in LOSS_PARTS.items()} == r["expected_with_loss"]["by_cause_ms"]
        else:
            assert not any(k in parts for k in LOSS_PARTS.values())


def test_head_of_line_is_h2s_not_h3s() -> None:
    scenario = Scenario.model_validate(
        {
            "protocols": ["h2", "h3"],
            "network": {"loss_rate": 0.02},
            "page": {"object_count": 20, "object_size_bytes": 10_000},
        }
    )
    h2, h3 = predict(scenario)["results"]
    assert head_of_line_ms(h2) > 0 == head_of_line_ms(h3)
    assert head_of_line_ms(h2) == h2["expected_with_loss"]["head_of_line_ms"]
    # a stream-time, not a part of the page's time
    assert "head_of_line" not in " ".join(parts_ms(h2))
