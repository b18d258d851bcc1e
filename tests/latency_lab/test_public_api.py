"""The Python API (latency_lab/__init__.py) as careful as the command line and the JSON API (issue 30): strict types,
validation on assignment, refusals in the front ends' words (latency_lab.scenario.errors), expression() taking what
predict() takes, symbols reachable by name, the sweep public."""

from __future__ import annotations

import pytest
import sympy
from pydantic import ValidationError

import latency_lab
from latency_lab import SYMBOLS, Scenario, ScenarioError, SweepError, expression, predict, sweep, symbol
from latency_lab.analysis import sweep as sweep_module
from latency_lab.scenario.errors import problems, validate_scenario

ONE = {"protocols": ["persistent"], "page": {"object_count": 1, "object_size_bytes": 1000}}


def _refusal(doc: dict) -> ScenarioError:
    with pytest.raises(ScenarioError) as err:
        Scenario.model_validate(doc)
    return err.value


@pytest.mark.parametrize(
    ("doc", "line"),
    [
        (
            {"network": {"rtt_ms": "70"}},
            'network.rtt_ms: Input should be a valid number (got "70"); allowed: a number from 0 to 10,000 ms',
        ),
        (
            {"network": {"rtt_ms": True}},
            "network.rtt_ms: Input should be a valid number (got true); allowed: a number from 0 to 10,000 ms",
        ),
        (
            {"http": {"parallel_connections": 1.5}},
            "http.parallel_connections: Input should be a valid integer (got 1.5); allowed: a whole number from 1 to 64",
        ),
        (
            {"page": {"object_bytes": [1, "2"]}},
            'page.object_bytes[1]: Input should be a valid integer (got "2"); allowed: a whole number of bytes',
        ),
        (
            {"network": {"rtt_ms": -1}},
            "network.rtt_ms: Input should be greater than or equal to 0 (got -1); allowed: a number from 0 to 10,000 ms",
        ),
    ],
)
def test_strict_types_refused_in_words(doc: dict, line: str) -> None:
    """A string, a boolean or a fraction where a number or a count goes is refused (as the command line refuses it),
    the message naming the field, the value and the range; a ScenarioError is a ValueError and a ValidationError."""
    err = _refusal(doc)
    assert str(err) == line
    assert isinstance(err, ValueError) and isinstance(err, ValidationError)
    assert err.errors()[0]["loc"][0] in doc  # pydantic's own details stay


def test_python_types_that_are_exact_are_accepted() -> None:
    """An int where a number goes, and any sequence where a list goes (latency_lab.ALL_PROTOCOLS is a tuple)."""
    s = Scenario(network={"rtt_ms": 70}, protocols=latency_lab.ALL_PROTOCOLS, page={"object_bytes": (1, 2)})
    assert s.network.rtt_ms == 70.0 and isinstance(s.network.rtt_ms, float)
    assert s.protocols == list(latency_lab.ALL_PROTOCOLS) and s.page.object_bytes == [1, 2]


def test_the_same_words_as_the_command_line() -> None:
    """One source of the messages: a Python refusal reads, line for line, as the command line's problems
    (latency_lab.scenario.errors.problems of the front ends' validation), unknown fields with the closest name."""
    doc = {"network": {"rtt": 50, "bandwidth_bps": 10}, "tcpp": {}}
    with pytest.raises(ValidationError) as front:
        validate_scenario(doc)
    lines = [p.text for p in problems(front.value)]
    assert str(_refusal(doc)).splitlines() == lines
    assert any(line.startswith("network.rtt: unknown field") and "did you mean 'rtt_ms'?" in line for line in lines)
    assert any(
        line.startswith("network.bandwidth_bps: ") and "from 1,000 to 100,000,000,000 bit/s" in line for line in lines
    )
    assert any("did you mean 'tcp'?" in line for line in lines)
    assert [p.text for p in _refusal(doc).problems] == lines


def test_a_whole_float_stays_a_json_front_ends_reading() -> None:
    """1460.0 is an integer in JSON (the command line and the API read it so); a Python caller gives an int."""
    assert validate_scenario({"tcp": {"mss_bytes": 1460.0}}).tcp.mss_bytes == 1460
    assert "tcp.mss_bytes: Input should be a valid integer (got 1460.0)" in str(
        _refusal({"tcp": {"mss_bytes": 1460.0}})
    )


def test_assignment_is_validated_nested_too_and_a_refusal_changes_nothing() -> None:
    s = Scenario()
    with pytest.raises(ScenarioError, match=r"^network.rtt_ms: .* \(got -1\); allowed: a number from 0 to 10,000 ms$"):
        s.network.rtt_ms = -1
    with pytest.raises(ScenarioError, match=r"network.rtt_ms: Input should be a valid number"):
        s.network.rtt_ms = "70"
    with pytest.raises(ScenarioError, match=r"^network.rtt: unknown field .*; did you mean 'rtt_ms'\?$"):
        s.network.rtt = 5
    with pytest.raises(ScenarioError, match=r"uplink_delay_ms \(1000.0\) cannot exceed rtt_ms"):
        s.network.uplink_delay_ms = 1000  # the section's own rule, refused after the field's type passed
    with pytest.raises(ScenarioError, match=r"^scenario: protocols must not repeat$"):
        s.protocols = ["h2", "h2"]
    assert (
        s.network.rtt_ms == 70.0
        and s.network.uplink_delay_ms is None
        and s.protocols == list(latency_lab.SEED_PROTOCOLS)
    )
    assert "uplink_delay_ms" not in s.network.model_fields_set and "protocols" not in s.model_fields_set
    s.network.rtt_ms = 20
    assert s.network.rtt_ms == 20.0


