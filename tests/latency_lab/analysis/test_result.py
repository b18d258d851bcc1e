"""The output document's types (latency_lab.analysis.result, what predict returns) and the API's response models made
from them (latency_lab.api_schema, the OpenAPI document's source) name the same keys, and real answers have exactly
those keys: required ones always, optional ones only when asked for."""

from __future__ import annotations

from typing import Any, NotRequired, TypedDict, get_type_hints

import pytest
from pydantic import BaseModel, ValidationError

from latency_lab import ALL_PROTOCOLS, PRESETS, predict, preset
from latency_lab import api_schema as api
from latency_lab.analysis import result as R
from latency_lab.analysis.sweep import SweepRequest, SweepResult, SweepSeries, sweep

#: Each typed dictionary and the response model that documents the same part of the answer.
PAIRS: list[tuple[Any, type[BaseModel]]] = [
    (R.Prediction, api.PredictOutput),
    (R.ProtocolResult, api.ProtocolResult),
    (R.ObjectTiming, api.ObjectTiming),
    (R.Event, api.Event),
    (R.StallOnPath, api.StallOnPath),
    (R.PacketRow, api.Packet),
    (R.ExpectedWithLoss, api.ExpectedWithLoss),
    (R.PageResult, api.PageResult),
    (R.Formula, api.Formula),
    (R.FormulaText, api.FormulaText),
    (R.GlossaryEntry, api.GlossaryEntry),
    (api.FormulaAnswer, api.FormulaOutput),
    (SweepResult, api.SweepOutput),
    (SweepSeries, api.SweepSeries),
]


def keys(td: Any) -> tuple[frozenset[str], frozenset[str]]:
    return frozenset(td.__required_keys__), frozenset(td.__optional_keys__)


@pytest.mark.parametrize(("td", "model"), PAIRS, ids=[td.__name__ for td, _ in PAIRS])
def test_the_types_and_the_response_models_name_the_same_keys(td: Any, model: type[BaseModel]) -> None:
    required, optional = keys(td)
    fields = model.model_fields
    assert list(fields) == list(get_type_hints(td))  # the type's keys, in its order
    # what the types say may be missing is what the API documents as optional, and the other way round
    assert {name for name, f in fields.items() if not f.is_required()} == set(optional)
    assert {name for name, f in fields.items() if f.is_required()} == set(required)
    assert model.__doc__ == api.DESCRIPTIONS[td.__name__]


def test_every_type_in_the_output_has_its_model() -> None:
    assert set(api.MODELS) == {td.__name__ for td, _ in PAIRS}
    assert [m.__name__ for m in api.MODELS.values()] == [api.API_NAMES.get(n, n) for n in api.MODELS]


class Toy(TypedDict):
    protocol: str
    sizes: list[int]
    entries: dict[str, R.GlossaryEntry]
    note: str | None
    later: NotRequired[list[R.FormulaText]]


