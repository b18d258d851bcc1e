"""The calculator's sweep plot (issue 13): with the native engine a Microscape preset's sweep has every one of its
field's 121 points, and where the budget cannot hold them all (lossy points, which the Python engine runs) the points
kept still span the field's range."""

from __future__ import annotations

import itertools
import json
import random
import re
from typing import Any

import pytest
from flask.testing import FlaskClient

from latency_lab import PRESETS, Scenario
from latency_lab.analysis import native
from latency_lab.analysis.sweep import SweepRequest, base_document, point, sweep
from latency_lab.scenario import limits
from latency_lab_web.calculator import views
from latency_lab_web.calculator.views import LOSS_CHART, _within_budget, fill_plan, known_cost, most_slices
from latency_lab_web.web.form import SWEEP_FILL_WORK_BUDGET, SWEEP_POINTS, SWEEP_WORK_BUDGET, SWEEPS


def _rows(html: str, label: str = "Sweep data table") -> int:
    """Rows of the sweep plot's data table (or the table labelled ``label``)."""
    table = html.split(f'aria-label="{label}"', 1)[1].split("</table>", 1)[0]
    return len(re.findall(r"<tr[ >]", table)) - 1  # less the header row


@pytest.mark.parametrize("preset", ["n97-wan", "n97-lan", "n97-ppp"])
def test_microscape_sweep_has_every_point(client: FlaskClient, preset: str) -> None:
    if not native.available():
        pytest.fail("the native engine is not built: pip install -e . (the README's commands)")
    html = client.get(f"/?preset={preset}", follow_redirects=True).get_data(as_text=True)  # RTT: the default sweep
    assert _rows(html) == len(SWEEPS["network.rtt_ms"].values) == SWEEP_POINTS >= 100
    assert "Left out" not in html.split('aria-label="Sweep data table"', 1)[0].rsplit("<figure", 1)[-1]


@pytest.mark.parametrize("preset", ["n97-wan", "p98-satellite"])
@pytest.mark.parametrize("rate", [0.0005, 0.01])
def test_with_loss_on_the_sweeps_keep_their_points(client: FlaskClient, preset: str, rate: float) -> None:
    """Issue 25: with loss on, the RTT sweep kept 5 of its 121 points (3 on these pages on 2026-11-28, with 4 of the
    loss chart's 14 rates). Priced as the loss analysis costs with its periods in C++ (limits.NATIVE_LOSS_STEP_COST,
    NATIVE_LOSS_RUN_STEPS) within LOSSY_SWEEP_WORK_BUDGET, the loss chart keeps every rate and the RTT sweep points
    across its whole range, and the sweeps' own step budget never cuts what the estimate let through."""
    if not native.available():
        pytest.fail("the native engine is not built: pip install -e . (the README's commands)")
    html = client.get(f"/?preset={preset}&network.loss_rate={rate}").get_data(as_text=True)
    assert "The sweep cannot run" not in html
    assert _rows(html, "Loss data table") == len(LOSS_CHART.values)  # 0 and 13 rates up to 0.2
    assert _rows(html) >= 10
    table = html.split('aria-label="Sweep data table"', 1)[1].split("</table>", 1)[0]
    firsts = re.findall(r'<th scope="row" class="num">([^<]+)</th>', table)
    assert firsts[0] == "1" and firsts[-1] == "1,000"  # the field's range, thinned evenly


def test_every_field_has_about_a_hundred_points_where_it_can() -> None:
    for param, choice in SWEEPS.items():
        if param == "tcp.initial_window_segments":  # 1 to 16 segments: sixteen whole numbers
            assert len(choice.values) == 16
            continue
        assert len(choice.values) >= 100, param
        assert list(choice.values) == sorted(set(choice.values))


def test_a_budget_too_small_for_all_points_keeps_them_spread() -> None:
    s = Scenario()
    costs = [(10, float(v), s) for v in range(100)]
    kept = [v for _, v, _ in _within_budget(costs, 100)]  # room for 10 of the 100
    assert kept[0] == 0.0 and kept[-1] == 99.0 and len(kept) <= 10
    gaps = {b - a for a, b in itertools.pairwise(kept)}
    assert max(gaps) - min(gaps) <= 12  # evenly thinned (the last gap may be shorter)
    assert [v for _, v, _ in _within_budget(costs, 10_000)] == [float(v) for v in range(100)]


