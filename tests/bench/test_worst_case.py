"""bench/worst_case.py's random scenarios: every scenario parameter is drawn, either field by field or with the page
(it crashed twice on a new parameter it could not draw: page.origins' lists, 2026-11-29, and
page.origins.early_hint_preconnect, 2026-11-29, found only when the search was run)."""

from __future__ import annotations

import random

from pydantic import ValidationError

from bench import worst_case
from latency_lab import Scenario
from latency_lab_web.web.query import SCENARIO_PARAMS


def test_every_parameter_is_drawn() -> None:
    rng = random.Random(1)
    for param, spec in SCENARIO_PARAMS.items():
        if param in worst_case.PAGE_FIELDS or param == "protocols":
            continue
        worst_case.draw_value(rng, spec)  # raises ValueError on a kind it cannot draw


def test_the_page_draws_every_page_field() -> None:
    """Each of PAGE_FIELDS is a parameter and shows up in the drawn pages (a name the query no longer has, or a field
    the page generator forgot, fails)."""
    assert worst_case.PAGE_FIELDS <= set(SCENARIO_PARAMS)
    seen: set[str] = set()
    rng = random.Random(2)
    for _ in range(300):
        page = worst_case.draw_page(rng)
        for key, value in page.items():
            if key == "origins":
                seen |= {f"page.origins.{name}" for origin in value for name in origin}
            else:
                seen.add(f"page.{key}")
    assert worst_case.PAGE_FIELDS <= seen, sorted(worst_case.PAGE_FIELDS - seen)


def test_random_scenarios_are_mostly_valid() -> None:
    rng = random.Random(3)
    valid = 0
    for _ in range(200):
        try:
            Scenario.model_validate(worst_case.random_scenario(rng))
        except ValidationError:
            continue
        valid += 1
    assert valid >= 20
