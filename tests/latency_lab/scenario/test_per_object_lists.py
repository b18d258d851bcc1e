"""latency_lab.scenario.schema: the refusals of page's per-object lists, word for word.

object_parents, object_origins, object_urgency, object_incremental and object_early_hint each give one value per
embedded object: one per object, and none with page.css_bytes or page.css_replaces_images above 0. These documents
(one per list per check, an earlier field refused, several lists at once, an assignment) and the exact text of their
refusals (:class:`~latency_lab.scenario.errors.ScenarioError`, the front ends' words, one line per problem) were
recorded from main at 0a7f77a, when each list's validator still wrote those checks itself; the API's problem
documents and the CLI quote them, so they must not change.
"""

from __future__ import annotations

from typing import Any

import pytest

from latency_lab.scenario.errors import ScenarioError
from latency_lab.scenario.schema import Page, Scenario

#: (page section, the refusal's lines)
REFUSED: list[tuple[dict[str, Any], list[str]]] = [
    (
        {"object_parents": [0, 0]},
        ["page.object_parents: object_parents must give one parent per embedded object: 3 objects, 2 parents"],
    ),
    (
        {"object_bytes": [1, 2], "object_parents": [0, 0, 0]},
        ["page.object_parents: object_parents must give one parent per embedded object: 2 objects, 3 parents"],
    ),
    (
        {"object_count": 3, "object_size_bytes": 10, "object_parents": [0, 2, 0]},
        [
            "page.object_parents: object_parents[1] (2) must be between 0 and 1: embedded object 2 is revealed by the HTML (0) or by an earlier embedded object"
        ],
    ),
    (
        {"object_parents": [0, 0, 0], "css_bytes": 100},
        [
            "page.object_parents: object_parents cannot be used with page.css_bytes above 0 (it adds or drops embedded objects, so the parents would name other objects); allowed: page.css_bytes 0"
        ],
    ),
    (
        {"object_parents": [0, 0, 0], "css_replaces_images": 1},
        [
            "page.object_parents: object_parents cannot be used with page.css_replaces_images above 0 (it adds or drops embedded objects, so the parents would name other objects); allowed: page.css_replaces_images 0"
        ],
    ),
    (
        {"object_parents": [0, 5, 0], "css_bytes": 100},
        [
            "page.object_parents: object_parents[1] (5) must be between 0 and 1: embedded object 2 is revealed by the HTML (0) or by an earlier embedded object"
        ],
    ),
    (
        {"object_parents": [0], "css_bytes": 100},
        ["page.object_parents: object_parents must give one parent per embedded object: 3 objects, 1 parents"],
    ),
    (
        {"object_count": -1, "object_size_bytes": 10, "object_parents": [0]},
        [
            "page.object_count: Input should be greater than or equal to 0 (got -1); allowed: a whole number from 0 to 1,000 or null"
        ],
    ),
    (
        {"css_bytes": -1, "object_parents": [0]},
        [
            "page.css_bytes: Input should be greater than or equal to 0 (got -1); allowed: a whole number from 0 to 100,000,000 bytes"
        ],
    ),
    (
        {"origins": [{}], "object_origins": [0, 1]},
        ["page.object_origins: object_origins must give one origin per embedded object: 3 objects, 2 origins"],
    ),
    (
        {"origins": [{}], "object_origins": [0, 2, 0]},
        [
            "page.object_origins: object_origins[1] (2) must be between 0 and 1: 0 the HTML's origin, k the k-th of page.origins (1 given)"
        ],
    ),
    (
        {"object_origins": [0, 1, 0]},
        [
            "page.object_origins: object_origins[1] (1) must be between 0 and 0: 0 the HTML's origin, k the k-th of page.origins (0 given)"
        ],
    ),
    (
        {"origins": [{}], "object_origins": [0, 1, 0], "css_bytes": 100},
        [
            "page.object_origins: object_origins cannot be used with page.css_bytes above 0 (it adds or drops embedded objects, so the origins would name other objects); allowed: page.css_bytes 0"
        ],
    ),
    (
        {"origins": [{}], "object_origins": [0, 1, 0], "css_replaces_images": 2},
        [
            "page.object_origins: object_origins cannot be used with page.css_replaces_images above 0 (it adds or drops embedded objects, so the origins would name other objects); allowed: page.css_replaces_images 0"
        ],
    ),
    (
        {"origins": [{}], "object_origins": [0, 9, 0], "css_replaces_images": 2},
        [
            "page.object_origins: object_origins[1] (9) must be between 0 and 1: 0 the HTML's origin, k the k-th of page.origins (1 given)"
        ],
    ),
    (
        {"origins": [{"dns_ms": -1}], "object_origins": [0, 0]},
        [
            "page.origins[0].dns_ms: Input should be greater than or equal to 0 (got -1); allowed: a number from 0 to 10,000 ms"
        ],
    ),
    (
        {"origins": [{}], "css_replaces_images": -1, "object_origins": [0]},
        [
            "page.css_replaces_images: Input should be greater than or equal to 0 (got -1); allowed: a whole number from 0 to 1,000"
        ],
    ),
    (
        {"object_urgency": [3, 3]},
        ["page.object_urgency: object_urgency must give one value per embedded object: 3 objects, 2 values"],
    ),
    (
        {"object_bytes": [1], "object_urgency": [8]},
        ["page.object_urgency: object_urgency[0] (8) must be between 0 (the most urgent) and 7 (RFC 9218 4.1)"],
    ),
    (
        {"object_urgency": [0, -1, 7]},
        ["page.object_urgency: object_urgency[1] (-1) must be between 0 (the most urgent) and 7 (RFC 9218 4.1)"],
    ),
    (
        {"object_urgency": [3, 3, 3], "css_bytes": 1},
        [
            "page.object_urgency: object_urgency cannot be used with page.css_bytes above 0 (it adds or drops embedded objects, so the values would name other objects); allowed: page.css_bytes 0"
        ],
    ),
    (
        {"object_urgency": [3, 3, 3], "css_replaces_images": 1},
        [
            "page.object_urgency: object_urgency cannot be used with page.css_replaces_images above 0 (it adds or drops embedded objects, so the values would name other objects); allowed: page.css_replaces_images 0"
        ],
    ),
    (
        {"object_urgency": [3, 9, 3], "css_bytes": 1},
        ["page.object_urgency: object_urgency[1] (9) must be between 0 (the most urgent) and 7 (RFC 9218 4.1)"],
    ),
    (
        {"object_count": 2000, "object_size_bytes": 1, "object_urgency": [3]},
        [
            "page.object_count: Input should be less than or equal to 1000 (got 2000); allowed: a whole number from 0 to 1,000 or null"
        ],
    ),
    (
        {"object_incremental": [True]},
        ["page.object_incremental: object_incremental must give one value per embedded object: 3 objects, 1 values"],
    ),
    (
        {"object_incremental": [True, False, True], "css_bytes": 5},
        [
            "page.object_incremental: object_incremental cannot be used with page.css_bytes above 0 (it adds or drops embedded objects, so the values would name other objects); allowed: page.css_bytes 0"
        ],
    ),
    (
        {"object_incremental": [True, False, True], "css_replaces_images": 3},
        [
            "page.object_incremental: object_incremental cannot be used with page.css_replaces_images above 0 (it adds or drops embedded objects, so the values would name other objects); allowed: page.css_replaces_images 0"
        ],
    ),
    (
        {"object_bytes": "x", "object_incremental": [True]},
        [
            'page.object_bytes: Input should be a valid list (got "x"); allowed: null or an array of at most 1,000 items, each a whole number of bytes'
        ],
    ),
    (
        {"object_early_hint": [True, False, True, False]},
        ["page.object_early_hint: object_early_hint must give one value per embedded object: 3 objects, 4 values"],
    ),
    (
        {"object_early_hint": [True, False, True], "css_bytes": 5},
        [
            "page.object_early_hint: object_early_hint cannot be used with page.css_bytes above 0 (it adds or drops embedded objects, so the values would name other objects); allowed: page.css_bytes 0"
        ],
    ),
    (
        {"object_early_hint": [True, False, True], "css_replaces_images": 1},
        [
            "page.object_early_hint: object_early_hint cannot be used with page.css_replaces_images above 0 (it adds or drops embedded objects, so the values would name other objects); allowed: page.css_replaces_images 0"
        ],
    ),
    (
        {"object_size_bytes": -1, "object_count": 3, "object_early_hint": [True]},
        [
            "page.object_size_bytes: Input should be greater than or equal to 0 (got -1); allowed: a whole number from 0 to 100,000,000 bytes or null",
            "page.object_early_hint: object_early_hint must give one value per embedded object: 3 objects, 1 values",
        ],
    ),
    (
        {
            "object_parents": [0],
            "object_origins": [0],
            "object_urgency": [1],
            "object_incremental": [True],
            "object_early_hint": [False],
        },
        [
            "page.object_parents: object_parents must give one parent per embedded object: 3 objects, 1 parents",
            "page.object_origins: object_origins must give one origin per embedded object: 3 objects, 1 origins",
            "page.object_urgency: object_urgency must give one value per embedded object: 3 objects, 1 values",
            "page.object_incremental: object_incremental must give one value per embedded object: 3 objects, 1 values",
            "page.object_early_hint: object_early_hint must give one value per embedded object: 3 objects, 1 values",
        ],
    ),
    (
        {
            "object_parents": [0, 0, 0],
            "object_origins": [0, 0, 0],
            "object_urgency": [1, 1, 1],
            "object_incremental": [True, True, True],
            "object_early_hint": [False, False, False],
            "css_bytes": 9,
        },
        [
            "page.object_parents: object_parents cannot be used with page.css_bytes above 0 (it adds or drops embedded objects, so the parents would name other objects); allowed: page.css_bytes 0",
            "page.object_origins: object_origins cannot be used with page.css_bytes above 0 (it adds or drops embedded objects, so the origins would name other objects); allowed: page.css_bytes 0",
            "page.object_urgency: object_urgency cannot be used with page.css_bytes above 0 (it adds or drops embedded objects, so the values would name other objects); allowed: page.css_bytes 0",
            "page.object_incremental: object_incremental cannot be used with page.css_bytes above 0 (it adds or drops embedded objects, so the values would name other objects); allowed: page.css_bytes 0",
            "page.object_early_hint: object_early_hint cannot be used with page.css_bytes above 0 (it adds or drops embedded objects, so the values would name other objects); allowed: page.css_bytes 0",
        ],
    ),
]