def test_lossy_points_cost_what_the_engine_that_runs_them_and_the_loss_analysis_take() -> None:
    lossless = Scenario.model_validate({"page": {"object_count": 10, "object_size_bytes": 3000}})
    lossy = Scenario.model_validate(
        {"page": {"object_count": 10, "object_size_bytes": 3000}, "network": {"loss_rate": 0.01}}
    )
    units = limits.work_units(lossless)
    assert units == sum(limits.base_units(lossy, p) for p in lossy.protocols)
    factor, fixed = limits.RUN_COSTS["loss"]
    assert limits.work_units(lossy) == units * factor + fixed * len(lossy.protocols)  # the estimate prices loss
    if native.available():  # priced by the engine that runs it: the native one, loss analysis included
        assert limits.run_cost(lossless) == units
        per_run = limits.NATIVE_LOSS_RUN_STEPS // limits.PLAIN_STEPS_PER_UNIT  # the loss analysis's fixed part
        assert limits.run_cost(lossy) == units * limits.NATIVE_LOSS_STEP_COST + per_run * len(lossy.protocols)
        split = Scenario.model_validate(
            {**lossy.model_dump(), "protocols": ["http10", "persistent"], "proxy": {"architecture": "split_proxy"}}
        )
        split_units = sum(limits.base_units(split, p) for p in split.protocols)
        # split proxies run natively too (since 2026-11-29): priced as any lossy native run, over their three legs
        assert limits.run_cost(split) == split_units * limits.NATIVE_LOSS_STEP_COST + per_run * len(split.protocols)
    else:
        assert limits.run_cost(lossy) == units * limits.PYTHON_STEP_COST * (1 + limits.LOSS_STEP_COST)
    if native.available():  # every point of a Microscape sweep fits the budget (739 units a point)
        microscape = Scenario.model_validate(PRESETS["n97-wan"].document)
        assert SWEEP_WORK_BUDGET >= SWEEP_POINTS * limits.run_cost(microscape)


# --- issue 25: the values left out for the budget, filled in by follow-up requests ----------------------------------


def _fill_address(html: str, chart: str = "sweep") -> str | None:
    """The first follow-up request the page's ``chart`` asks for (its plot's data-fill), or None."""
    found = re.search(r'data-fill="(/sweep-points\?[^"]*chart=' + chart + r'&amp;slice=0)"', html)
    return found.group(1).replace("&amp;", "&") if found else None


def _follow(client: FlaskClient, url: str | None) -> list[dict[str, Any]]:
    answers = []
    while url:
        response = client.get(url)
        assert response.status_code == 200, response.get_data(as_text=True)
        answers.append(response.get_json())
        url = answers[-1]["next"]
    return answers


def _drawn(html: str, figure: str = "fig-sweep") -> dict[str, dict[float, float]]:
    """The page's own figure: each trace's points (x -> y), by the trace's name."""
    block = html.split(f'id="{figure}">', 1)[1].split("</script>", 1)[0]
    return {t["name"]: dict(zip(t["x"], t["y"], strict=True)) for t in json.loads(block.replace("<\\/", "</"))["data"]}


def _caption(html: str, chart: str = "sweep") -> str:
    return html.split(f'<span id="{chart}-left-out">', 1)[1].split("</span>", 1)[0]


