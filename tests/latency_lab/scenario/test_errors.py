"""latency_lab.scenario.errors: a scenario's fields and validation errors in words."""

from __future__ import annotations

import dataclasses
import json
from typing import Any

import pytest
from pydantic import ValidationError

from latency_lab.scenario.errors import FieldSpec, Problem, allowed, field_path, problems, spec, unit, words
from latency_lab.scenario.schema import MAX_OBJECTS, Scenario


def problems_of(document: Any, at: tuple[str | int, ...] = ()) -> list[Problem]:
    with pytest.raises(ValidationError) as info:
        Scenario.model_validate(document)
    return problems(info.value, at=at)


def only_problem(document: Any) -> Problem:
    (problem,) = problems_of(document)
    return problem


# --- what a field allows ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("loc", "expected"),
    [
        # ranges, with the unit the name ends with
        (("network", "rtt_ms"), "a number from 0 to 10,000 ms"),
        (("network", "bandwidth_bps"), "a number from 1,000 to 100,000,000,000 bit/s"),
        (("network", "packet_overhead_bytes"), "a whole number from 0 to 1,000 bytes"),
        (("network", "loss_rate"), "a number from 0 to 0.2 per packet"),
        (("tcp", "delayed_ack_ms"), "a number from 0 to 500 ms or null"),
        (("http", "server_think_ms"), "a number from 0 to 60,000 ms"),
        # no unit
        (("http", "parallel_connections"), "a whole number from 1 to 64"),
        # whole numbers (int) and numbers (float)
        (("tcp", "mss_bytes"), "a whole number from 100 to 65,495 bytes or null"),
        (("tcp", "initial_window_segments"), "a whole number from 1 to 100 segments or null"),
        (("network", "uplink_delay_ms"), "a number from 0 to 10,000 ms or null"),
        # booleans
        (("http", "header_flush"), "true or false"),
        (("tcp", "nagle"), "true, false or null"),
        # Literal choices
        (("tcp", "profile"), "'bsd', 'ns3', 'rfc5681' or 'linux'"),
        (("tcp", "handshake"), "'three_way', 'none', 'ttcp' or 'fast_open'"),
        (
            ("protocols", 0),
            "'http10', 'http10_parallel', 'persistent', 'pipelined', 'getall', 'persistent_parallel', 'h2' or 'h3'",
        ),
        # arrays, objects
        (
            ("protocols",),
            "an array of 1 to 8 items, each 'http10', 'http10_parallel', 'persistent', 'pipelined', 'getall', 'persistent_parallel', 'h2' or 'h3'",
        ),
        (("page", "object_bytes"), f"null or an array of at most {MAX_OBJECTS:,} items, each a whole number of bytes"),
        (("page", "object_bytes", 3), "a whole number of bytes"),
        (
            ("network",),
            "an object with the fields rtt_ms, bandwidth_bps, uplink_delay_ms, downlink_delay_ms, "
            "uplink_bandwidth_bps, packet_overhead_bytes, loss_rate",
        ),
        # not a field
        (("network", "nonsense"), None),
        (("network", 0), None),
        (("network", "rtt_ms", "x"), None),
        (("nonsense",), None),
    ],
)
def test_allowed(loc: tuple[str | int, ...], expected: str | None) -> None:
    assert allowed(loc) == expected


@pytest.mark.parametrize(
    ("loc", "expected"),
    [
        (("tcp", "mss_bytes"), "a whole number from 100 to 65,495 bytes"),
        (("tcp", "nagle"), "true or false"),
        (("network", "rtt_ms"), "a number from 0 to 10,000 ms"),
        (("page", "object_bytes"), f"an array of at most {MAX_OBJECTS:,} items, each a whole number of bytes"),
    ],
)
def test_allowed_without_null(loc: tuple[str | int, ...], expected: str) -> None:
    assert allowed(loc, with_null=False) == expected


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("rtt_ms", "ms"),
        ("bandwidth_bps", "bit/s"),
        ("mss_bytes", "bytes"),
        ("initial_window_segments", "segments"),
        ("parallel_connections", ""),
        ("ms", ""),
    ],
)
def test_unit_from_the_name(name: str, expected: str) -> None:
    assert unit(name) == expected


def test_spec_of_an_optional_whole_number() -> None:
    s = spec(("tcp", "mss_bytes"))
    assert s is not None
    assert (s.kind, s.name, s.unit, s.low, s.high, s.nullable) == ("integer", "mss_bytes", "bytes", 100, 65_495, True)
    assert s.description == Scenario.model_fields["tcp"].annotation.model_fields["mss_bytes"].description  # type: ignore[union-attr]