#: (a valid page's fields, the field then assigned, its value, the refusal's lines): validate_assignment
ASSIGNED: list[tuple[dict[str, Any], str, list[Any], list[str]]] = [
    (
        {"css_bytes": 100},
        "object_parents",
        [0, 0, 0],
        [
            "page.object_parents: object_parents cannot be used with page.css_bytes above 0 (it adds or drops embedded objects, so the parents would name other objects); allowed: page.css_bytes 0"
        ],
    ),
    (
        {"object_bytes": [1, 2]},
        "object_origins",
        [0, 0, 0],
        ["page.object_origins: object_origins must give one origin per embedded object: 2 objects, 3 origins"],
    ),
    (
        {"css_replaces_images": 1},
        "object_urgency",
        [1, 2, 3],
        [
            "page.object_urgency: object_urgency cannot be used with page.css_replaces_images above 0 (it adds or drops embedded objects, so the values would name other objects); allowed: page.css_replaces_images 0"
        ],
    ),
    (
        {},
        "object_urgency",
        [1, 2, 30],
        ["page.object_urgency: object_urgency[2] (30) must be between 0 (the most urgent) and 7 (RFC 9218 4.1)"],
    ),
    (
        {"object_bytes": [1, 2]},
        "object_early_hint",
        [True],
        ["page.object_early_hint: object_early_hint must give one value per embedded object: 2 objects, 1 values"],
    ),
]


