"""The real-stack CI guard (issues 18 and 26): 24 fixed runs of the model's ``linux`` profile against the Linux kernel.

Each run of :data:`validation.realstack.grid.CI_RUNS` and ``CI_BLOCK_RUNS`` loads its page over two network namespaces
joined by the bench's relay, with nginx and a real client (``validation/realstack/``), and compares the median load
with the model. It needs root, ``/dev/net/tun``, ``ip netns``, gcc, nginx, nghttp and tcpdump (scripts/test.sh
installs the packages as root, as CI runs); when one is missing the tests FAIL naming it. The bench holds a
machine-wide lock (``validation.realstack.stack.LOCK_PATH``), so another bench on the machine waits, and the guard
runs in scripts/test.sh's serial phase, after the tests that run on both cores.

The guard judges the model, not the machine (issue 26):

- only quiet loads are judged: a load during which the relay wrote its packets late (median lateness >= 200 us or
  99th percentile >= 1 ms) or the handshake's round trip exceeded the path's by 0.5 ms or more (a SYN or SYN-ACK
  that waited for a CPU: the model takes the excess onto every round trip of the path) is loaded again, up to
  :data:`NOISY_RETRIES` times for each load; when no quiet load can be had the run is judged on its noisy loads
  and the guard FAILS naming the noise if they disagree with the model (:func:`test_every_judged_load_was_quiet`);
- what the relay and the two stacks add is taken out: the model runs on each load's measured path (the handshake's
  excess round trip on the path's delays, nginx's and the client's own time per request, the bytes written);
- adaptive repeats: :data:`START` loads, then more, up to :data:`CAP`, while their spread is over :data:`SPREAD`
  of the median or some loads are within the tolerance and others not; the median load counts;
- tolerances (the model's error against the measured median): over all 24 runs, the issue's goals (median
  |error| <= 2 %, 95th percentile <= 5 %, max <= 15 %); every run that no known kernel mechanism explains within
  5 % or :data:`FLOOR_MS` (the kernel's scheduling of the endpoints, a few wake-ups per round trip, is a large
  share of a 50 ms load), whichever is larger;
- the known gaps (:data:`KNOWN_GAPS`, explained in docs/validation/realstack.md) keep their direction and
  size, so that a change in either the model or the kernel shows here: when the model gains the mechanism,
  the run moves out of this list;
- packets within 5 % (median), data packets (segments with payload) and all packets (the ACKs too, since the
  ``linux`` profile has the kernel's ACK rule, ``pingpong_ack``; issue 18);
- the whole guard within :data:`BUDGET_S`.

c11 (persistent, Nagle on, header flushed), seen at 422.7 ms against the model's 521.3 in one fresh-clone run
(issue 26), is not bimodal in the kernel: eight loads on 2026-11-27 (22:53 UTC, a busy machine, load 9) gave
402.3-403.9 ms and the model on each load's own path 402.3-403.4 (408.3 on the one whose handshake took 0.74 ms more
than the path's). The model's time grows by 11 ms for each ms of handshake excess (eleven round trips: 400.6 ms at
10 ms, 422.6 at 12), so 521.3 is most likely the model on a handshake that took 11 ms more than the path's (the
other measured overheads would need 20 ms of client or server time per request, which the real load did not show):
a noisy load, now loaded again and not judged.
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
from validation.realstack.stack import lock as stack_lock

pytestmark = [pytest.mark.validation]

ROOT = Path(__file__).resolve().parents[2]
#: run id -> (mechanism in report.GAPS, lowest and highest model error allowed)
#: (empty since the linux profile has Minshall's Nagle, issue 16: c11, persistent with Nagle on and the header
#: flushed, was 3-15 % slow and is within 0.4 % on 2026-11-25)
KNOWN_GAPS: dict[str, tuple[str, float, float]] = {}
#: loads per run: at least START, at most CAP (adaptive), while the spread ((max - min) / median) is over SPREAD
START = 3
CAP = 9
SPREAD = 0.03
#: a noisy load is loaded again up to this many times (bench.noise names what makes a load noisy)
NOISY_RETRIES = 4
#: a run agrees when |model - real| <= max(TOLERANCE * real, FLOOR_MS)
TOLERANCE = 0.05
FLOOR_MS = 3.0
BUDGET_S = 600.0


def within(r: dict[str, Any]) -> bool:
    """Whether a load's (or a run's) model time is within the tolerance of its measured time."""
    return abs(r["model_ms"] - r["real_ms"]) <= max(TOLERANCE * r["real_ms"], FLOOR_MS)


def within_noisy(r: dict[str, Any]) -> bool:
    """:func:`within` widened by what the machine's measured lateness explains (bench.noise_allowance_ms; zero on
    a quiet run): a model a round trip off is still refused on a moderately busy machine."""
    allowed = max(TOLERANCE * r["real_ms"], FLOOR_MS) + bench.noise_allowance_ms(r)
    return abs(r["model_ms"] - r["real_ms"]) <= allowed


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
        r = bench.run_adaptive(
            stack,
            run["id"],
            run["doc"],
            run["protocol"],
            within,
            start=START,
            cap=CAP,
            spread=SPREAD,
            noisy_retries=NOISY_RETRIES,
        )
        r["tags"] = run["tags"]
        rows.append(r)
    return {"rows": rows, "seconds": time.monotonic() - t}


def _show(rows: list[dict[str, Any]]) -> str:
    return "\n".join(
        f"{r['id']} {r['protocol']:<16} {r['tags']} real {r['real_ms']:.2f} model {r['model_ms']:.2f} "
        f"error {100 * r['error']:+.2f}% (loads {[round(x, 2) for x in r['real_ms_all']]}, model on each "
        f"{[round(x, 2) for x in r['load_model_ms']]}, {len(r['rejected_loads'])} noisy loads again)"
        + (f" NOISE: {r['noise']}" if r["noise"] else "")
        for r in rows
    )


def _quiet(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The runs whose judged loads were all quiet (the others fail test_every_judged_load_was_quiet)."""
    return [r for r in rows if not r["noise"]]