def test_a_model_is_made_from_a_type_with_the_same_fields_nested_models_and_words(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setitem(api.DESCRIPTIONS, "Toy", "A toy.")
    monkeypatch.setitem(api.DESCRIPTIONS, "Toy.sizes", "Its sizes.")
    made = dict(api.MODELS)
    toy = api.response_model(Toy, made)
    assert toy.__name__ == "Toy" and toy.__doc__ == "A toy."
    schema = toy.model_json_schema()
    assert schema["required"] == ["protocol", "sizes", "entries", "note"]
    assert schema["properties"]["sizes"] == {
        "description": "Its sizes.",
        "items": {"type": "integer"},
        "title": "Sizes",
        "type": "array",
    }
    assert schema["properties"]["note"]["anyOf"] == [{"type": "string"}, {"type": "null"}]
    assert schema["properties"]["later"]["default"] is None
    assert set(schema["$defs"]) == {"GlossaryEntry", "FormulaText"}  # the same models the output uses
    good = {
        "protocol": "x",
        "sizes": [1],
        "entries": {"s": {"meaning": "m", "unit": "ms", "field": None}},
        "note": None,
    }
    toy.model_validate(good)
    for bad in (
        {**good, "sizes": ["a"]},
        {k: v for k, v in good.items() if k != "note"},
        {**good, "entries": {"s": {}}},
    ):
        with pytest.raises(ValidationError):
            toy.model_validate(bad)


def test_a_refinement_must_say_no_less_than_the_type(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(api.DESCRIPTIONS, "Toy", "A toy.")
    monkeypatch.setitem(api.REFINED, "Toy.protocol", api.Protocol)
    toy = api.response_model(Toy, dict(api.MODELS))
    with pytest.raises(ValidationError):
        toy.model_validate({"protocol": "http11", "sizes": [], "entries": {}, "note": None})
    monkeypatch.setitem(api.REFINED, "Toy.sizes", api.Breakdown)  # a model for a list: not a refinement
    with pytest.raises(TypeError, match=r"Toy\.sizes"):
        api.response_model(Toy, dict(api.MODELS))


def test_a_description_of_no_field_is_an_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(api.DESCRIPTIONS, "ProtocolResult.load_time_ms", "A field that is not there.")
    with pytest.raises(KeyError, match=r"ProtocolResult\.load_time_ms"):
        api._made()


def test_a_result_missing_a_key_or_with_a_null_count_is_not_the_documented_answer() -> None:
    out = predict({"protocols": ["persistent"]})
    api.PredictOutput.model_validate(out)
    r = out["results"][0]
    for bad in (
        {k: v for k, v in r.items() if k != "events"},
        {**r, "protocol": "http11"},
        {**r, "breakdown_ms": {**r["breakdown_ms"], "server": None}},
        {**r, "counts": {**r["counts"], "packets": 1.5}},
    ):
        with pytest.raises(ValidationError):
            api.PredictOutput.model_validate({**out, "results": [bad]})


def check(doc: Any, td: Any, where: str) -> None:
    """``doc`` has every required key of ``td``, no key it does not name; nested parts checked too."""
    required, optional = keys(td)
    assert isinstance(doc, dict), where
    assert required <= doc.keys(), f"{where}: missing {sorted(required - doc.keys())}"
    assert doc.keys() <= required | optional, f"{where}: unknown {sorted(doc.keys() - required - optional)}"


NESTED = {
    "results": R.ProtocolResult,
    "objects": R.ObjectTiming,
    "events": R.Event,
    "packets": R.PacketRow,
    "pages": R.PageResult,
}


def check_prediction(out: Any, where: str) -> None:
    check(out, R.Prediction, where)
    for r in out["results"]:
        at = f"{where}/{r['protocol']}"
        check(r, R.ProtocolResult, at)
        assert tuple(r["counts"]) == R.COUNT_NAMES, at
        assert all(isinstance(v, int) for v in r["counts"].values()), at
        check(r["expected_with_loss"], R.ExpectedWithLoss, at)
        for key in ("objects", "events", "packets", "pages"):
            for item in r.get(key, []):
                check(item, NESTED[key], f"{at}/{key}")
        for page in r.get("pages", []):
            assert tuple(page["counts"]) == R.PAGE_COUNT_NAMES, at
        if "formula" in r:
            check(r["formula"], R.Formula, at)
            check(r["formula"]["page_load_ms"], R.FormulaText, at)
    for entry in out.get("glossary", {}).values():
        check(entry, R.GlossaryEntry, where)
    api.PredictOutput.model_validate(out)


@pytest.mark.parametrize("name", sorted(PRESETS))
def test_every_preset_answers_with_exactly_the_typed_keys(name: str) -> None:
    doc = preset(name).model_dump()
    relayed = doc["proxy"]["architecture"] == "split_proxy"  # the split proxies relay HTTP/1.x only
    doc["protocols"] = [p for p in ALL_PROTOCOLS if not (relayed and p in ("h2", "h3"))]
    check_prediction(predict(doc, packets=True), name)


def test_a_session_and_formulas_answer_with_exactly_the_typed_keys() -> None:
    doc = {"protocols": ["persistent", "h2"], "session": {"pages": 2}, "page": {"object_bytes": [3000, 9000]}}
    out = predict(doc, packets=True, formulas=True)
    assert all("pages" in r and "formula" in r for r in out["results"])
    assert "glossary" in out
    check_prediction(out, "session")


def test_a_plain_answer_leaves_the_optional_parts_out() -> None:
    out = predict({"protocols": ["http10"]})
    assert "glossary" not in out
    assert not {"pages", "packets", "formula"} & out["results"][0].keys()
    check_prediction(out, "plain")


def test_a_sweep_answers_with_exactly_the_typed_keys() -> None:
    req = SweepRequest.model_validate(
        {"field": "network.loss_rate", "values": [0, 0.01], "protocols": ["http10", "h3"], "scenario": {}}
    )
    out = sweep(req)
    check(out, SweepResult, "sweep")
    for series in out["series"]:
        check(series, SweepSeries, f"sweep/{series['protocol']}")
        assert tuple(series["counts"]) == R.COUNT_NAMES
        assert series["expected_with_loss_ms"][0] == series["page_load_ms"][0]  # no loss at the first value
        assert series["expected_with_loss_ms"][1] > series["page_load_ms"][1]
    api.SweepOutput.model_validate(out)
