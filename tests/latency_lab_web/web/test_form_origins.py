"""The calculator's form reading a page's origins (issue 28, :func:`latency_lab_web.web.form.read`): the origins'
fields, their labels and plain errors, and a shortest address that reads back the same."""

from __future__ import annotations

from urllib.parse import parse_qsl

import pytest
from werkzeug.datastructures import MultiDict

from latency_lab_web.web.form import FIELD_BY_PARAM, State, read

DNS, PRE, CO = "page.origins.dns_ms", "page.origins.preconnected", "page.origins.coalesce_with_html"
AT = "page.object_origins"


def state_of(pairs: list[tuple[str, str]]) -> State:
    return read(MultiDict(pairs))


def test_the_origins_fields_are_in_the_page_section_with_labels_and_ranges() -> None:
    labels = {p: FIELD_BY_PARAM[p].label for p in (DNS, PRE, CO, AT)}
    assert labels == {
        DNS: "Origins' DNS lookups",
        PRE: "Origins preconnected",
        CO: "Origins on the HTML's connection",
        AT: "Object origins",
    }
    assert all(FIELD_BY_PARAM[p].section == "page" for p in labels)
    assert FIELD_BY_PARAM[DNS].allowed == (
        "a comma-separated list of at most 50 values, each a number between 0 and 10,000 ms"
    )
    assert FIELD_BY_PARAM[PRE].allowed == "a comma-separated list of at most 50 values, each true or false (yes or no)"


@pytest.mark.parametrize(
    ("pairs", "field", "message"),
    [
        (
            [(DNS, "50, -5")],
            DNS,
            "Origins' DNS lookups: value 2 must be a number between 0 and 10,000 ms; you gave -5.",
        ),
        (
            [(DNS, "50,fast")],
            DNS,
            "Origins' DNS lookups: value 2 must be a number between 0 and 10,000 ms; you gave fast.",
        ),
        ([(PRE, "yes,maybe")], PRE, "Origins preconnected: value 2 must be yes or no; you gave maybe."),
        (
            [(DNS, "50,0"), (PRE, "yes")],
            PRE,
            "The origins' fields give different numbers of values (\u201cOrigins' DNS lookups\u201d 2, \u201cOrigins "
            "preconnected\u201d 1): give each of them one value per origin, in the same order.",
        ),
        (
            [(DNS, ",".join(["0"] * 51))],
            DNS,
            "The page has at most 50 origins beside the HTML's; these fields give 51.",
        ),
        (
            [(DNS, "50"), (AT, "1,2,1")],
            AT,
            "Value 2 of \u201cObject origins\u201d (2) must be between 0 and 1: 0 the HTML's origin, k the k-th of "
            "page.origins (1 given).",
        ),
    ],
)
def test_a_bad_origin_is_said_beside_its_field(pairs: list[tuple[str, str]], field: str, message: str) -> None:
    state = state_of(pairs)
    assert state.scenario is None
    assert state.errors == {field: [message]}


def test_units_and_yes_no_are_read_and_the_address_is_in_base_units() -> None:
    state = state_of([(DNS, "50ms, 0.1 s"), (PRE, "Yes, no"), (AT, "1,2,1")])
    assert state.errors == {}
    assert state.scenario is not None
    assert [(o.dns_ms, o.preconnected) for o in state.scenario.page.origins] == [(50.0, True), (100.0, False)]
    assert state.query == f"{DNS}=50,100&{PRE}=true,false&{AT}=1,2,1"


@pytest.mark.parametrize(
    "pairs",
    [
        [(DNS, "50,0"), (PRE, "false,false"), (AT, "1,2,1")],  # preconnected as the default: left out
        [(PRE, "false,false")],  # the only field giving the two origins: kept
        [(CO, "true"), (AT, "1,0,1"), ("protocols", "h2,h3")],
        [("preset", "n97-wan"), (DNS, "12.5,0.25"), (CO, "false,true"), ("page.object_count", "4"), (AT, "0,1,2,2")],
        [(DNS, "")],  # no origins: the defaults, an empty address
    ],
)
def test_the_address_reads_back_the_same_scenario_and_address(pairs: list[tuple[str, str]]) -> None:
    """Address -> scenario -> shortest address -> the same scenario and the same address (a fixed point)."""
    first = state_of(pairs)
    assert first.errors == {} and first.scenario is not None
    again = state_of(parse_qsl(first.query, keep_blank_values=True))
    assert again.errors == {} and again.scenario is not None
    assert again.scenario == first.scenario
    assert again.query == first.query
    given = dict(pairs)
    if PRE in given and DNS not in given:
        assert PRE in dict(parse_qsl(first.query))  # it alone says there are two origins
    if given.get(PRE) == "false,false" and DNS in given:
        assert PRE not in dict(parse_qsl(first.query))
