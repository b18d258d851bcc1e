"""Units typed in the calculator's form (issue 15): a strict parser, the form converting to base units, the API not."""

from __future__ import annotations

import re
from html import unescape

import pytest
from flask.testing import FlaskClient

from latency_lab_web.web.units import UnitError, has_unit, readable, to_base, ungroup


@pytest.mark.parametrize(
    ("text", "unit", "base"),
    [
        ("10 Mbps", "bit/s", 10_000_000),
        ("10Mbit/s", "bit/s", 10_000_000),
        ("10 mbps", "bit/s", 10_000_000),
        ("1.5M", "bit/s", 1_500_000),
        ("56 kbps", "bit/s", 56_000),
        ("1 MB/s", "bit/s", 8_000_000),
        ("1 Gbps", "bit/s", 1e9),
        ("1544000", "bit/s", 1_544_000),
        ("64 KB", "bytes", 64_000),
        ("64KiB", "bytes", 65_536),
        ("1.5M", "bytes", 1_500_000),
        ("1460 B", "bytes", 1460),
        ("80ms", "ms", 80),
        ("0.08 s", "ms", 80),
        ("1.5s", "ms", 1500),
        ("250 us", "ms", 0.25),
        ("1e2 ms", "ms", 100),
    ],
)
def test_units_people_type(text: str, unit: str, base: float) -> None:
    assert to_base(text, unit) == pytest.approx(base)


@pytest.mark.parametrize(
    ("text", "unit", "says"),
    [
        ("10 parsecs", "bit/s", "'parsecs' is not a unit of rate"),
        ("1 min", "ms", "'min' is not a unit of time"),
        ("64 kb", "bytes", "kb is bits: write KB for bytes"),
        ("2+2", "ms", "write a number"),
        ("__import__('os').system('true')", "ms", "write a number"),
        ("1e999 s", "ms", "too large"),
        ("ten", "bytes", "write a number"),
        ("", "ms", "write a number"),
        ("10 Mbps", "bytes", "'Mbps' is not a unit of size"),
    ],
)
def test_what_the_parser_refuses(text: str, unit: str, says: str) -> None:
    with pytest.raises(UnitError) as caught:
        to_base(text, unit)
    assert says in caught.value.reason


def test_plain_numbers_pass_through_unconverted() -> None:
    assert not has_unit("1544000") and not has_unit("0.5") and has_unit("1.5M") and has_unit(" 80")
    assert not has_unit("fast") and not has_unit("2+2")  # no number and unit: the field's own message says why


def test_readable() -> None:
    assert readable(1_544_000, "bit/s") == "1.544 Mbit/s"
    assert readable(65_535, "bytes") == "65.53 kB"
    assert readable(1500, "ms") == "1.5 s"
    assert readable(200, "ms") == "200 ms"


def test_the_form_converts_to_base_units_in_the_address(client: FlaskClient) -> None:
    r = client.get("/?preset=n97-wan&network.bandwidth_bps=10+Mbps&network.rtt_ms=80ms&page.object_bytes=64KB,1.5k")
    assert r.status_code == 303
    location = r.headers["Location"]
    assert "network.bandwidth_bps=10000000" in location and "network.rtt_ms=80" in location
    assert "page.object_bytes=64000,1500" in location
    page = client.get(location).get_data(as_text=True)
    assert 'id="f-network-bandwidth_bps-readable">= 10 Mbit/s<' in page


def test_an_unreadable_unit_names_the_field_and_its_range(client: FlaskClient) -> None:
    r = client.get("/?network.bandwidth_bps=10+parsecs")
    assert r.status_code == 400
    error = re.search(r'id="f-network-bandwidth_bps-error">([^<]*)<', r.get_data(as_text=True))
    assert error is not None
    text = unescape(error.group(1))
    assert text.startswith("Bandwidth must be a number between 1,000 and 100,000,000,000 bit/s")
    assert "you gave 10 parsecs" in text


def test_a_converted_value_out_of_range_says_what_it_became(client: FlaskClient) -> None:
    r = client.get("/?network.rtt_ms=100+s")
    assert r.status_code == 400
    assert "you gave 100 s (= 100000 ms)" in unescape(r.get_data(as_text=True))


def test_the_api_stays_in_base_units(client: FlaskClient) -> None:
    r = client.get("/api/v1/predict?network.bandwidth_bps=10Mbps")
    assert r.status_code == 422
    assert r.get_json()["errors"][0]["path"] == "network.bandwidth_bps"


@pytest.mark.parametrize(
    ("text", "unit", "base"),
    [
        ("1%", "fraction", 0.01),
        ("1 %", "fraction", 0.01),
        ("0.5%", "fraction", 0.005),
        ("1,000 ms", "ms", 1000),
        ("100,000,000 bytes", "bytes", 100_000_000),
        ("1,544,000 bps", "bit/s", 1_544_000),
    ],
)
def test_percentages_and_grouped_digits(text: str, unit: str, base: float) -> None:
    """Issue 25: the help writes "0.01 is 1 %" and the app prints "1,000": both read back."""
    assert to_base(text, unit) == pytest.approx(base)


def test_ungroup_only_takes_commas_between_groups_of_three() -> None:
    assert ungroup("1,000") == "1000" and ungroup(" 100,000,000 ") == "100000000" and ungroup("-1,234.5") == "-1234.5"
    assert ungroup("1,00") == "1,00" and ungroup("1,5") == "1,5" and ungroup("10,0000") == "10,0000"
    assert ungroup("1000") == "1000" and ungroup("fast") == "fast"
    with pytest.raises(UnitError, match="'%' is not a unit of time"):
        to_base("10%", "ms")


@pytest.mark.parametrize(
    ("given", "address"),
    [
        ("network.loss_rate=1%25", "network.loss_rate=0.01"),
        ("network.loss_rate=1+%25", "network.loss_rate=0.01"),
        ("page.object_count=1,000&page.object_size_bytes=100", "page.object_count=1000"),
        ("page.html_bytes=100,000", "page.html_bytes=100000"),
        ("network.rtt_ms=1,000", "network.rtt_ms=1000"),
    ],
)
def test_the_form_reads_percentages_and_grouped_digits(client: FlaskClient, given: str, address: str) -> None:
    r = client.get(f"/?preset=n97-wan&{given}")
    assert r.status_code == 303, unescape(r.get_data(as_text=True))[:2000]
    assert address in r.headers["Location"]


def test_a_percentage_out_of_range_says_what_it_became(client: FlaskClient) -> None:
    r = client.get("/?network.loss_rate=30%25")
    assert r.status_code == 400
    assert "you gave 30% (= 0.3)" in unescape(r.get_data(as_text=True))
    # a count takes no percentage, and a list's commas still part its values
    assert client.get("/?page.object_count=10%25").status_code == 400
    r = client.get("/?page.object_bytes=1,500")
    assert r.status_code == 200 and 'placeholder="1,500">1,500<' in r.get_data(as_text=True)  # valid: two objects