@pytest.mark.parametrize("preset", ["p98-satellite", "n97-wan"])
def test_the_follow_up_requests_draw_every_value_once_as_one_sweep_would(client: FlaskClient, preset: str) -> None:
    """The page keeps its first answer (the points within its budget); its follow-up requests draw the values it left
    out, each once, each slice priced within one request's work, with the numbers a sweep of every value gives."""
    if not native.available():
        pytest.fail("the native engine is not built: pip install -e . (the README's commands)")
    query = f"preset={preset}&network.loss_rate=0.01"
    html = client.get("/?" + query).get_data(as_text=True)
    page = _drawn(html)
    page_values = sorted(next(iter(page.values())))
    assert 2 <= len(page_values) < 121  # the first answer as before: what fits its budget
    assert _caption(html).startswith("Left out (over this page&#39;s time budget)")
    answers = _follow(client, _fill_address(html))
    assert len(answers) >= 2
    filled = [v for a in answers for v in a["values"]]
    scenario = Scenario.model_validate(
        {**PRESETS[preset].document, "network": {**PRESETS[preset].document.get("network", {}), "loss_rate": 0.01}}
    )
    req = SweepRequest(scenario=scenario, field="network.rtt_ms", values=list(SWEEPS["network.rtt_ms"].values))
    base = base_document(req)
    pts = [(v, point(req, base, v)) for v in req.values or ()]
    assert sorted(page_values + filled) == sorted(v for v, _ in pts)  # every valid value (all 121 here), once
    assert len(set(filled)) == len(filled) and not set(filled) & set(page_values)
    for a in answers:  # each slice's estimated work within one request's budget
        assert sum(limits.run_cost(dict(pts)[v]) for v in a["values"]) <= SWEEP_FILL_WORK_BUDGET
    with limits.budget(10**12):  # the whole sweep at once, as no request may run it
        full = sweep(req, pts)
    at = {v: i for i, v in enumerate(full["values"])}
    for a in answers:
        traces = {t["name"]: dict(zip(t["x"], t["y"], strict=True)) for t in a["figure"]["data"]}
        for s in full["series"]:
            for v in a["values"]:
                assert traces[s["protocol"]][v] == pytest.approx(s["page_load_ms"][at[v]], rel=1e-12)
                expected = traces[f"{s['protocol']}, expected with loss"][v]
                assert expected == pytest.approx(s["expected_with_loss_ms"][at[v]], rel=1e-12)
        assert len(re.findall(r"<tr data-value=", a["rows"])) == len(a["values"])
    assert answers[-1]["caption"] == "No value was left out for the time budget."
    assert all(a["caption"].startswith("Left out (over") for a in answers[:-1])
    again = client.get("/?" + query).get_data(as_text=True)  # the first answer does not change
    assert sorted(next(iter(_drawn(again).values()))) == page_values


def test_the_loss_chart_fills_in_its_rates_too(client: FlaskClient) -> None:
    """A page whose loss chart leaves rates out (a 60-object page at 1 %) asks for them as the sweep plot does."""
    if not native.available():
        pytest.fail("the native engine is not built: pip install -e . (the README's commands)")
    html = client.get("/?preset=n97-wan&network.loss_rate=0.01&page.object_count=60").get_data(as_text=True)
    assert _caption(html, "loss").startswith("Left out to keep within this page")
    drawn = sorted(next(iter(_drawn(html, "fig-loss").values())))
    answers = _follow(client, _fill_address(html, "loss"))
    filled = [v for a in answers for v in a["values"]]
    assert len(set(filled)) == len(filled) and not set(filled) & set(drawn)
    assert sorted({0.0, *drawn, *filled}) == sorted(LOSS_CHART.values)  # the figure leaves 0 off its log axis
    assert answers[-1]["caption"] == "No rate was left out for the time budget."


def test_the_fill_plan_keeps_each_slice_within_the_budget() -> None:
    s = Scenario()
    left = [(c, float(i), s) for i, c in enumerate([30, 30, 50, 120, 10, 60, 40, 100])]
    slices = fill_plan(left, budget=100)
    assert [i for sl in slices for i in sl] == [0, 1, 2, 4, 5, 6, 7]  # in order, each once; 120 fits no request
    assert all(sum(left[i][0] for i in sl) <= 100 for sl in slices)
    assert fill_plan([], budget=100) == []


@pytest.mark.parametrize(
    ("extra", "field"),
    [
        ("chart=bars", "chart"),
        ("slice=-1", "slice"),
        ("slice=one", "slice"),
        ("slice=999", "slice"),
        ("slice=1&slice=2", "slice"),
        ("network.rtt_ms=fast", "network.rtt_ms"),
        ("preset=nope", "preset"),
        ("sweep=nothing", "sweep"),
    ],
)
def test_bad_input_to_the_follow_up_request_is_a_400_naming_the_field(
    client: FlaskClient, extra: str, field: str
) -> None:
    base = "preset=n97-wan&network.loss_rate=0.01&"
    response = client.get(f"/sweep-points?{base}{extra}".replace("preset=n97-wan&preset=", "preset="))
    assert response.status_code == 400
    assert field in response.get_json()["errors"]


