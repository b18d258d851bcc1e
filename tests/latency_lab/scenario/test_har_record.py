"""The HAR import on HARs recorded now, with the real Chromium on this machine (tests/data/har/record.py): the
initiator tree Chromium reports is the one read. Marked ``browser`` (needs /usr/bin/chromium and Playwright)."""

from __future__ import annotations

import importlib.util
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from latency_lab.scenario.errors import validate_scenario
from latency_lab.scenario.har import load_har, to_scenario

pytestmark = pytest.mark.browser
RECORD = Path(__file__).parents[2] / "data" / "har" / "record.py"


def _recorder() -> Any:
    if shutil.which("chromium") is None and not Path("/usr/bin/chromium").exists():
        pytest.skip("no /usr/bin/chromium")
    spec = importlib.util.spec_from_file_location("har_record", RECORD)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_a_fresh_recording_reads_as_the_page_served(tmp_path: Path) -> None:
    recorder = _recorder()
    # in a process of its own: Playwright's sync API refuses to start where another test of the same pytest worker
    # (tests/browser) has its event loop running
    subprocess.run([sys.executable, str(RECORD), str(tmp_path)], check=True, timeout=300, capture_output=True)
    devtools, playwright_har = tmp_path / "chromium-devtools.har", tmp_path / "chromium-playwright.har"
    page = load_har(devtools.read_bytes())
    names = {o.url.rsplit("/", 1)[1]: (k, o) for k, o in enumerate(page.objects, start=1)}
    served = {*recorder.IMAGES, "font.woff2", "style.css", "app.js", "data.json"}
    assert set(names) == served  # every file the page asks for, the favicon (after onLoad) left out
    parent = {
        name: page.objects[o.parent - 1].url.rsplit("/", 1)[1] if o.parent else "html" for name, (_, o) in names.items()
    }
    assert parent["bg.png"] == parent["font.woff2"] == "style.css"  # asked for by the style sheet
    assert parent["data.json"] == "app.js"  # fetched by the script
    assert parent["style.css"] == parent["app.js"] == parent["a.png"] == "html"
    assert page.depth == 2 and len(page.origins) == 2
    assert {n for n, (_, o) in names.items() if o.origin == page.origins[1].origin} == {"d.png", "font.woff2"}
    assert page.on_load_ms is not None and page.on_load_ms > 0
    validate_scenario(to_scenario(page).document)
    # Playwright's own HAR of the same page: the same files, no initiators
    other = load_har(playwright_har.read_bytes())
    assert {o.url.rsplit("/", 1)[1] for o in other.objects} >= served - {"data.json"}
    assert all(o.parent == 0 for o in other.objects)
