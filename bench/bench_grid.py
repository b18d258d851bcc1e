"""Benchmark: the batch CLI's cost per scenario against ns-3's, on the validation grid, in one run.

    .venv/bin/python bench/bench_grid.py [--limit N] [--ns3-limit N] [--repeats R] [--no-ns3]

The scenarios are the validation grid's (``validation.grid.scenarios()``: 320 plain-TCP scenarios, the
80 of the TLS block and the 60 of the Fast Open block, each asking for the five seed protocols and h2,
``tcp.profile: ns3``); ``--limit N`` keeps the first N.

The CLI: the scenarios are written to a temporary JSON Lines file and a JSON array file, and
``python -m latency_lab predict --jsonl FILE`` and ``python -m latency_lab predict FILE`` run as subprocesses over
the whole file, output to a file (JSON included), for both engines: the default (native, if built
and not stale) and ``LATENCY_LAB_ENGINE=python`` (the Python reference). Each command is timed by its
wall time, the median of R runs. Its start-up (interpreter, imports, the model's set-up) is the same
command on a one-scenario file of the same format (one protocol, a one-object page: a fraction of a
millisecond of prediction), also the median of R runs. Raw per-scenario cost: wall / N; net: (wall -
start-up) / N. The engine each subprocess runs is asked of ``python -m latency_lab --version`` before and
after, and every timed run's stderr is checked for the warning of a stale native build (the Python
engine then runs; the row says so).

ns-3: one ``validation.sim.Simulator`` worker (``validation/worker.py`` imports ns-3 into cppyy and
JIT-compiles ``validation/harness.cc``; that start-up is reported, not counted), a warm-up run not
counted, then every scenario (or ``--ns3-limit N`` of them, an even spread over the selection, so
every block is in it) put through ``Simulator.run`` for each of its six protocols, as
``Simulator.predict`` does: validation, the harness in ns-3 and the analysis of its trace, which gives
the model's output fields. The harness's share (``run_trace``: ns-3 plus the pipe) is shown apart.
The worker's start-up (about 10-15 s) is reported, not counted.
When ns-3 runs a subset, the CLI is timed over that subset too, so each ratio compares the same
scenarios.

Printed: per-scenario milliseconds of ns-3, the CLI native and the CLI Python, raw and net, and the
ratio ns-3 / CLI for each beside the goal (at least 100x, net, JSON included), with the date, the
number of scenarios, the machine's core count and load average. The goal is stated in wall time; a
second table gives the same figures in CPU time (user + sys of the processes doing the work: the CLI
subprocess; ns-3's worker and, for the trace analysis, this process), which other load on the machine
disturbs less. All figures come from this one run on this machine.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import re
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from validation import grid as G
from validation.sim import SimulationError, Simulator, as_scenario, ns3_available

REPO = Path(__file__).resolve().parents[1]

#: The goal of the Speed issue: the CLI at least this many times faster than ns-3 per scenario, JSON included.
GOAL_RATIO = 100.0
#: The start-up file's scenario: one protocol, a one-object page (its prediction costs a fraction of a ms).
TINY = {"protocols": ["http10"], "page": {"html_bytes": 1000, "object_bytes": []}}
ENGINES = ("native", "python")
FORMATS = ("jsonl", "json")


# ------------------------------------------------------------------------------------------------ CLI
def _env(engine: str) -> dict[str, str]:
    env = dict(os.environ)
    env.pop("LATENCY_LAB_ENGINE", None)
    if engine == "python":
        env["LATENCY_LAB_ENGINE"] = "python"
    return env


def engine_used(engine: str) -> str:
    """The engine ``python -m latency_lab`` really runs with ``engine``'s environment (a stale build runs Python)."""
    out = subprocess.run(
        [sys.executable, "-m", "latency_lab", "--version"],
        cwd=REPO,
        env=_env(engine),
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    m = re.search(r"engine: (\w+)", out)
    return m.group(1) if m else f"? ({out.strip()})"


def write_inputs(folder: Path, name: str, docs: Sequence[dict[str, Any]]) -> dict[str, Path]:
    """``docs`` as ``name.jsonl`` (one a line) and ``name.json`` (an array)."""
    jsonl, arr = folder / f"{name}.jsonl", folder / f"{name}.json"
    jsonl.write_text("".join(json.dumps(d) + "\n" for d in docs), encoding="utf-8")
    arr.write_text(json.dumps(list(docs)), encoding="utf-8")
    return {"jsonl": jsonl, "json": arr}


#: How ``latency_lab._backend``'s warning starts when the native engine was built from other sources than the ones
#: present (latency_lab._backend.STALE_WARNING; the Python engine then runs).
STALE = "native engine built from other sources than these"


def _children_cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def cli_once(path: Path, fmt: str, engine: str, out: Path) -> tuple[float, float, bool]:
    """Wall and CPU seconds of one ``python -m latency_lab predict`` over ``path``, its output written to ``out``,
    and whether the native engine was asked for but found stale (the Python engine ran)."""
    cmd = [sys.executable, "-m", "latency_lab", "predict", *(["--jsonl"] if fmt == "jsonl" else []), str(path)]
    with out.open("wb") as f:
        cpu0 = _children_cpu()
        t0 = time.perf_counter()
        proc = subprocess.run(cmd, cwd=REPO, env=_env(engine), stdout=f, stderr=subprocess.PIPE, check=False)
        wall = time.perf_counter() - t0
        cpu = _children_cpu() - cpu0
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} ({engine}) exited {proc.returncode}: {proc.stderr.decode()[-2000:]}")
    return wall, cpu, engine == "native" and STALE in proc.stderr.decode(errors="replace")


