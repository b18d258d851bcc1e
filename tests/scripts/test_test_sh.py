"""scripts/test.sh's closing ``gate:`` line, from the two phases' JUnit reports (issue 26: it said 7 more passed than
pytest did, counting a test twice when JUnit held it twice)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _summary(*reports: Path) -> str:
    text = (ROOT / "scripts" / "test.sh").read_text()
    code = re.search(r"<<'PY'\n(.*?)\nPY\n", text, re.S)
    assert code, "scripts/test.sh has no summary block"
    out = subprocess.run([sys.executable, "-c", code.group(1), *map(str, reports)], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    return out.stdout.strip().splitlines()[-1]


def test_each_test_counts_once(tmp_path: Path) -> None:
    report = tmp_path / "parallel.xml"
    report.write_text(
        '<testsuites><testsuite tests="5" failures="1" errors="1" skipped="1">'
        '<testcase classname="t.a" name="ok"/>'
        '<testcase classname="t.a" name="bad"><failure message="x"/></testcase>'
        '<testcase classname="t.a" name="bad"><error message="teardown"/></testcase>'
        '<testcase classname="t.a" name="skip"><skipped/></testcase>'
        '<testcase classname="t.b" name="ok"/>'
        "</testsuite></testsuites>"
    )
    assert _summary(report) == "gate: 2 passed, 1 failed, 1 skipped"


def test_a_missing_report_is_a_failure(tmp_path: Path) -> None:
    report = tmp_path / "serial.xml"
    report.write_text('<testsuites><testsuite><testcase classname="t" name="ok"/></testsuite></testsuites>')
    assert _summary(report, tmp_path / "parallel.xml") == "gate: 1 passed, 1 failed, 0 skipped"
