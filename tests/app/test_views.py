"""The interim scenario page: form, results, errors (400, never 500) and security headers."""

from __future__ import annotations

import re
from typing import Any

import pytest
from flask.testing import FlaskClient
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from markupsafe import escape
from pydantic import ValidationError

from app import SECURITY_HEADERS, create_app
from app.views import FIELD_BY_NAME, FIELDS, format_ms, scenario_document
from model import PRESETS, SEED_PROTOCOLS, Scenario, predict, preset
from model.errors import allowed, problems


def bounds(section: str, name: str) -> tuple[Any, Any]:
    """The model's own (ge, le) for a scenario field, so these tests follow the model's ranges."""
    info = Scenario.model_fields[section].annotation.model_fields[name]  # type: ignore[union-attr]
    ge = next(m.ge for m in info.metadata if getattr(m, "ge", None) is not None)
    le = next(m.le for m in info.metadata if getattr(m, "le", None) is not None)
    return ge, le


def human(x: float) -> str:
    return f"{int(x):,}" if float(x).is_integer() else f"{x:,}"


def assert_shows_prediction(html: str, prediction: dict[str, Any]) -> None:
    """Every protocol's total, breakdown, counts and first event's reason are on the page."""
    assert prediction["results"], "predict returned no results"
    for result in prediction["results"]:
        assert result["protocol"] in html
        assert format_ms(result["page_load_ms"]) in html
        for key in result["breakdown_ms"]:
            assert key in html
        for key in result["counts"]:
            assert key in html
        if result["events"]:
            assert str(escape(result["events"][0]["why"])) in html


# --- the form -----------------------------------------------------------------------------------


def test_index_renders_the_form(client: FlaskClient) -> None:
    response = client.get("/")
    assert response.status_code == 200
    html = response.text
    assert '<form method="get"' in html
    for field in FIELDS:
        assert f'name="{field.name}"' in html
    assert 'name="preset"' in html
    for name in PRESETS:
        assert f'value="{escape(name)}"' in html
    assert 'id="results"' not in html


def test_submit_shows_every_protocol(client: FlaskClient) -> None:
    response = client.get("/?rtt_ms=100&bandwidth_bps=1000000")
    assert response.status_code == 200, response.text
    expected = predict(Scenario.model_validate({"network": {"rtt_ms": 100, "bandwidth_bps": 1_000_000}}))
    assert {r["protocol"] for r in expected["results"]} == set(SEED_PROTOCOLS)
    assert_shows_prediction(response.text, expected)
    # The submitted value stays in the form, so the page can be changed and resubmitted.
    assert 'value="100"' in response.text


def test_blank_fields_mean_defaults(client: FlaskClient) -> None:
    query = "&".join(f"{f.name}=" for f in FIELDS) + "&preset="
    response = client.get(f"/?{query}")
    assert response.status_code == 200, response.text
    assert_shows_prediction(response.text, predict(Scenario()))


@pytest.mark.parametrize("name", list(PRESETS))
def test_preset_renders(client: FlaskClient, name: str) -> None:
    response = client.get("/", query_string={"preset": name})
    assert response.status_code == 200, response.text
    info = PRESETS[name]
    assert str(escape(info.title)) in response.text
    assert str(escape(info.citation)) in response.text
    assert_shows_prediction(response.text, predict(preset(name)))


def test_events_are_capped(client: FlaskClient) -> None:
    small = create_app({"TESTING": True, "MAX_EVENTS_SHOWN": 1}).test_client()
    response = small.get("/?rtt_ms=70")
    assert response.status_code == 200
    if any(len(r["events"]) > 1 for r in predict(Scenario())["results"]):
        assert "The first 1 of" in response.text


# --- invalid input: 400 with the field and what it allows -----------------------------------------


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("rtt_ms", "-5"),
        ("rtt_ms", "abc"),
        ("bandwidth_bps", "abc"),
        ("bandwidth_bps", "1"),
        ("mss_bytes", "1.5"),
        ("mss_bytes", "99999999"),
        ("initial_window_segments", "0"),
        ("html_bytes", "-1"),
    ],
)
def test_bad_number_is_400_with_field_and_range(client: FlaskClient, field: str, value: str) -> None:
    response = client.get("/", query_string={field: value})
    assert response.status_code == 400
    html = response.text
    assert "The scenario is not valid" in html
    low, high = bounds(FIELD_BY_NAME[field].section, field)
    message = re.search(rf"<li>{field}: [^<]*</li>", html)
    assert message is not None, html
    assert human(low) in message.group(0)
    assert human(high) in message.group(0)
    assert 'id="results"' not in html


