"""The calculator and the API open every network profile preset (DevTools' and WebPageTest's) with results."""

from __future__ import annotations

import html
import re

import pytest
from flask.testing import FlaskClient

from latency_lab import PRESETS, predict

PROFILES = [name for name in PRESETS if name.startswith(("devtools-", "wpt-"))]


def test_there_are_the_profiles() -> None:
    assert len(PROFILES) == 10


@pytest.mark.parametrize("name", PROFILES)
def test_calculator_opens_profile(client: FlaskClient, name: str) -> None:
    r = client.get(f"/?preset={name}")
    assert r.status_code == 200
    page = html.unescape(r.get_data(as_text=True))
    p = PRESETS[name]
    assert f'<option value="{name}" selected>' in page
    assert p.title in page and p.citation in page and "network profile of Chrome DevTools" in page
    # every protocol's load time is in the results table, as the model gives it
    for result in predict(p.document)["results"]:
        ms = result["page_load_ms"]
        shown = f"{ms:,.1f}"
        assert re.search(rf"\b{re.escape(shown)}\b", page), (result["protocol"], shown)


@pytest.mark.parametrize("name", PROFILES)
def test_api_lists_profile(client: FlaskClient, name: str) -> None:
    r = client.get(f"/api/v1/presets/{name}")
    assert r.status_code == 200 and r.json is not None
    assert r.json["citation"] == PRESETS[name].citation
    assert r.json["document"]["network"] == PRESETS[name].document["network"]