def test_a_page_without_its_own_loss_chart_has_none_to_fill(client: FlaskClient) -> None:
    response = client.get("/sweep-points?preset=n97-wan&chart=loss")
    assert response.status_code == 400 and "chart" in response.get_json()["errors"]
    lossless = client.get("/?preset=n97-wan").get_data(as_text=True)
    assert "data-fill=" not in lossless  # every point fits: nothing to ask for
    assert client.get("/sweep-points?preset=n97-wan").status_code == 400  # no slice 0: nothing was left out


def test_the_sweep_csv_gives_every_value_or_is_refused_before_it_runs(client: FlaskClient) -> None:
    """The CSV runs what is not in the cache if it fits one request's work, else refuses before running anything; once
    the page has filled its plot in, the CSV has all 121 values."""
    if not native.available():
        pytest.fail("the native engine is not built: pip install -e . (the README's commands)")
    query = "preset=n97-wan&network.loss_rate=0.01"
    cold = client.get("/sweep.csv?" + query)
    assert cold.status_code == 422 and "none was run" in cold.get_data(as_text=True)
    html = client.get("/?" + query).get_data(as_text=True)
    _follow(client, _fill_address(html))
    rows = client.get("/sweep.csv?" + query).get_data(as_text=True).splitlines()
    protocols = len(PRESETS["n97-wan"].document.get("protocols") or Scenario().protocols)
    assert len(rows) == 1 + 121 * protocols
    values = [float(r.split(",")[0]) for r in rows[1:]]
    assert values == sorted(values) and len(set(values)) == 121