def test_rtt_range_in_words(client: FlaskClient) -> None:
    response = client.get("/?rtt_ms=-5")
    assert response.status_code == 400
    low, high = bounds("network", "rtt_ms")
    assert f"rtt_ms: Input should be greater than or equal to {human(low)}" in response.text
    assert f"from {human(low)} to {human(high)} ms" in response.text


@pytest.mark.parametrize(("field", "value"), [("rtt_ms", "-5"), ("mss_bytes", "1.5"), ("nagle", "maybe")])
def test_message_reads_as_the_command_line_does(client: FlaskClient, field: str, value: str) -> None:
    """The page's message is model.errors' line for the same input, with the form's field name and no null."""
    section = FIELD_BY_NAME[field].section
    with pytest.raises(ValidationError) as info:
        Scenario.model_validate({section: {field: value}})
    (problem,) = problems(info.value)
    assert problem.text.startswith(f"{section}.{field}: ")
    head, _, words = problem.text.removeprefix(f"{section}.").partition("; allowed: ")
    assert words == allowed((section, field))
    # Only the path differs, and null, which a form cannot give, is not offered.
    expected = f"{head}; allowed: {allowed((section, field), with_null=False)}"
    assert "null" not in expected
    response = client.get("/", query_string={field: value})
    assert response.status_code == 400
    assert f"<li>{escape(expected)}</li>" in response.text


@pytest.mark.parametrize(("field", "value"), [("nagle", "maybe"), ("header_flush", "perhaps"), ("profile", "solaris")])
def test_bad_choice_is_400(client: FlaskClient, field: str, value: str) -> None:
    response = client.get("/", query_string={field: value})
    assert response.status_code == 400
    assert re.search(rf"<li>{field}: [^<]+</li>", response.text)


def test_unknown_preset_is_400(client: FlaskClient) -> None:
    response = client.get("/?preset=no-such-preset")
    assert response.status_code == 400
    assert "preset: unknown preset" in response.text


def test_input_is_escaped(client: FlaskClient) -> None:
    response = client.get("/", query_string={"rtt_ms": "<script>alert(1)</script>", "profile": '"><b>x'})
    assert response.status_code == 400
    assert "<script>alert(1)</script>" not in response.text
    assert '"><b>x' not in response.text


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    values=st.dictionaries(
        st.sampled_from([*FIELD_BY_NAME, "preset"]),
        st.one_of(
            st.text(max_size=12),
            st.integers(min_value=-(10**12), max_value=10**12).map(str),
            st.floats(allow_nan=True, allow_infinity=True).map(str),
            st.sampled_from(["true", "false", "bsd", "ns3", *PRESETS]),
        ),
        max_size=4,
    )
)
def test_any_query_is_200_or_400(client: FlaskClient, values: dict[str, str]) -> None:
    response = client.get("/", query_string=values)
    assert response.status_code in (200, 400), response.text


# --- how a partial form combines with its base -------------------------------------------------


def test_object_count_alone_keeps_the_base_size() -> None:
    base = Scenario()
    sizes = base.page.sizes()
    scenario = Scenario.model_validate(scenario_document(base, {"object_count": "7"}))
    if len(set(sizes)) == 1:
        assert scenario.page.sizes() == [sizes[0]] * 7


def test_new_profile_brings_its_tcp_defaults() -> None:
    scenario = Scenario.model_validate(scenario_document(Scenario(), {"profile": "ns3"}))
    assert scenario.tcp == Scenario.model_validate({"tcp": {"profile": "ns3"}}).tcp


def test_given_rtt_replaces_one_way_delays() -> None:
    base = Scenario.model_validate({"network": {"uplink_delay_ms": 10, "downlink_delay_ms": 90}})
    scenario = Scenario.model_validate(scenario_document(base, {"rtt_ms": "50"}))
    assert scenario.network.rtt_ms == 50


# --- other routes and headers --------------------------------------------------------------------


def test_healthz(client: FlaskClient) -> None:
    response = client.get("/healthz")
    assert response.status_code == 200
    assert response.get_json() == {"status": "ok"}


@pytest.mark.parametrize("path", ["/", "/?rtt_ms=-5", "/healthz", "/static/style.css", "/no-such-page"])
def test_security_headers(client: FlaskClient, path: str) -> None:
    response = client.get(path)
    csp = response.headers["Content-Security-Policy"]
    assert "frame-ancestors 'none'" in csp
    assert "'unsafe-inline'" not in csp
    assert response.headers["X-Content-Type-Options"] == "nosniff"
    for name, value in SECURITY_HEADERS.items():
        assert response.headers[name] == value


def test_page_has_no_inline_script_or_style(client: FlaskClient) -> None:
    html = client.get("/?rtt_ms=70").text
    assert "<script" not in html
    assert "<style" not in html
    assert " style=" not in html