def test_guard_meets_the_goals(results: dict[str, Any]) -> None:
    rows = results["rows"]
    assert len(rows) == len(grid.CI_RUNS) + len(grid.CI_BLOCK_RUNS) == 24
    s = grid.stats(_quiet(rows))
    loads = sum(len(r["real_ms_all"]) for r in rows)
    again = sum(len(r["rejected_loads"]) for r in rows)
    print(  # shown with pytest -s
        f"\nreal-stack guard, {results['seconds']:.0f} s, {loads} loads judged, {again} noisy loads again: {s}\n"
        f"{_show(rows)}"
    )
    assert s["median_abs_error"] <= 0.02, _show(rows)
    assert s["p95_abs_error"] <= 0.05, _show(rows)
    assert s["max_abs_error"] <= 0.15, _show(rows)
    assert results["seconds"] <= BUDGET_S, f"the guard took {results['seconds']:.0f} s"


def test_runs_without_a_known_gap_agree_within_5_percent(results: dict[str, Any]) -> None:
    bad = [r for r in _quiet(results["rows"]) if r["id"] not in KNOWN_GAPS and not within(r)]
    assert not bad, (
        f"runs off by more than {100 * TOLERANCE:.0f} % (and {FLOOR_MS} ms) that no known kernel mechanism explains:\n"
        + _show(bad)
    )


def test_tolerance_has_an_absolute_floor() -> None:
    """5 % of a 40 ms load is 2 ms: the floor (3 ms) holds there; at 100 ms and above, 5 % does."""
    assert within({"model_ms": 42.9, "real_ms": 40.0}) and not within({"model_ms": 43.1, "real_ms": 40.0})
    assert within({"model_ms": 104.9, "real_ms": 100.0}) and not within({"model_ms": 94.9, "real_ms": 100.0})


def test_known_gaps_keep_direction_and_size(results: dict[str, Any]) -> None:
    for r in _quiet(results["rows"]):
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