def test_a_follow_up_request_refused_never_works_out_the_page_address(
    client: FlaskClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The page's shortest address (``latency_lab_web.web.form.canonical``: the scenario validated once more for each field
    given, 10-30 ms for a page of 1,000 objects) is worked out when first asked; a follow-up request refused after
    reading the query never asks it (bench/worst_case.py lossy_fill, 2026-11-29: a quarter of a refusal's 80 ms)."""
    from latency_lab_web.web import form

    calls: list[str] = []
    real = form.canonical

    def counted(state: form.State, scenario: Scenario) -> list[tuple[str, str]]:
        calls.append(state.preset)
        return real(state, scenario)

    monkeypatch.setattr(form, "canonical", counted)
    refused = client.get("/sweep-points?preset=n97-wan&network.rtt_ms=95&chart=sweep&slice=3")
    assert refused.status_code == 400 and "slice" in refused.get_json()["errors"]
    assert calls == []
    page = client.get("/?preset=n97-wan&network.rtt_ms=95")  # the control: the page itself asks it, once
    assert page.status_code == 200
    assert calls == ["n97-wan"]


# --- issue 26: a follow-up request for a slice the page does not have, refused before its points are priced ----------


@pytest.mark.parametrize("preset", ["n97-wan", "p98-satellite", "m98-tt-proxy"])
@pytest.mark.parametrize("rate", [0.0, 0.01])
def test_the_known_cost_of_a_point_is_what_pricing_it_gives(preset: str, rate: float) -> None:
    """Where :func:`known_cost` says what each point of a chart's field costs without validating it, every valid
    point of the field's values (and of the loss chart's) costs that (:func:`latency_lab.scenario.limits.run_cost`)."""
    doc = PRESETS[preset].document
    scenario = Scenario.model_validate({**doc, "network": {**doc.get("network", {}), "loss_rate": rate}})
    checked = 0
    for choice in [*SWEEPS.values(), LOSS_CHART]:
        known = known_cost(scenario, choice.param)
        if known is None:
            continue
        req = SweepRequest(scenario=scenario, field=choice.param, values=list(choice.values))
        base = base_document(req)
        for value in choice.values:
            try:
                s = point(req, base, value)
            except ValueError:
                continue
            assert limits.run_cost(s) == known(value), (choice.param, value)
            checked += 1
    assert checked >= 4 * 121


def _slices(costs: list[int], valid: list[bool], page_budget: int, budget: int) -> int | None:
    """How many follow-up requests the page makes of the valid values (None: it draws no chart), as fill_of does."""
    priced = [(c, float(i), Scenario()) for i, (c, ok) in enumerate(zip(costs, valid, strict=True)) if ok]
    kept = _within_budget(priced, page_budget)
    if len(kept) < 2:
        return None
    values = {v for _, v, _ in kept}
    return len(fill_plan([p for p in priced if p[1] not in values], budget))


def test_most_slices_is_at_least_what_any_valid_values_give() -> None:
    """Whichever of the values turn out valid, the page has no more follow-up requests than :func:`most_slices` says,
    and no chart where its two cheapest values cost more than its budget."""
    rng = random.Random(26)
    budget = 1000
    for _ in range(3000):
        n = rng.choice([2, 3, 5, 14, 40, 121])
        each = rng.choice([1, 7, 90, 300, 999, 1000, 1500])
        costs = [each if rng.random() < 0.7 else rng.randint(1, 2 * budget) for _ in range(n)]
        page_budget = rng.choice([0, 1, 50, 400, 999, 1000])
        valid = [rng.random() < rng.choice([1.0, 0.9, 0.5]) for _ in range(n)]
        found = _slices(costs, valid, page_budget, budget)
        if sum(sorted(costs)[:2]) > page_budget:
            assert found is None
        if found is not None:
            assert found <= most_slices(costs, page_budget, budget), (costs, valid, page_budget)


class _Counted:
    """Calls of the real :func:`latency_lab_web.calculator.views.costed` (the chart's points validated and priced)."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.calls = 0
        real = views.costed

        def counted(*args: Any, **kwargs: Any) -> Any:
            self.calls += 1
            return real(*args, **kwargs)

        monkeypatch.setattr(views, "costed", counted)


@pytest.mark.parametrize(
    ("query", "field"),
    [
        ("preset=n97-wan&network.loss_rate=0.01&chart=sweep&slice=40", "slice"),  # it has 5
        ("preset=n97-wan&network.loss_rate=0.0001&chart=loss&slice=2", "slice"),  # its rates all fit the page
        ("preset=n97-wan&network.loss_rate=0.01&page.object_count=300&page.object_size_bytes=2544", "chart"),  # none
    ],
    ids=["past-the-last", "nothing-left-out", "too-few-fit"],
)
def test_a_slice_the_page_cannot_have_is_refused_before_any_point_is_priced(
    monkeypatch: pytest.MonkeyPatch, query: str, field: str
) -> None:
    """A follow-up request of a field whose points cost what the page's scenario says (the round-trip time, the loss
    chart's rates) is refused before any of its 121 points is validated or priced (:func:`costed`): a fresh app, the
    caches empty, as a never-seen scenario's (bench/worst_case.py lossy_fill: 123 ms of CPU on main, 2026-11-28)."""
    from latency_lab_web import create_app

    counted = _Counted(monkeypatch)
    client = create_app({"TESTING": True, "PAGE_CACHE_BYTES": 0, "SWEEP_CACHE_BYTES": 0}).test_client()
    response = client.get("/sweep-points?" + query)
    assert response.status_code == 400
    assert field in response.get_json()["errors"]
    assert counted.calls == 0
    fine = client.get("/sweep-points?preset=n97-wan&network.loss_rate=0.01&chart=sweep&slice=4")  # the control
    assert fine.status_code == 200 and fine.get_json()["next"] is None
    assert counted.calls == 1


def test_a_follow_up_request_of_preconnected_connections_is_priced_not_stopped(client: FlaskClient) -> None:
    """A lossy persistent_parallel page of one object with 64 connections preconnected (TLS 1.2, 8 session tickets)
    ran 10 budget steps a unit where the estimate allows 5 (its connections counted one an object): its follow-up
    request was stopped by the step budget while running, after 58-84 ms of CPU (bench/worst_case.py seed 28,
    lossy_fill, 2026-11-29). Priced with every connection it opens (limits.preconnected), the page keeps fewer points
    and its slice runs to the end within the steps its units may take."""
    query = (
        "network.loss_rate=0.00036&http.parallel_connections=64&http.preconnect=true&tls.version=1.2"
        "&tls.session_tickets=8&page.object_count=1&protocols=persistent_parallel,persistent,http10,pipelined"
    )
    response = client.get("/sweep-points?chart=sweep&slice=0&" + query)
    assert response.status_code == 200, response.get_data(as_text=True)[:300]
    assert response.get_json()["values"]
