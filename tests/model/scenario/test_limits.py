"""model.scenario.limits: the hard step budget the engine checks while it runs (issue "Serve it for a classroom")."""

from __future__ import annotations

import time

import pytest

from model import predict
from model.scenario import limits

#: Requests the work estimate used to let through and that held a worker for 30 s (issue 14, critical).
RUNAWAYS = [
    {
        "protocols": ["getall"],
        "page": {"html_bytes": 11_000_000, "object_bytes": []},
        "http": {"server_write_bytes": 1},
    },
    {"protocols": ["http10"], "page": {"html_bytes": 3_000_000, "object_bytes": []}, "http": {"server_write_bytes": 1}},
]


@pytest.mark.parametrize("doc", RUNAWAYS)
def test_a_runaway_stops_at_the_budget(doc: dict[str, object]) -> None:
    t0 = time.perf_counter()
    with pytest.raises(limits.WorkLimitExceeded) as caught, limits.budget():
        predict(doc)
    assert time.perf_counter() - t0 < 5  # refused before its writes are built (functional bound, not a benchmark)
    assert caught.value.limit.name == "max_engine_steps"
    assert caught.value.limit.actual > limits.MAX_ENGINE_STEPS
    assert "max_engine_steps" in str(caught.value)


def test_runs_in_one_budget_draw_from_it() -> None:
    doc = {"protocols": ["http10", "persistent"], "page": {"html_bytes": 6000, "object_bytes": [2000] * 5}}
    with limits.budget():
        predict(doc)
        used = limits.MAX_ENGINE_STEPS - limits.allowance()
    assert used > 0
    # a budget just short of what the two runs take stops the second one; exactly enough lets both finish
    with pytest.raises(limits.WorkLimitExceeded), limits.budget(used - 1):
        predict(doc)
    with limits.budget(used):
        predict(doc)
        assert limits.allowance() == 0


def test_outside_a_budget_each_run_gets_the_default() -> None:
    assert limits.allowance() == limits.MAX_ENGINE_STEPS
    predict({"protocols": ["http10"]})
    assert limits.allowance() == limits.MAX_ENGINE_STEPS


def test_a_traced_run_costs_more_steps() -> None:
    from model import Scenario, expression

    s = Scenario.model_validate({"protocols": ["persistent"], "page": {"html_bytes": 6000, "object_bytes": [2000]}})
    with limits.budget():
        predict(s)
        plain = limits.MAX_ENGINE_STEPS - limits.allowance()
    with limits.budget():
        expression(s, "persistent")
        traced = limits.MAX_ENGINE_STEPS - limits.allowance()
    assert traced == plain * limits.TRACED_STEP_COST
