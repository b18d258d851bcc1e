"""latency_lab_web.web.form.canonical: the shortest address of a scenario, each field read once and each trial
validating only its own section (issue 26), is the address found by validating every trial's whole document."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import parse_qsl, urlsplit

import pytest
from pydantic import ValidationError
from werkzeug.datastructures import MultiDict

from latency_lab.scenario.overlay import overlay
from latency_lab_web.web import form

CASE = Path(__file__).parents[3] / "bench" / "cases" / "page_663_lists_url.txt"

QUERIES = [
    "",
    "network.rtt_ms=150&protocols=http10,getall",
    "preset=n97-ppp&network.bandwidth_bps=28800&network.rtt_ms=5",  # a preset's own value: left out
    "preset=p98-satellite&network.rtt_ms=560&network.uplink_delay_ms=280",  # the one-way delays' rule
    "preset=n97-wan&page.object_count=42&page.object_size_bytes=1000",  # the objects' rule
    "preset=n97-wan&page.object_bytes=100,2000,30000&page.html_bytes=43008",  # the preset's HTML: left out
    "tcp.profile=linux&tcp.initial_window_segments=10&tcp.mss_bytes=1460",  # the profile's own values: left out
    "tcp.profile=bsd&tcp.delayed_ack_ms=200&http.parallel_connections=4&protocols=http10_parallel",
    "page.object_bytes=9000,20000,1500,3000&page.object_parents=0,1,1,0&page.object_named_at_bytes=100,5000,8000,6000"
    "&page.object_origins=0,1,2,1&page.origins.dns_ms=20,5&page.origins.preconnected=false,true"
    "&page.object_early_hint=true,false,false,true&protocols=h2,h3,persistent_parallel",
    "page.object_bytes=9000,20000&page.object_parents=0,0&page.object_named_at_bytes=6000,6000",  # offsets at the end
    "preset=m98-ss-proxy&proxy.client_leg.delay_ms=20&network.loss_rate=0.01",
    urlsplit(CASE.read_text().strip()).query,
]


def _by_whole_documents(state: form.State) -> list[str]:
    """The given fields kept by trying each without it, every trial's whole document validated (as before)."""
    assert state.scenario is not None
    target = state.scenario.model_dump(mode="json")
    kept = dict(state.given)
    for param in list(kept):
        trial = {k: v for k, v in kept.items() if k != param}
        try:
            doc = overlay(state.base_doc, form._param_doc(trial))
            same = form.validate_doc(doc).model_dump(mode="json") == target
        except ValidationError:
            same = False
        if same:
            del kept[param]
    return sorted(kept)


@pytest.mark.parametrize("query", QUERIES, ids=range(len(QUERIES)))
def test_the_fields_kept_are_those_whole_documents_keep(query: str) -> None:
    state = form.read(MultiDict(parse_qsl(query, keep_blank_values=True)))
    assert state.scenario is not None, state.errors
    pairs = form.canonical(state, state.scenario)
    kept = sorted(p for p, _ in pairs if p in state.given)
    assert kept == _by_whole_documents(state)
    again = form.read(MultiDict(pairs))
    assert again.scenario is not None
    assert again.scenario.model_dump() == state.scenario.model_dump()


def test_some_fields_are_left_out() -> None:
    """The cases above are not all kept whole: the comparison judges the leaving out, not only the keeping."""
    left_out = 0
    for query in QUERIES:
        state = form.read(MultiDict(parse_qsl(query, keep_blank_values=True)))
        assert state.scenario is not None
        left_out += len(state.given) - len(_by_whole_documents(state))
    assert left_out >= 4
