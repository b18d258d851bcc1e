"""The calculator's form (latency_lab_web.web.form): limits said in words beside the field that causes them (issue 25)."""

from __future__ import annotations

import re
from html import unescape

from flask.testing import FlaskClient

from latency_lab_web.web.form import FIELD_BY_PARAM


def _error(html: str, param: str) -> str:
    found = re.search(rf'id="f-{param.replace(".", "-")}-error">([^<]*)<', html)
    return unescape(found.group(1)) if found else ""


def test_a_page_over_the_segment_cap_is_marked_on_its_field(client: FlaskClient) -> None:
    r = client.get("/?page.html_bytes=100000000")
    assert r.status_code == 400
    html = r.get_data(as_text=True)
    error = _error(html, "page.html_bytes")
    assert error.startswith("\u201cHTML\u201d makes the page too large to model"), error
    assert "at most 10,000 are allowed: about 14,600,000 bytes" in error
    assert "mss_bytes" not in error and "72494" not in error
    assert 'class="errors"' not in html  # on the field, not in a box of its own


def test_the_page_fields_help_states_the_real_limit() -> None:
    allowed = FIELD_BY_PARAM["page.html_bytes"].allowed
    assert allowed.startswith("a whole number between 0 and 100,000,000 bytes")
    assert "the whole page (HTML, objects and response headers) at most 10,000 packets" in allowed
    assert "about 14.6 MB with 1,460-byte segments" in allowed
    assert "10,000 packets" not in FIELD_BY_PARAM["network.rtt_ms"].allowed


def test_too_much_work_is_marked_on_the_protocols_and_the_objects(client: FlaskClient) -> None:
    r = client.get(
        "/?page.object_count=1000&page.object_size_bytes=100&protocols=http10,http10_parallel,persistent,"
        "pipelined,getall,h2,h3&session.pages=5"
    )
    assert r.status_code == 400
    html = r.get_data(as_text=True)
    for param in ("page.object_count", "protocols", "session.pages"):
        error = _error(html, param)
        assert error.startswith("This prediction is too much work for one request"), (param, error)
        assert "ask for fewer protocols, fewer objects, a smaller page or no loss" in error
    assert not _error(html, "page.html_bytes")
