"""The real-stack CI guard (issue 18): 24 fixed runs of the model's ``linux`` profile against the Linux kernel.

Each run of :data:`validation.realstack.grid.CI_RUNS` and ``CI_BLOCK_RUNS`` loads its page three times over two network
namespaces joined by the bench's relay, with nginx and a real client (``validation/realstack/``), and compares
the median load with the model. It needs root, ``/dev/net/tun``, ``ip netns``, gcc, nginx, nghttp and tcpdump
(scripts/test.sh installs the packages as root, as CI runs); when one is missing the tests FAIL naming it.

Tolerances (fractions of page_load_ms, the model's error against the measured median):

- over all 24 runs, the issue's goals: median |error| <= 2 %, 95th percentile <= 5 %, max <= 15 %;
- every run that no known kernel mechanism explains: |error| <= 5 %;
- the known gaps (:data:`KNOWN_GAPS`, explained in docs/validation/realstack.md) keep their direction and
  size, so that a change in either the model or the kernel shows here: when the model gains the mechanism,
  the run moves out of this list;
- packets within 5 % (median), data packets (segments with payload) and all packets (the ACKs too, since the
  ``linux`` profile has the kernel's ACK rule, ``pingpong_ack``; issue 18);
- the relay's own delay: median lateness under 200 us per repeat, and the whole guard within 5 minutes.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from validation.realstack import bench, grid, report
from validation.realstack.stack import Stack, Unavailable, check

pytestmark = [pytest.mark.validation]

ROOT = Path(__file__).resolve().parents[2]
#: run id -> (mechanism in report.GAPS, lowest and highest model error allowed)
#: (empty since the linux profile has Minshall's Nagle, issue 16: c11, persistent with Nagle on and the header
#: flushed, was 3-15 % slow and is within 0.4 % on 2026-11-25)
KNOWN_GAPS: dict[str, tuple[str, float, float]] = {}
REPEATS = 3
BUDGET_S = 300.0


@pytest.fixture(scope="module")
def stack() -> Iterator[Stack]:
    try:
        check()
    except Unavailable as e:
        pytest.fail(f"the real-stack bench cannot run on this machine: {e}")
    with Stack() as s:
        yield s


@pytest.fixture(scope="module")
def results(stack: Stack) -> dict[str, Any]:
    t = time.monotonic()
    rows = []
    for run in grid.ci_runs():
        r = bench.run(stack, run["id"], run["doc"], run["protocol"], repeats=REPEATS)
        r["tags"] = run["tags"]
        rows.append(r)
    return {"rows": rows, "seconds": time.monotonic() - t}


def _show(rows: list[dict[str, Any]]) -> str:
    return "\n".join(
        f"{r['id']} {r['protocol']:<16} {r['tags']} real {r['real_ms']:.2f} model {r['model_ms']:.2f} "
        f"error {100 * r['error']:+.2f}% (loads {[round(x, 2) for x in r['real_ms_all']]})"
        for r in rows
    )


def test_guard_meets_the_goals(results: dict[str, Any]) -> None:
    rows = results["rows"]
    assert len(rows) == len(grid.CI_RUNS) + len(grid.CI_BLOCK_RUNS) == 24
    s = grid.stats(rows)
    print(f"\nreal-stack guard, {results['seconds']:.0f} s: {s}\n{_show(rows)}")  # shown with pytest -s
    assert s["median_abs_error"] <= 0.02, _show(rows)
    assert s["p95_abs_error"] <= 0.05, _show(rows)
    assert s["max_abs_error"] <= 0.15, _show(rows)
    assert results["seconds"] <= BUDGET_S, f"the guard took {results['seconds']:.0f} s"


def test_runs_without_a_known_gap_agree_within_5_percent(results: dict[str, Any]) -> None:
    bad = [r for r in results["rows"] if r["id"] not in KNOWN_GAPS and abs(r["error"]) > 0.05]
    assert not bad, "runs off by more than 5 % that no known kernel mechanism explains:\n" + _show(bad)


def test_known_gaps_keep_direction_and_size(results: dict[str, Any]) -> None:
    for r in results["rows"]:
        if r["id"] in KNOWN_GAPS:
            mechanism, lo, hi = KNOWN_GAPS[r["id"]]
            assert mechanism in report.GAPS
            assert mechanism in report.diagnose(r), _show([r])
            assert lo <= r["error"] <= hi, (
                f"{r['id']}: the {mechanism} gap moved (error {100 * r['error']:+.2f}%, expected "
                f"{100 * lo:+.0f}% to {100 * hi:+.0f}%); if the model now has it, drop the run from KNOWN_GAPS\n"
                + _show([r])
            )


def test_data_packets_agree(results: dict[str, Any]) -> None:
    errs = sorted(abs(r["data_packet_error"]) for r in results["rows"])
    assert grid.quantile(errs, 0.5) <= 0.05, _show(results["rows"])


def test_packets_agree(results: dict[str, Any]) -> None:
    """All packets, ACKs included (0.5 % median over the guard on 2026-11-27; 8 % before the ACK rule)."""
    errs = sorted(abs(r["packet_error"]) for r in results["rows"])
    assert grid.quantile(errs, 0.5) <= 0.05, _show(results["rows"])


def test_relay_adds_little(results: dict[str, Any]) -> None:
    # each repeat's median lateness of the relay: under 100 us in every CI run before 2026-11-27, when one repeat of
    # one row gave 126.5 us on an otherwise idle machine (a fresh-clone CI run, 12:50 UTC). 200 us is 4 % of the
    # guard's shortest one-way delay (5 ms); what the relay adds to a round trip is bounded by rtt_excess below
    for r in results["rows"]:
        assert all(x is not None and x < 200 for x in r["relay_late_us"]), r["relay_late_us"]
        assert r["real"]["overheads"]["rtt_excess"] < 0.5, r["real"]["overheads"]


def test_connections_run_cubic(stack: Stack) -> None:
    """The client's socket reports CUBIC (the host default here is BBR): the route's congctl applies."""
    code = (
        "import socket; s = socket.create_connection(('10.77.0.2', 80)); "
        "print(s.getsockopt(socket.IPPROTO_TCP, socket.TCP_CONGESTION, 16).rstrip(b'\\0').decode())"
    )
    stack.serve(nagle=False, header_flush=False)
    with stack.link(5, 10e6, 5, 10e6):
        stack.wait_server()
        assert stack.in_client(sys.executable, "-c", code).strip() == "cubic"


def test_missing_capability_is_named() -> None:
    """Without root the bench refuses, naming what it needs (the guard then fails, it does not pass)."""
    if os.geteuid() != 0:
        with pytest.raises(Unavailable, match="needs root"):
            check()
        return
    # As nobody: the checkout and its venv may sit in a directory nobody cannot enter (a CI clone in a 0700 temp
    # directory), so the module (standard library only) runs from a copy in a directory anyone can read, on the
    # system's Python 3.
    python = shutil.which("python3", path="/usr/local/bin:/usr/bin:/bin") or sys.executable
    where = Path(tempfile.mkdtemp(prefix="llrs-nobody-"))
    try:
        where.chmod(0o755)
        shutil.copy(ROOT / "validation" / "realstack" / "stack.py", where / "stack.py")
        (where / "stack.py").chmod(0o644)
        r = subprocess.run(
            [
                "setpriv",
                "--reuid=65534",
                "--regid=65534",
                "--clear-groups",
                python,
                "-c",
                "import stack; stack.check()",
            ],
            cwd=where,
            capture_output=True,
            text=True,
        )
    finally:
        shutil.rmtree(where, ignore_errors=True)
    assert r.returncode != 0
    assert "Unavailable: the real-stack bench needs root" in r.stderr


def test_report_is_written_from_the_stored_grid(tmp_path: Path) -> None:
    """No root needed: results.json holds the grid as defined now, and the report comes from it alone."""
    import json

    data = json.loads((ROOT / "validation" / "realstack" / "results.json").read_text())
    stored = {(r["id"], r["protocol"]) for r in data["runs"]}
    assert stored == {(s["id"], p) for s in grid.scenarios() for p in s["protocols"]}
    for r in data["runs"]:
        sc = next(s for s in grid.scenarios() if s["id"] == r["id"])
        assert r["doc"] == sc["doc"]
    md = report.write(data, docs=tmp_path)
    text = md.read_text()
    assert "## Goals and what was measured" in text and "## Where the model and the kernel differ" in text
    assert (tmp_path / "realstack_scatter.html").exists()