def test_spec_of_choices_and_list_items() -> None:
    profile = spec(("tcp", "profile"))
    assert profile is not None and (profile.kind, profile.choices, profile.nullable) == (
        "choice",
        ("bsd", "ns3", "rfc5681", "linux"),
        False,
    )
    item = spec(("page", "object_bytes", 0))
    assert item is not None
    # A list item takes its list's name (and so its unit), and has no description of its own.
    assert (item.kind, item.name, item.unit, item.description) == ("integer", "object_bytes", "bytes", "")
    objects = spec(("page", "object_bytes"))
    assert objects is not None and objects.kind == "array" and objects.item == item


@pytest.mark.parametrize(
    ("field", "expected"),
    [
        (FieldSpec("number", "gap_ms", unit="ms", low=0, low_inclusive=False), "a number more than 0 ms"),
        (FieldSpec("integer", "n", high=10, high_inclusive=False), "a whole number less than 10"),
        (FieldSpec("number", "x", low=0.5), "a number at least 0.5"),
        (
            FieldSpec("number", "d_ms", unit="ms", low=0, high=1, low_inclusive=False),
            "a number more than 0 and at most 1 ms",
        ),
        (FieldSpec("number", "d_ms", unit="ms"), "a number of ms"),
        (FieldSpec("integer", "n"), "a whole number"),
        (FieldSpec("choice", "c", choices=("a",), nullable=True), "'a' or null"),
        (FieldSpec("array", "xs", min_items=2), "an array of at least 2 items"),
        (FieldSpec("array", "xs"), "an array of items"),
        (
            FieldSpec("array", "xs", item=FieldSpec("integer", "xs", nullable=True)),
            "an array of items, each a whole number or null",
        ),
    ],
)
def test_words_for_other_constraints(field: FieldSpec, expected: str) -> None:
    assert words(field) == expected


# --- paths ----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("loc", "expected"),
    [
        (("network", "rtt_ms"), "network.rtt_ms"),
        (("page", "object_bytes", 1), "page.object_bytes[1]"),
        (("protocols", 0), "protocols[0]"),
        ((2, "network", "rtt_ms"), "[2].network.rtt_ms"),
        ((2,), "[2]"),
        ((), ""),
    ],
)
def test_field_path(loc: tuple[str | int, ...], expected: str) -> None:
    assert field_path(loc) == expected


# --- problems -------------------------------------------------------------------------------------


def test_range_problem() -> None:
    p = only_problem({"network": {"rtt_ms": -5}})
    assert p.path == "network.rtt_ms"
    assert p.loc == ("network", "rtt_ms")
    assert p.type == "greater_than_equal"
    assert p.message == "Input should be greater than or equal to 0"
    assert p.allowed == "a number from 0 to 10,000 ms"
    assert p.value == -5
    assert p.text == (
        "network.rtt_ms: Input should be greater than or equal to 0 (got -5); allowed: a number from 0 to 10,000 ms"
    )


def test_integer_problem() -> None:
    p = only_problem({"tcp": {"mss_bytes": 1.5}})
    assert p.path == "tcp.mss_bytes"
    assert p.value == 1.5
    assert p.text.startswith("tcp.mss_bytes: Input should be a valid integer")
    assert p.text.endswith(" (got 1.5); allowed: a whole number from 100 to 65,495 bytes or null")


def test_number_problem_with_a_string() -> None:
    p = only_problem({"network": {"bandwidth_bps": "fast"}})
    assert p.value == "fast"
    assert '(got "fast")' in p.text
    assert p.text.endswith("; allowed: a number from 1,000 to 100,000,000,000 bit/s")


def test_boolean_problem() -> None:
    p = only_problem({"http": {"header_flush": "maybe"}})
    assert (p.path, p.allowed) == ("http.header_flush", "true or false")
    assert p.text.endswith('(got "maybe"); allowed: true or false')


def test_optional_field_given_null_where_null_is_not_allowed() -> None:
    p = only_problem({"network": {"rtt_ms": None}})
    assert p.value is None
    assert "(got null)" in p.text


def test_optional_field_takes_null() -> None:
    assert Scenario.model_validate({"network": {"uplink_delay_ms": None}}).network.uplink_delay_ms is None
    p = only_problem({"network": {"uplink_delay_ms": "soon"}})
    assert p.allowed == "a number from 0 to 10,000 ms or null"


def test_choice_problem_does_not_repeat_the_choices() -> None:
    p = only_problem({"tcp": {"profile": "solaris"}})
    assert p.allowed == "'bsd', 'ns3', 'rfc5681' or 'linux'"
    assert p.text == "tcp.profile: Input should be 'bsd', 'ns3', 'rfc5681' or 'linux' (got \"solaris\")"


def test_nested_list_index_problem() -> None:
    p = only_problem({"page": {"object_bytes": [100, "big", 300]}})
    assert p.path == "page.object_bytes[1]"
    assert p.loc == ("page", "object_bytes", 1)
    assert p.allowed == "a whole number of bytes"
    assert p.text.endswith('(got "big"); allowed: a whole number of bytes')


