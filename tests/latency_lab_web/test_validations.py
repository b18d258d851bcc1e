"""How often a request validates a scenario (issue 17: one GET of a preset once validated it 17 times): the
calculator's page validates its scenario once and each point of its sweep plot once, and the API's sweep each
point once. Counted at the one door every validation of a :class:`~latency_lab.Scenario` goes through, its pydantic
validator (``Scenario.model_validate``, ``Scenario(...)``, a default factory)."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterator
from typing import Any

import pytest
from flask.testing import FlaskClient

from latency_lab import PRESETS, Scenario
from latency_lab_web.web.form import DEFAULT_SWEEP, SWEEPS


class CountingValidator:
    """Scenario's validator, counting the documents it is given (as JSON text, keys sorted)."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.documents: Counter[str] = Counter()

    def validate_python(self, data: Any, *args: Any, **kwargs: Any) -> Any:
        self.documents[json.dumps(data, sort_keys=True, default=repr)] += 1
        return self.inner.validate_python(data, *args, **kwargs)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    def scenarios(self) -> list[dict[str, Any]]:
        """Each document validated, parsed back."""
        return [json.loads(doc) for doc in self.documents]


@pytest.fixture
def validations(monkeypatch: pytest.MonkeyPatch) -> Iterator[CountingValidator]:
    counting = CountingValidator(Scenario.__pydantic_validator__)
    monkeypatch.setattr(Scenario, "__pydantic_validator__", counting)
    yield counting


def swept(doc: dict[str, Any], field: str) -> Any:
    section, name = field.split(".")
    return doc.get(section, {}).get(name)


def test_the_counter_sees_every_validation(validations: CountingValidator) -> None:
    Scenario.model_validate({"network": {"rtt_ms": 5}})
    Scenario.model_validate({"network": {"rtt_ms": 5}})
    Scenario()
    assert validations.documents == {json.dumps({"network": {"rtt_ms": 5}}): 2, "{}": 1}


def test_a_preset_page_validates_its_scenario_once_and_each_sweep_point_once(
    client: FlaskClient, validations: CountingValidator
) -> None:
    response = client.get("/?preset=n97-wan")
    assert response.status_code == 200
    assert set(validations.documents.values()) == {1}, validations.documents.most_common(3)
    choice = SWEEPS[DEFAULT_SWEEP]
    # the preset's document once, then one document per value of the sweep plot
    assert sum(1 for doc in validations.scenarios() if doc == PRESETS["n97-wan"].document) == 1
    points = sorted(swept(doc, choice.param) for doc in validations.scenarios() if doc != PRESETS["n97-wan"].document)
    assert points == sorted(choice.values)
    assert validations.documents.total() == 1 + len(choice.values)


def test_the_sweep_csv_validates_each_point_once(client: FlaskClient, validations: CountingValidator) -> None:
    response = client.get("/sweep.csv?preset=h96-lan&sweep=page.object_count")
    assert response.status_code == 200
    assert set(validations.documents.values()) == {1}, validations.documents.most_common(3)
    rows = response.get_data(as_text=True).splitlines()[1:]
    shown = {float(row.split(",")[0]) for row in rows}
    assert validations.documents.total() == 1 + len(SWEEPS["page.object_count"].values)
    assert shown <= {float(v) for v in SWEEPS["page.object_count"].values}


def test_an_api_sweep_validates_each_point_once(client: FlaskClient, validations: CountingValidator) -> None:
    body = {"scenario": {"network": {"rtt_ms": 50}}, "field": "tcp.mss_bytes", "values": [536, 1460, 536, 9000]}
    response = client.post("/api/v1/sweep", json=body)
    assert response.status_code == 200
    assert set(validations.documents.values()) == {1}, validations.documents.most_common(3)
    assert sorted(swept(doc, "tcp.mss_bytes") for doc in validations.scenarios()) == [536, 1460, 9000]
    generated = {"field": "network.rtt_ms", "start": 10, "stop": 1000, "steps": 5, "spacing": "log"}
    validations.documents.clear()
    assert client.post("/api/v1/sweep", json=generated).status_code == 200
    # the base scenario left out is the defaults (Scenario(), once), then each of the 5 points once
    assert validations.documents.total() == 6 and set(validations.documents.values()) == {1}
