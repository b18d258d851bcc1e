"""A HAR's page predicted with what-ifs (latency_lab.studies.har.answer), on the fixtures of tests/data/har."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from latency_lab import Scenario, predict
from latency_lab.scenario.har import HarError, HarPage, WhatIf, load_har, to_scenario
from latency_lab.studies.har import HarAnswer, answer

DATA = Path(__file__).parents[2] / "data" / "har"


def page_of(name: str) -> HarPage:
    return load_har((DATA / f"{name}.har").read_bytes())


@pytest.mark.parametrize("name", ["chromium-devtools", "chromium-playwright", "firefox", "webpagetest"])
def test_answer_predicts_the_hars_page_beside_its_onload(name: str) -> None:
    page = page_of(name)
    start = time.process_time()
    doc = answer(page).model_dump(mode="json")
    assert time.process_time() - start < 1.0
    built = to_scenario(page)
    direct = predict(Scenario.model_validate(built.document))
    assert [r["protocol"] for r in doc["results"]] == list(Scenario.model_validate(built.document).protocols)
    for mine, theirs in zip(doc["results"], direct["results"], strict=True):
        assert mine["page_load_ms"] == pytest.approx(theirs["page_load_ms"], rel=1e-12)
    measured = doc["measured"]
    assert measured["on_load_ms"] == page.on_load_ms
    assert measured["protocol"] == built.har_protocol
    assert measured["predicted_ms"] == next(
        r["page_load_ms"] for r in doc["results"] if r["protocol"] == built.har_protocol
    )
    assert doc["page"]["objects"] == len(page.objects)
    assert doc["merged_origins"] == built.merged_origins
    json.dumps(doc, allow_nan=False)  # the API's and the command line's answer as is


def times(doc: HarAnswer) -> dict[str, float]:
    return {r.protocol: r.page_load_ms for r in doc.results}


def test_what_ifs_move_the_prediction_the_right_way() -> None:
    page = page_of("webpagetest")
    base = times(answer(page))
    slower = times(answer(page, WhatIf(rtt_ms=4 * page.origins[0].rtt_ms)))  # type: ignore[operator]
    assert all(slower[p] > base[p] for p in base)
    without_ads = answer(page, WhatIf(remove_origins=["https://ads.example:443"]))
    assert without_ads.removed_objects == 2
    assert all(times(without_ads)[p] <= base[p] for p in base)
    lossy = answer(page, WhatIf(loss_rate=0.02))
    assert all(r.expected_with_loss_ms > r.page_load_ms for r in lossy.results)
    pre = times(answer(page, WhatIf(protocols=["persistent_parallel"], preconnect=True)))
    assert pre["persistent_parallel"] <= base["persistent_parallel"]


def test_a_page_the_model_cannot_take_is_refused_with_the_scenario_path() -> None:
    doc = json.loads((DATA / "firefox.har").read_text())
    for e in doc["log"]["entries"][1:]:
        e["response"]["bodySize"] = 9_000_000  # 63 MB of objects: past the page's segment limit
    with pytest.raises(HarError) as caught:
        answer(load_har(json.dumps(doc)))
    assert caught.value.problems[0].path.startswith("scenario")
    assert "max_segments" in caught.value.problems[0].text or "segments" in caught.value.problems[0].text
