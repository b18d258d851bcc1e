"""The answer the API and the command line write (latency_lab.analysis.answer.listed): at most MAX_LISTED events and path
stalls per result, with how many there are in all; every other part, and the totals read off all of them, as
predict gives them (issue 26: a 9.67 MB style sheet in one-segment rounds answered 56.7 MB of JSON, 1.6 s to write)."""

from __future__ import annotations

from latency_lab import predict
from latency_lab.analysis import result as R
from latency_lab.analysis.answer import listed
from latency_lab.scenario.limits import MAX_LISTED

#: One segment a round over a 1.5 MB style sheet: about 2,000 events and 1,000 path stalls on persistent.
LONG = {"protocols": ["persistent", "h2"], "page": {"css_bytes": 1_500_000}, "tcp": {"receive_window_bytes": 1994}}


def test_a_long_result_lists_the_first_events_and_stalls_and_says_how_many_in_all() -> None:
    full = predict(LONG)
    out = listed(full, limit=100)
    for r, f in zip(out["results"], full["results"], strict=True):
        assert len(f["events"]) > 100 and len(f["path_stalls"]) > 100  # the scenario is long enough to cut
        assert r["events"] == f["events"][:100]
        assert r["path_stalls"] == f["path_stalls"][:100]
        assert r.get("events_total") == len(f["events"])
        assert r.get("path_stalls_total") == len(f["path_stalls"])
        rest = {k: v for k, v in r.items() if k not in ("events", "path_stalls", "events_total", "path_stalls_total")}
        assert rest == {k: v for k, v in f.items() if k not in ("events", "path_stalls")}  # times, counts unchanged


def test_the_totals_sit_after_their_lists_in_the_typed_order() -> None:
    out = listed(predict(LONG), limit=100)
    keys = list(out["results"][0])
    assert keys == [k for k in R.ProtocolResult.__annotations__ if k in keys]
    assert keys.index("path_stalls_total") == keys.index("path_stalls") + 1
    assert keys.index("events_total") == keys.index("events") + 1


def test_a_short_result_is_listed_whole_with_its_totals() -> None:
    full = predict({"protocols": ["http10"]})
    out = listed(full)
    r, f = out["results"][0], full["results"][0]
    assert r["events"] == f["events"] and r["path_stalls"] == f["path_stalls"]
    assert r.get("events_total") == len(f["events"]) <= MAX_LISTED


def test_the_document_predict_gave_is_not_changed() -> None:
    full = predict(LONG)
    n = len(full["results"][0]["events"])
    listed(full, limit=10)
    assert len(full["results"][0]["events"]) == n and "events_total" not in full["results"][0]


def test_the_default_bound_is_the_documented_limit() -> None:
    full = predict(LONG)
    out = listed(full)
    assert all(len(r["events"]) == MAX_LISTED for r in out["results"])