def test_every_judged_load_was_quiet(results: dict[str, Any]) -> None:
    """A load is judged only when the relay kept time and the handshake's round trip was the path's (relay lateness
    median under 200 us, 4 % of the guard's shortest one-way delay, 5 ms; 99th percentile under 1 ms; excess under
    0.5 ms: bench.noise); a noisy one was loaded again, after a growing wait. A run that had no quiet load is judged
    on its noisy loads, with the time the machine's measured lateness can explain added to the tolerance
    (:func:`within_noisy`), and fails here, naming the noise, if they disagree beyond it. Two fresh-clone CI runs on
    2026-11-28 met a machine that stayed busy: c23 at -1.63 % (within tolerance) with a relay p99 of 1.66 ms, and c03
    h2 at -6.25 % (3.5 ms; -1 to -2 % on a quiet machine) with a p99 of 1.2 ms in all of its seven loads."""
    rows = results["rows"]
    noisy = [r for r in rows if r["noise"] and not within_noisy(r)]
    assert not noisy, "no quiet load could be had, and the noisy ones disagree with the model:\n" + _show(noisy)
    for r in (r for r in rows if not r["noise"]):
        assert all(x is not None and x < bench.QUIET_LATE_MEDIAN_US for x in r["relay_late_us"]), r["relay_late_us"]
        assert all(x is not None and x < bench.QUIET_LATE_P99_US for x in r["relay_late_p99_us"]), r["relay_late_us"]
        assert all(x < bench.QUIET_RTT_EXCESS_MS for x in r["rtt_excess_all"]), r["rtt_excess_all"]


def test_noise_is_named() -> None:
    """bench.noise on a quiet load and on loads too late or with a long handshake (no root needed)."""
    quiet = {"relay": {"late_median_us": 30.5, "late_p99_us": 120.0}, "overheads": {"rtt_excess": 0.2}}
    assert bench.noise(quiet) == []
    late = {"relay": {"late_median_us": 250.0, "late_p99_us": 3000.0}, "overheads": {"rtt_excess": 0.2}}
    assert [w.split(" us")[0] for w in bench.noise(late)] == [
        "relay lateness median 250.0",
        "relay lateness p99 3000.0",
    ]
    slow = {"relay": {"late_median_us": 30.5, "late_p99_us": 120.0}, "overheads": {"rtt_excess": 1.2}}
    assert bench.noise(slow) == ["handshake round trip 1.200 ms over the path's (quiet: < 0.5)"]
    assert bench.noise({"relay": {}, "overheads": {"rtt_excess": 0.1}})  # a relay that reported nothing is no quiet one


def test_noisy_runs_get_the_lateness_allowance() -> None:
    """A noisy run may be off by its tolerance plus two late crossings of the relay per round trip; a quiet one by
    its tolerance alone (no root needed). c03 h2 on 2026-11-28: 56.68 ms real, 53.14 model, p99 1.2 ms."""
    doc = {"network": {"rtt_ms": 10, "bandwidth_bps": 100e6}}
    c03 = {"doc": doc, "real_ms": 56.68, "model_ms": 53.14, "noise": ["p99"], "relay_late_p99_us": [1209.5, 1100.0]}
    assert bench.noise_allowance_ms(c03) == pytest.approx(2 * 5.668 * 1.2095)
    assert within_noisy(c03) and not within(c03)
    assert not within_noisy({**c03, "noise": []})
    assert not within_noisy({**c03, "model_ms": 56.68 - 10.0 - 3.0 - 13.72})  # a round trip and more off


def test_a_second_bench_waits_for_the_lock(tmp_path: Path) -> None:
    """The machine-wide lock: a second holder is refused after its wait, naming the first (no root needed)."""
    lock = tmp_path / "realstack.lock"
    fd = stack_lock(path=lock)
    try:
        code = (
            "import sys; from pathlib import Path; from validation.realstack import stack\n"
            "try:\n    stack.lock(wait_s=0.5, path=Path(sys.argv[1]))\n"
            "except stack.Unavailable as e:\n    print(e)\n    sys.exit(3)"
        )
        r = subprocess.run([sys.executable, "-c", code, str(lock)], capture_output=True, text=True, cwd=ROOT)
        assert r.returncode == 3, r.stderr
        assert f"holds {lock} (pid {os.getpid()}" in r.stdout
    finally:
        os.close(fd)
    r = subprocess.run([sys.executable, "-c", code, str(lock)], capture_output=True, text=True, cwd=ROOT)
    assert r.returncode == 0, r.stdout + r.stderr


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
