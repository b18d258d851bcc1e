"""The exercise endpoints in the OpenAPI document (issue 27): /api/v1/exercises, /api/v1/exercises/{template} and
/api/v1/exercises/set are documented with their parameters' patterns (latency_lab.api_schema.EXERCISE_PARAMS), the API
checks requests against those very patterns, its answers are the documented schemas, and the rules a pattern cannot
say are 422s of a type the document lists in x-cross-field-rules."""

from __future__ import annotations

import re
from typing import Any

import pytest
from flask.testing import FlaskClient

from latency_lab.api_schema import EXERCISE_PARAMS, EXERCISE_RULES, ExerciseSet, ExerciseTemplates, ExerciseVariant
from latency_lab.studies import exercises as ex


def document(client: FlaskClient) -> dict[str, Any]:
    doc: dict[str, Any] = client.get("/api/openapi.json").get_json()
    return doc


def test_the_exercise_endpoints_are_documented(client: FlaskClient) -> None:
    doc = document(client)
    paths = doc["paths"]
    assert paths["/api/v1/exercises"]["get"]["responses"]["200"]["content"]["application/json"]["schema"] == {
        "$ref": "#/components/schemas/ExerciseTemplates"
    }
    one = paths["/api/v1/exercises/{template}"]["get"]
    params = {p["name"]: p for p in one["parameters"]}
    assert params["template"]["schema"]["enum"] == list(ex.TEMPLATES)
    assert {"seed", "answer"} <= set(params)
    set_params = {p["name"]: p for p in paths["/api/v1/exercises/set"]["get"]["parameters"]}
    assert set(set_params) == {"templates", "seeds", "lock", "key"}
    assert set_params["templates"]["required"] and set_params["seeds"]["required"]
    for name in ("ExerciseTemplates", "ExerciseVariant", "ExerciseSet"):
        assert name in doc["components"]["schemas"]
    rules = {r.get("type") for r in doc["x-cross-field-rules"]}
    assert set(EXERCISE_RULES) <= rules


def test_answers_are_the_documented_schemas(client: FlaskClient) -> None:
    ExerciseTemplates.model_validate(client.get("/api/v1/exercises").get_json())
    for name in ex.TEMPLATES:
        got = client.get(f"/api/v1/exercises/{name}?seed=ann&answer=12.5")
        assert got.status_code == 200, got.get_json()
        v = ExerciseVariant.model_validate(got.get_json())
        assert v.check is not None and v.solution is not None and v.answer is not None
    s = ExerciseSet.model_validate(client.get("/api/v1/exercises/set?templates=loss,dns_http&seeds=1-3").get_json())
    assert s.released and len(s.problems) == 6


@pytest.mark.parametrize(
    ("path", "name", "bad"),
    [
        ("/api/v1/exercises/loss?", "seed", ""),
        ("/api/v1/exercises/loss?", "seed", "a b"),
        ("/api/v1/exercises/loss?", "answer", ""),
        ("/api/v1/exercises/loss?", "answer", "1_000"),
        ("/api/v1/exercises/loss?", "answer", "nan"),
        ("/api/v1/exercises/set?templates=loss&seeds=1&", "lock", ""),
        ("/api/v1/exercises/set?templates=loss&seeds=1&", "key", "short"),
        ("/api/v1/exercises/set?seeds=1&", "templates", "loss,,loss"),
        ("/api/v1/exercises/set?templates=loss&", "seeds", "1, 2"),
    ],
)
def test_a_value_off_the_documented_pattern_is_a_422_naming_it(
    client: FlaskClient, path: str, name: str, bad: str
) -> None:
    pattern = EXERCISE_PARAMS[name]["schema"]["pattern"]
    assert not re.fullmatch(pattern, bad)  # the document's pattern refuses it too
    got = client.get(f"{path}{name}={bad}")
    assert got.status_code == 422
    assert got.get_json()["errors"][0]["path"] == name


@pytest.mark.parametrize(
    ("query", "kind"),
    [
        ("templates=loss&seeds=1-200", "seed_range"),
        ("templates=loss&seeds=9-3", "seed_range"),
        (f"templates={','.join(ex.TEMPLATES)}&seeds=1-20", "set_size"),
    ],
)
def test_rules_beyond_the_patterns_are_documented_422s(client: FlaskClient, query: str, kind: str) -> None:
    got = client.get(f"/api/v1/exercises/set?{query}")
    assert got.status_code == 422
    assert [e["type"] for e in got.get_json()["errors"]] == [kind]


def test_an_overflowing_answer_is_a_documented_422(client: FlaskClient) -> None:
    assert re.fullmatch(EXERCISE_PARAMS["answer"]["schema"]["pattern"], "1e999")
    got = client.get("/api/v1/exercises/loss?answer=1e999")
    assert got.status_code == 422 and got.get_json()["errors"][0]["type"] == "answer_range"
