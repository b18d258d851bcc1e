"""Refusals decided up front (issue 26): a request the step budget would stop is refused by the work estimate
(:mod:`latency_lab.scenario.limits`, lossy runs and split proxies priced by ``RUN_COSTS``) before any engine runs.

Each test counts calls of the real engine entries (:func:`latency_lab.analysis.predict._run`, the Python engine's run of
one protocol, and :func:`latency_lab.analysis.native.run` / :func:`~latency_lab.analysis.native.summary`, the native engine's):
the counters call through to the real functions, and a control request shows they count."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from latency_lab.analysis import native
from latency_lab.analysis import predict as predict_module
from latency_lab.scenario.limits import MAX_WORK_UNITS, work_units
from latency_lab.scenario.schema import Scenario

if TYPE_CHECKING:
    from flask.testing import FlaskClient

LOSSY_999 = {"network": {"loss_rate": 0.01}, "page": {"object_count": 999, "object_size_bytes": 2544}}
SEVEN = ["http10", "http10_parallel", "persistent", "pipelined", "getall", "h2", "h3"]


class Runs:
    """How many protocol runs the engines made since the test began."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.count = 0
        for module, name in ((predict_module, "_run"), (native, "run"), (native, "summary")):
            monkeypatch.setattr(module, name, self._counting(getattr(module, name)))

    def _counting(self, real: Callable[..., Any]) -> Callable[..., Any]:
        def counted(*args: Any, **kwargs: Any) -> Any:
            self.count += 1
            return real(*args, **kwargs)

        return counted


@pytest.fixture
def runs(monkeypatch: pytest.MonkeyPatch) -> Runs:
    return Runs(monkeypatch)


def _api_client() -> FlaskClient:
    from latency_lab_web import create_app

    return create_app(
        {"TESTING": True, "API_CACHE_BYTES": 0, "PAGE_CACHE_BYTES": 0, "SWEEP_CACHE_BYTES": 0}
    ).test_client()


@pytest.fixture
def uncached() -> FlaskClient:
    return _api_client()


def _limit_problem(r: Any) -> dict[str, Any]:
    assert r.status_code == 422, r.get_data(as_text=True)[:500]
    assert r.mimetype == "application/problem+json"
    body = dict(r.get_json(force=True))
    assert body["limit"]["name"] == "max_work_units"
    assert body["limit"]["maximum"] == MAX_WORK_UNITS < body["limit"]["actual"]
    return body


def test_the_counters_count_an_accepted_lossy_request(uncached: FlaskClient, runs: Runs) -> None:
    """The control: a small lossy prediction runs its protocols through the counted entries."""
    r = uncached.post("/api/v1/predict", json={"network": {"loss_rate": 0.01}, "protocols": ["http10", "h2"]})
    assert r.status_code == 200
    assert runs.count == 2


def test_a_lossy_prediction_over_the_estimate_runs_nothing(uncached: FlaskClient, runs: Runs) -> None:
    """A lossy 999-object page: within the limit lossless, over it lossy; refused naming the limit, its maximum and
    the fields that cost most."""
    assert work_units(Scenario.model_validate({"page": LOSSY_999["page"]})) <= MAX_WORK_UNITS
    body = _limit_problem(uncached.post("/api/v1/predict", json=LOSSY_999))
    message = body["errors"][0]["message"]
    assert f"at most {MAX_WORK_UNITS:,} allowed (max_work_units)" in message
    assert "page.object_count" in message and "network.loss_rate" in message
    assert runs.count == 0


def test_a_split_proxy_prediction_over_the_estimate_runs_nothing(uncached: FlaskClient, runs: Runs) -> None:
    """A split-proxy path relays every segment over three legs: three times a direct path's units."""
    doc = {"proxy": {"architecture": "split_proxy"}, "page": LOSSY_999["page"], "protocols": SEVEN[:4]}
    body = _limit_problem(uncached.post("/api/v1/predict", json=doc))
    assert "proxy.architecture" in body["errors"][0]["message"]
    assert runs.count == 0


@pytest.mark.parametrize(
    "sweep",
    [
        {
            "field": "network.rtt_ms",
            "start": 10,
            "stop": 1000,
            "steps": 200,
            "scenario": {"network": {"loss_rate": 0.01}},
        },
        {  # the issue's: 130 loss rates of a one-object page over seven protocols (accepted at 1.43 s before)
            "field": "network.loss_rate",
            "start": 0.001,
            "stop": 0.2,
            "steps": 130,
            "scenario": {"page": {"object_count": 1, "object_size_bytes": 2544}, "protocols": SEVEN},
        },
    ],
    ids=["200-rtts-lossy", "130-loss-rates"],
)
def test_a_lossy_sweep_over_the_estimate_runs_nothing(uncached: FlaskClient, runs: Runs, sweep: dict[str, Any]) -> None:
    body = _limit_problem(uncached.post("/api/v1/sweep", json=sweep))
    assert body["errors"][0]["path"] == "steps"
    assert "(max_work_units)" in body["errors"][0]["message"]
    assert runs.count == 0