def check_output(out: Path, fmt: str, n: int) -> None:
    """The CLI answered every scenario (one document each)."""
    if fmt == "jsonl":
        with out.open("rb") as f:
            got = sum(1 for line in f if line.strip())
    else:
        data = json.loads(out.read_text(encoding="utf-8"))
        got = len(data) if isinstance(data, list) else 1
    if got != n:
        raise SystemExit(f"{out}: {got} output documents for {n} scenarios")


def measure_cli(
    folder: Path, name: str, docs: Sequence[dict[str, Any]], tiny: dict[str, Path], repeats: int
) -> dict[tuple[str, str], dict[str, float]]:
    """Per (engine, format): the median wall and CPU seconds of the whole file and of the start-up file."""
    files = write_inputs(folder, name, docs)
    res: dict[tuple[str, str], dict[str, float]] = {}
    for engine in ENGINES:
        for fmt in FORMATS:
            out = folder / f"{name}-{engine}.out.{fmt}"
            walls, starts, cpus, cpu_starts, stale = [], [], [], [], 0
            for i in range(repeats):  # interleaved, so a slow spell of the machine hits both alike
                wall, cpu, fell_back = cli_once(tiny[fmt], fmt, engine, folder / "tiny.out")
                starts.append(wall)
                cpu_starts.append(cpu)
                stale += fell_back
                wall, cpu, fell_back = cli_once(files[fmt], fmt, engine, out)
                walls.append(wall)
                cpus.append(cpu)
                stale += fell_back
                if i == 0:
                    check_output(out, fmt, len(docs))
            res[engine, fmt] = {
                "wall_s": statistics.median(walls),
                "wall_startup_s": statistics.median(starts),
                "cpu_s": statistics.median(cpus),
                "cpu_startup_s": statistics.median(cpu_starts),
                "stale_runs": stale,
                "runs": 2 * repeats,
            }
            print(
                f"  CLI {engine:<8} {fmt:<5} {name:<6} {len(docs):>4} scenarios: wall "
                + " ".join(f"{w:.2f}" for w in walls)
                + " s, start-up "
                + " ".join(f"{s:.2f}" for s in starts)
                + f" s; CPU {statistics.median(cpus):.2f} s, start-up {statistics.median(cpu_starts):.2f} s"
                + (f" (Python engine in {stale} of {2 * repeats} runs: native build stale)" if stale else ""),
                file=sys.stderr,
            )
    same = (folder / f"{name}-native.out.jsonl").read_bytes() == (folder / f"{name}-python.out.jsonl").read_bytes()
    res["same", "jsonl"] = {"identical": float(same)}
    return res