def test_list_item_choice_problem() -> None:
    p = only_problem({"protocols": ["http10", "http11"]})
    assert p.path == "protocols[1]"
    assert p.text.startswith("protocols[1]: Input should be 'http10', ")


def test_list_length_problem_leaves_out_the_list() -> None:
    p = only_problem({"protocols": []})
    assert p.value == []
    assert "(got" not in p.text
    assert p.text.endswith(
        "; allowed: an array of 1 to 8 items, each 'http10', 'http10_parallel', 'persistent', 'pipelined', 'getall', 'persistent_parallel', 'h2' or 'h3'"
    )


def test_unknown_field_suggests_the_closest() -> None:
    p = only_problem({"network": {"rtt": 20}})
    assert (p.path, p.type, p.suggestion, p.value) == ("network.rtt", "extra_forbidden", "rtt_ms", 20)
    assert p.text == (
        "network.rtt: unknown field (Extra inputs are not permitted); allowed fields: rtt_ms, bandwidth_bps, "
        "uplink_delay_ms, downlink_delay_ms, uplink_bandwidth_bps, packet_overhead_bytes, loss_rate; did you mean 'rtt_ms'?"
    )


def test_unknown_top_level_field_without_a_close_one() -> None:
    p = only_problem({"zzz": 1})
    assert p.suggestion is None
    assert p.text == (
        "zzz: unknown field (Extra inputs are not permitted); allowed fields: protocols, network, tcp, http, page, session, proxy, dns, tls, multiplex, quic"
    )


def test_model_validator_problems() -> None:
    p = only_problem({"network": {"uplink_delay_ms": 100}})
    assert (p.path, p.type, p.allowed) == ("network", "value_error", None)
    assert p.message.startswith("uplink_delay_ms (100.0) cannot exceed rtt_ms")
    assert p.text == f"network: {p.message}"
    whole = only_problem({"protocols": ["http10", "http10"]})
    assert (whole.path, whole.text) == ("", "scenario: protocols must not repeat")


def test_not_json_able_value() -> None:
    p = only_problem({"network": {"rtt_ms": float("nan")}})
    assert p.value is None
    assert "(got nan)" in p.text


def test_wrong_type_for_a_section() -> None:
    p = only_problem({"tcp": 3})
    assert p.path == "tcp"
    assert "(got 3); allowed: an object with the fields profile, mss_bytes," in p.text


def test_prefix_for_a_batch_item() -> None:
    (p,) = problems_of({"network": {"rtt_ms": -1}}, at=(2,))
    assert p.path == "[2].network.rtt_ms"
    assert p.loc == (2, "network", "rtt_ms")
    assert p.allowed == "a number from 0 to 10,000 ms"  # looked up without the prefix
    assert p.text.startswith("[2].network.rtt_ms: ")
    (whole,) = problems_of({"protocols": ["http10", "http10"]}, at=(2,))
    assert whole.text == "[2]: protocols must not repeat"


def test_all_errors_in_pydantic_order() -> None:
    found = problems_of({"network": {"rtt_ms": -1, "bandwidth_bps": "x"}, "tcp": {"nagle": "maybe"}, "extra": 1})
    assert [p.path for p in found] == ["network.rtt_ms", "network.bandwidth_bps", "tcp.nagle", "extra"]


def test_problem_is_frozen_and_json_able() -> None:
    p = only_problem({"page": {"object_bytes": [1, "a"]}})
    with pytest.raises(dataclasses.FrozenInstanceError):
        p.path = "x"  # type: ignore[misc]
    data = json.loads(json.dumps(dataclasses.asdict(p)))
    assert data["path"] == "page.object_bytes[1]"
    assert data["allowed"] == "a whole number of bytes"
    assert data["value"] == "a"


def test_whole_numbers_with_remembered_field_specs() -> None:
    """whole_numbers looks each field up once and remembers it (latency_lab.scenario.errors._field_spec): the same
    document gives the same answer every time, and a flood of unknown fields (looked up too, before validation refuses
    them) does not grow what is remembered without bound (a server validates every request body)."""
    from latency_lab.scenario.errors import _field_spec, whole_numbers

    doc = {"tcp": {"mss_bytes": 1460.0, "nagle": True}, "network": {"rtt_ms": 70.0}, "page": {"object_bytes": [1e3]}}
    expected = {
        "tcp": {"mss_bytes": 1460, "nagle": True},
        "network": {"rtt_ms": 70.0},
        "page": {"object_bytes": [1000]},
    }
    for _ in range(3):
        out = whole_numbers(doc)
        assert out == expected
        assert type(out["tcp"]["mss_bytes"]) is int and type(out["network"]["rtt_ms"]) is float
    flood = {"network": {f"unknown_{i}": 1.0 for i in range(3000)}}
    assert whole_numbers(flood) == flood
    info = _field_spec.cache_info()
    assert info.maxsize is not None and info.currsize <= info.maxsize < 3000
    assert whole_numbers(doc) == expected
