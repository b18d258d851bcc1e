"""The calculator's sweep plot (issue 13): with the native engine a Microscape preset's sweep has every one of its
field's 121 points, and where the budget cannot hold them all (lossy points, which the Python engine runs) the points
kept still span the field's range."""

from __future__ import annotations

import itertools
import re

import pytest
from flask.testing import FlaskClient

from app.calculator.views import LOSS_CHART, _within_budget
from app.web.form import SWEEP_POINTS, SWEEP_WORK_BUDGET, SWEEPS
from model import PRESETS, Scenario
from model.analysis import native
from model.scenario import limits


def _rows(html: str, label: str = "Sweep data table") -> int:
    """Rows of the sweep plot's data table (or the table labelled ``label``)."""
    table = html.split(f'aria-label="{label}"', 1)[1].split("</table>", 1)[0]
    return len(re.findall(r"<tr>", table)) - 1  # less the header row


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
        assert limits.run_cost(split) == split_units * limits.FALLBACK_STEP_COST * (1 + limits.LOSS_STEP_COST)
    else:
        assert limits.run_cost(lossy) == units * limits.FALLBACK_STEP_COST * (1 + limits.LOSS_STEP_COST)
    if native.available():  # every point of a Microscape sweep fits the budget (739 units a point)
        microscape = Scenario.model_validate(PRESETS["n97-wan"].document)
        assert SWEEP_WORK_BUDGET >= SWEEP_POINTS * limits.run_cost(microscape)