# ----------------------------------------------------------------------------------------------- ns-3
def _process_cpu(pid: int) -> float:
    """CPU seconds (user + sys) used so far by the running process ``pid`` (Linux ``/proc``)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def measure_ns3(grid: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """Every scenario of ``grid`` through one ns-3 worker, protocol by protocol (``Simulator.predict``'s path)."""
    t0 = time.perf_counter()
    sim = Simulator()
    sim.start()
    start_wall = time.perf_counter() - t0
    harness = [0.0]
    run_trace = sim.run_trace

    def timed_run_trace(setup: str) -> str:
        t = time.perf_counter()
        try:
            return run_trace(setup)
        finally:
            harness[0] += time.perf_counter() - t

    sim.run_trace = timed_run_trace  # type: ignore[method-assign]
    per_scenario: list[float] = []
    ids: list[str] = []
    per_protocol: dict[str, list[float]] = {}
    failed: list[str] = []
    try:
        t = time.perf_counter()
        sim.run(TINY, "http10")  # warm-up: the harness's first call, not counted
        warm_up = time.perf_counter() - t
        harness[0] = 0.0
        assert sim.proc is not None
        pid = sim.proc.pid
        worker_cpu0, own_cpu0 = _process_cpu(pid), time.process_time()
        total_t0 = time.perf_counter()
        for i, g in enumerate(grid):
            h0 = harness[0]
            t = time.perf_counter()
            try:
                s = as_scenario(g["doc"])
                times = {}
                for proto in s.protocols:
                    tp = time.perf_counter()
                    sim.run(s, proto)
                    times[proto] = time.perf_counter() - tp
            except SimulationError as exc:
                failed.append(f"{g['id']}: {exc}")
                harness[0] = h0
                continue
            per_scenario.append(time.perf_counter() - t)
            ids.append(g["id"])
            for proto, x in times.items():
                per_protocol.setdefault(proto, []).append(x)
            if (i + 1) % 50 == 0:
                print(f"  ns-3 {i + 1}/{len(grid)} scenarios, {time.perf_counter() - total_t0:.1f} s", file=sys.stderr)
        worker_cpu, own_cpu = _process_cpu(pid) - worker_cpu0, time.process_time() - own_cpu0
    finally:
        sim.close()
    return {
        "startup_s": sim.startup_s,
        "start_wall_s": start_wall,
        "warm_up_s": warm_up,
        "per_scenario_s": per_scenario,
        "ids": ids,
        "per_protocol_s": per_protocol,
        "harness_s": harness[0],
        "worker_cpu_s": worker_cpu,
        "own_cpu_s": own_cpu,
        "failed": failed,
    }


# ---------------------------------------------------------------------------------------------- table
def _ratio(a: float, b: float) -> str:
    return f"{a / b:.1f}x" if b > 0 else "-"


def table(kind: str, ns3: tuple[float, float] | None, cli: dict[tuple[str, str], dict[str, float]], n: int) -> str:
    """The figures per scenario in ``kind`` time (``wall`` or ``cpu``); ``ns3``: ns-3's full cost and its
    harness's share, ms per scenario."""
    head = f"{kind + ' ms per scenario':<36}{'raw':>8}{'net':>8}{'start-up':>10}"
    if ns3 is not None:
        head += f"{'full/raw':>10}{'full/net':>10}{'harness/net':>13}{'goal':>8}{'met':>9}"
    lines = [head]
    if ns3 is not None:
        lines.append(f"{'ns-3 full (Simulator.predict)':<36}{ns3[0]:>8.2f}")
        lines.append(f"{'ns-3 harness only (run_trace)':<36}{ns3[1]:>8.2f}")
    for engine in ENGINES:
        for fmt in FORMATS:
            c = cli[engine, fmt]
            total, startup = c[f"{kind}_s"], c[f"{kind}_startup_s"]
            raw = 1000 * total / n
            net = 1000 * (total - startup) / n
            ran = f"{engine} STALE {c['stale_runs']:.0f}/{c['runs']:.0f}" if c.get("stale_runs") else engine
            label = f"CLI {ran}, {'JSON Lines' if fmt == 'jsonl' else 'JSON array'}"
            row = f"{label:<36}{raw:>8.2f}{net:>8.2f}{1000 * startup:>10.0f}"
            if ns3 is not None:
                met = "/".join("yes" if net > 0 and x / net >= GOAL_RATIO else "no" for x in ns3)
                row += f"{_ratio(ns3[0], raw):>10}{_ratio(ns3[0], net):>10}{_ratio(ns3[1], net):>13}"
                row += f"{f'>={GOAL_RATIO:.0f}x':>8}{met:>9}"
            lines.append(row)
    return "\n".join(lines)


def spread(items: Sequence[dict[str, Any]], k: int) -> list[dict[str, Any]]:
    """``k`` of ``items``, evenly spread (all of them if ``k`` is at least their number)."""
    if k >= len(items):
        return list(items)
    return [items[int(j * len(items) / k)] for j in range(k)]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--limit", type=int, default=None, help="only the grid's first N scenarios (default: all)")
    ap.add_argument(
        "--ns3-limit",
        type=int,
        default=None,
        help="ns-3 over N of them, evenly spread (default: all); the CLI is then timed over those N too",
    )
    ap.add_argument("--repeats", type=int, default=3, help="CLI runs per command; the median counts (default 3)")
    ap.add_argument("--no-ns3", action="store_true", help="time the CLI only")
    args = ap.parse_args(argv)
    if args.repeats < 1 or (args.limit is not None and args.limit < 1):
        ap.error("--repeats and --limit must be at least 1")

    grid = G.scenarios()
    if args.limit is not None:
        grid = grid[: args.limit]
    run_ns3 = not args.no_ns3
    if run_ns3 and not ns3_available():
        print("the ns3 package is not installed: timing the CLI only", file=sys.stderr)
        run_ns3 = False
    ns3_grid = spread(grid, args.ns3_limit) if args.ns3_limit is not None else list(grid)
    if run_ns3 and not ns3_grid:
        ap.error("--ns3-limit must be at least 1")
    subset = run_ns3 and len(ns3_grid) < len(grid)

    load_before = os.getloadavg()[0]
    engines = {e: engine_used(e) for e in ENGINES}
    if engines["native"] != "native":
        print("warning: the default engine is not the native one (missing or stale build)", file=sys.stderr)

    with tempfile.TemporaryDirectory(prefix="bench-grid-") as tmp:
        folder = Path(tmp)
        tiny = write_inputs(folder, "tiny", [TINY])
        print(f"CLI over {len(grid)} scenarios, {args.repeats} runs each...", file=sys.stderr)
        cli = measure_cli(folder, "grid", [g["doc"] for g in grid], tiny, args.repeats)
        cli_sub = measure_cli(folder, "ns3set", [g["doc"] for g in ns3_grid], tiny, args.repeats) if subset else cli
    ns3 = None
    if run_ns3:
        print(f"ns-3 over {len(ns3_grid)} scenarios (start-up about 15 s)...", file=sys.stderr)
        ns3 = measure_ns3(ns3_grid)

    blocks = {k: sum(1 for g in grid if g["id"].startswith(k)) for k in "gtf"}
    runs = sum(len(g["doc"]["protocols"]) for g in grid)
    print(
        f"bench_grid {datetime.date.today().isoformat()}: {len(grid)} scenarios of the validation grid "
        f"({blocks['g']} plain, {blocks['t']} TLS, {blocks['f']} Fast Open; {runs} protocol runs), "
        f"{os.cpu_count()} cores ({len(os.sched_getaffinity(0))} usable), Python {sys.version.split()[0]}, "
        f"load average {load_before:.2f} at the start, {os.getloadavg()[0]:.2f} at the end"
    )
    print(f"CLI: median of {args.repeats} runs, output to a file; net = (time - start-up) / scenarios")
    print(
        f"engines (python -m latency_lab --version): default {engines['native']} at the start, "
        f"{engine_used('native')} at the end; LATENCY_LAB_ENGINE=python {engines['python']}; "
        f"--jsonl outputs identical across engines: {'yes' if cli['same', 'jsonl']['identical'] else 'NO'}"
    )
    if any(c.get("stale_runs") for c in (*cli.values(), *cli_sub.values())):
        print(
            "STALE k/n: the native build was stale (built from other sources) in k of the n timed runs (the Python engine ran)"
        )
    pairs: dict[str, tuple[float, float] | None] = {"wall": None, "cpu": None}
    if ns3 is not None:
        ok = ns3["per_scenario_s"]
        print(
            f"ns-3: worker start-up {ns3['start_wall_s']:.1f} s (import + harness JIT {ns3['startup_s']} s) and "
            f"warm-up run {1000 * ns3['warm_up_s']:.0f} ms, not counted; {len(ok)} scenarios in {sum(ok):.1f} s"
            + (f", {len(ns3['failed'])} failed (left out): {ns3['failed'][:3]}" if ns3["failed"] else "")
        )
        if ok:
            full_ms = 1000 * sum(ok) / len(ok)
            harness_ms = 1000 * ns3["harness_s"] / len(ok)
            worker_cpu_ms = 1000 * ns3["worker_cpu_s"] / len(ok)
            own_cpu_ms = 1000 * ns3["own_cpu_s"] / len(ok)
            pairs = {"wall": (full_ms, harness_ms), "cpu": (worker_cpu_ms + own_cpu_ms, worker_cpu_ms)}
            slowest = max(range(len(ok)), key=ok.__getitem__)
            print(
                f"  per scenario: mean {full_ms:.2f} ms (median {1000 * statistics.median(ok):.2f}, max "
                f"{1000 * ok[slowest]:.0f} ({ns3['ids'][slowest]})); of the mean, the harness in ns-3 (+ pipe) "
                f"{harness_ms:.2f} ms, validation and trace analysis {full_ms - harness_ms:.2f} ms"
            )
            print(
                f"  CPU per scenario: ns-3's worker {worker_cpu_ms:.2f} ms, this process (validation, trace analysis) "
                f"{own_cpu_ms:.2f} ms"
            )
            print(
                "  per run by protocol (mean ms): "
                + ", ".join(f"{p} {1000 * statistics.mean(x):.2f}" for p, x in ns3["per_protocol_s"].items())
            )
    n = len(ns3_grid) if subset else len(grid)
    for kind in ("wall", "cpu"):
        print()
        if subset:
            print(f"All {len(grid)} scenarios (CLI only):")
            print(table(kind, None, cli, len(grid)))
            print(f"The {len(ns3_grid)} scenarios ns-3 ran (an even spread: --ns3-limit), the CLI over the same:")
        print(table(kind, pairs[kind], cli_sub, n))
    if pairs["wall"] is not None:
        print(
            "full/raw, full/net: ns-3's full cost over the CLI's raw and net cost; harness/net: ns-3's harness alone "
            "over the CLI's net cost; met: the goal on full/net and on harness/net"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