@pytest.mark.parametrize(("page", "lines"), REFUSED)
def test_per_object_list_refused_word_for_word(page: dict[str, Any], lines: list[str]) -> None:
    with pytest.raises(ScenarioError) as info:
        Scenario.model_validate({"page": page})
    assert str(info.value).split("\n") == lines
    assert [p.path for p in info.value.problems] == [line.split(": ", 1)[0] for line in lines]


@pytest.mark.parametrize(("start", "name", "value", "lines"), ASSIGNED)
def test_per_object_list_assignment_refused_word_for_word(
    start: dict[str, Any], name: str, value: list[Any], lines: list[str]
) -> None:
    page = Page(**start)
    with pytest.raises(ScenarioError) as info:
        setattr(page, name, value)
    assert str(info.value).split("\n") == lines
    assert getattr(page, name) is None  # the refused value is not kept


@pytest.mark.parametrize(
    "page",
    [
        {"object_parents": [0, 1, 2], "object_origins": [0, 1, 1], "origins": [{}]},
        {"object_bytes": [5, 6], "object_urgency": [0, 7], "object_incremental": [True, False]},
        {"object_count": 0, "object_size_bytes": 1, "object_parents": [], "object_early_hint": []},
        {"object_early_hint": [True, False, True], "css_bytes": 0, "css_replaces_images": 0},
    ],
)
def test_per_object_lists_of_the_right_length_accepted(page: dict[str, Any]) -> None:
    given = Scenario.model_validate({"page": page}).page
    for name, value in page.items():
        if name.startswith("object_") and name not in ("object_bytes", "object_count", "object_size_bytes"):
            assert getattr(given, name) == value