def test_rules_between_sections_are_checked_again_before_a_prediction() -> None:
    """A section does not know its scenario: a nested assignment that breaks a rule between sections is refused by
    predict() and expression(), in words, before anything runs."""
    s = Scenario.model_validate(ONE)
    s.tcp.receive_window_bytes = 2000
    s.tcp.mss_bytes = 3000
    for run in (lambda: predict(s), lambda: expression(s, "persistent")):
        with pytest.raises(ScenarioError, match=r"^scenario: tcp.receive_window_bytes \(2000\) must be at least"):
            run()


def test_a_profile_assigned_brings_its_defaults() -> None:
    """The fields left out follow the TCP profile, also one assigned after the scenario was made."""
    s = Scenario.model_validate({"tcp": {"mss_bytes": 1000}})
    s.tcp.profile = "linux"
    linux = Scenario.model_validate({"tcp": {"profile": "linux", "mss_bytes": 1000}})
    assert s.tcp == linux.tcp


def test_expression_takes_what_predict_takes() -> None:
    doc = {"network": {"rtt_ms": 50}, **ONE}
    from_dict = expression(doc, "persistent")
    from_scenario = expression(Scenario.model_validate(doc), "persistent")
    assert from_dict["page_load_ms"] == from_scenario["page_load_ms"]
    with pytest.raises(ScenarioError, match="did you mean 'rtt_ms'"):
        expression({"network": {"rtt": 50}}, "persistent")
    with pytest.raises(ValueError, match=r"unknown protocol 'h4'.*did you mean 'h3'\?"):
        expression(doc, "h4")


def test_expression_refuses_a_protocol_the_scenario_forbids() -> None:
    """A protocol the scenario did not ask for is held to the scenario's rules for it."""
    split = {"proxy": {"architecture": "split_proxy"}, "protocols": ["persistent"]}
    with pytest.raises(ScenarioError, match=r"protocols h2 cannot be used with proxy\.architecture 'split_proxy'"):
        expression(split, "h2")


def test_symbols_can_be_differentiated_by_name() -> None:
    """sympy.Symbol("RTT") is not the expression's symbol (theirs have assumptions); the ones by name are: the
    derivative by the round-trip time is the round-trip count."""
    e = expression(ONE, "persistent")
    trips = predict(ONE)["results"][0]["counts"]["round_trips"]
    assert sympy.diff(e["page_load_ms"], sympy.Symbol("RTT")) == 0  # why the names are given
    assert sympy.diff(e["page_load_ms"], symbol("RTT")) == trips
    assert sympy.diff(e["page_load_ms"], e["symbols"]["RTT"]) == trips
    assert set(e["symbols"].values()) >= e["page_load_ms"].free_symbols
    assert symbol("RTT") is SYMBOLS["RTT"] and list(SYMBOLS) == list(latency_lab.GLOSSARY)
    with pytest.raises(ValueError, match=r"unknown symbol 'rtt'.*did you mean 'RTT'\?"):
        symbol("rtt")


def test_the_sweep_is_public_and_typed() -> None:
    out = sweep(ONE, "network.rtt_ms", [10, 20.5])
    req = sweep_module.SweepRequest.model_validate(
        {"scenario": ONE, "field": "network.rtt_ms", "values": [10, 20.5]}, strict=True
    )
    assert out == sweep_module.sweep(req)
    assert out["values"] == [10, 20.5] and out["protocols"] == ["persistent"]
    (series,) = out["series"]
    assert len(series["page_load_ms"]) == 2 and series["page_load_ms"][0] < series["page_load_ms"][1]
    generated = sweep(ONE, "page.object_count", start=1, stop=4, steps=4)
    assert generated["values"] == [1, 2, 3, 4]


def test_a_sweep_keeps_a_nested_assignment() -> None:
    """A field assigned to a section the scenario was not given is part of the sweep's base."""
    s = Scenario.model_validate(ONE)
    s.network.bandwidth_bps = 10e6
    out = sweep(s, "network.rtt_ms", [10])
    assert out["scenario"]["network"]["bandwidth_bps"] == 10e6
    assert (
        out["series"][0]["page_load_ms"]
        == sweep({**ONE, "network": {"bandwidth_bps": 10e6}}, "network.rtt_ms", [10])["series"][0]["page_load_ms"]
    )


@pytest.mark.parametrize(
    ("kwargs", "words"),
    [
        ({"field": "network.rtt", "values": [1]}, "did you mean 'network.rtt_ms'?"),
        ({"field": "network.rtt_ms", "values": [1, -5]}, "values[1]: Input should be greater than or equal to 0"),
        ({"field": "network.rtt_ms", "values": ["7"]}, 'values[0]: Input should be a valid number (got "7")'),
        ({"field": "network.rtt_ms", "start": "1", "stop": 2, "steps": 2}, "start: Input should be a valid number"),
    ],
)
def test_a_sweep_refused_in_words(kwargs: dict, words: str) -> None:
    with pytest.raises(SweepError) as err:
        sweep(ONE, **kwargs)
    assert words in str(err.value) and isinstance(err.value, ValueError)


def test_the_public_names() -> None:
    for name in latency_lab.__all__:
        assert getattr(latency_lab, name) is not None, name
    assert {"sweep", "SweepResult", "SweepError", "ScenarioError", "symbol", "SYMBOLS", "__version__"} <= set(
        latency_lab.__all__
    )
