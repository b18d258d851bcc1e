"""latency_lab.scenario.schema: page.object_named_at_bytes (issue 28, HTML parsed as it streams), one offset per
embedded object within its parent's body, refused with the field and its range named."""

from __future__ import annotations

from typing import Any

import pytest

from latency_lab.scenario.errors import ScenarioError
from latency_lab.scenario.params import resolve
from latency_lab.scenario.schema import Scenario

REFUSED: list[tuple[dict[str, Any], str]] = [
    (
        {"object_named_at_bytes": [0, 0]},
        "page.object_named_at_bytes: object_named_at_bytes must give one offset per embedded object: 3 objects, "
        "2 offsets",
    ),
    (
        {"html_bytes": 6000, "object_named_at_bytes": [0, 6001, 0]},
        "page.object_named_at_bytes: object_named_at_bytes[1] (6001) must be between 0 and 6000: the byte of its "
        "parent (the HTML, 6000 bytes) after which embedded object 2 is named",
    ),
    (
        {"object_bytes": [300, 10], "object_parents": [0, 1], "object_named_at_bytes": [5, 301]},
        "page.object_named_at_bytes: object_named_at_bytes[1] (301) must be between 0 and 300: the byte of its parent "
        "(embedded object 1, 300 bytes) after which embedded object 2 is named",
    ),
    (
        {"object_named_at_bytes": [-1, 0, 0]},
        "page.object_named_at_bytes: object_named_at_bytes[0] (-1) must be between 0 and 6000: the byte of its "
        "parent (the HTML, 6000 bytes) after which embedded object 1 is named",
    ),
    (
        {"object_named_at_bytes": [0, 0, 0], "css_bytes": 100},
        "page.object_named_at_bytes: object_named_at_bytes cannot be used with page.css_bytes above 0 (it adds or "
        "drops embedded objects, so the offsets would name other objects); allowed: page.css_bytes 0",
    ),
]


@pytest.mark.parametrize(("page", "words"), REFUSED)
def test_a_bad_offset_is_refused_naming_the_field_and_range(page: dict[str, Any], words: str) -> None:
    with pytest.raises(ScenarioError) as exc:
        Scenario.model_validate({"page": page})
    assert str(exc.value).splitlines() == [words]


def test_a_refused_parent_is_reported_on_its_own() -> None:
    """A bad object_parents is its own refusal: the offsets are not checked against a parent that is not one."""
    with pytest.raises(ScenarioError) as exc:
        Scenario.model_validate({"page": {"object_parents": [0, 5, 0], "object_named_at_bytes": [0, 0, 0]}})
    assert [line.split(":")[0] for line in str(exc.value).splitlines()] == ["page.object_parents"]


def test_the_offsets_reach_params_on_the_wire() -> None:
    """Each offset as body bytes on the wire; at the parent's end (or omitted) every one: ``()``, as before."""
    page = {"html_bytes": 1000, "object_bytes": [400, 10], "object_parents": [0, 1]}

    def named(at: list[int] | None, **http: Any) -> tuple[int, ...]:
        doc: dict[str, Any] = {"page": {**page, "object_named_at_bytes": at}, "http": http}
        return resolve(Scenario.model_validate(doc)).object_named_at

    assert named(None) == ()
    assert named([1000, 400]) == ()
    assert named([10, 400]) == (10, 400)
    assert named([999, 3]) == (999, 3)
    # the HTML halved on the wire; the style sheet (an embedded object) is not compressed by html_compression_ratio
    assert named([999, 3], html_compression_ratio=0.5) == (500, 3)
    # a revisit: every body is empty, so every object is named at its parent's (empty) end
    revisit = {"page": {**page, "revalidate": True, "object_named_at_bytes": [0, 0]}}
    assert resolve(Scenario.model_validate(revisit)).object_named_at == ()