def test_a_lossy_comparison_over_the_estimate_runs_nothing(uncached: FlaskClient, runs: Runs) -> None:
    """Six lossy scenarios, each within the limit, together past it: a 422 page naming the limit and the fields."""
    r = uncached.get("/compare?page.object_count=100&network.loss_rate=0.02&n=6")
    assert r.status_code == 422
    text = r.get_data(as_text=True)
    assert f"at most {MAX_WORK_UNITS:,} allowed (max_work_units)" in text
    assert "network.loss_rate" in text and "page.object_count" in text
    assert runs.count == 0


def test_a_lossy_calculator_page_over_the_estimate_runs_nothing(uncached: FlaskClient, runs: Runs) -> None:
    """The calculator's form puts the limit's message at the fields that cost most, the loss rate among them."""
    r = uncached.get("/?page.object_count=999&network.loss_rate=0.01")
    assert r.status_code == 400
    text = r.get_data(as_text=True)
    assert f"at most {MAX_WORK_UNITS:,} allowed (max_work_units)" in text
    for field in ("f-network-loss_rate", "f-page-object_count"):
        assert f'aria-describedby="{field}-help {field}-error"' in text
    assert runs.count == 0


def test_the_cli_refuses_a_lossy_prediction_before_running(
    runs: Runs, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from latency_lab.cli import main

    path = tmp_path / "lossy.json"
    path.write_text(json.dumps(LOSSY_999), encoding="utf-8")
    assert main(["predict", str(path)]) == 2
    err = capsys.readouterr().err
    assert f"at most {MAX_WORK_UNITS:,} allowed (max_work_units)" in err
    assert "Traceback" not in err
    assert runs.count == 0


@pytest.mark.parametrize(
    "doc",
    [
        {
            "protocols": ["getall"],
            "page": {"html_bytes": 11_000_000, "object_bytes": []},
            "http": {"server_write_bytes": 1},
        },
        {  # found by bench/worst_case.py: 100-byte DATA frames, each a step; refused by the budget after 0.16 s
            "protocols": ["h2", "h3"],
            "network": {"loss_rate": 0.01},
            "tcp": {"mss_bytes": 38123},
            "multiplex": {"frame_bytes": 100},
            "page": {"html_bytes": 2_371_165, "object_count": 66, "object_size_bytes": 46737},
        },
        {  # 64 KiB requests in 100-byte segments
            "protocols": ["http10"],
            "tcp": {"mss_bytes": 100},
            "http": {"request_bytes": 65536},
            "page": {"html_bytes": 1000, "object_count": 1000, "object_size_bytes": 500},
        },
    ],
    ids=["one-byte-writes", "small-frames", "large-requests"],
)
def test_writes_frames_and_requests_smaller_than_a_segment_are_counted_up_front(
    uncached: FlaskClient, runs: Runs, doc: dict[str, Any]
) -> None:
    """What the step budget counts beside segments (the server's writes, HTTP/2 and HTTP/3 DATA frames, a request's
    segments past its first) is in the estimate too, so such a page is refused before it runs."""
    body = _limit_problem(uncached.post("/api/v1/predict", json=doc))
    assert "(max_work_units)" in body["errors"][0]["message"]
    assert runs.count == 0


def test_a_calculator_page_of_requests_cut_into_window_rounds_runs_nothing(uncached: FlaskClient, runs: Runs) -> None:
    """An h2 and h3 page of 298 tiny objects whose 46 KB requests a 1548-byte window cuts a segment a round (each a
    stall of the critical path: 9,400 a run on h2, 11,700 on h3) was accepted, its rounds uncounted, and took 1.40 s
    of CPU, its sweep plot 1.05 s of it (bench/worst_case.py seed 28, 2026-11-29): the requests' rounds are priced
    (limits._request_rounds), so it is refused before anything runs, at the receive window among the fields."""
    query = (
        "page.object_count=298&page.object_size_bytes=3&multiplex.request_bytes=46188"
        "&tcp.receive_window_bytes=1548&protocols=h2,h3"
    )
    r = uncached.get("/?" + query)
    assert r.status_code == 400
    text = r.get_data(as_text=True)
    assert f"at most {MAX_WORK_UNITS:,} allowed (max_work_units)" in text
    assert 'aria-describedby="f-tcp-receive_window_bytes-help f-tcp-receive_window_bytes-error"' in text
    assert runs.count == 0
