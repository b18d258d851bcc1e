"""Load test of the JSON API: the README's server (gunicorn with scripts/gunicorn.conf.py: gevent workers, one per core,
at least 2) on 127.0.0.1 only, driven by wrk; ``--worker-class sync`` or ``gthread`` for 2 plain gunicorn workers.

    bash bench/api_load.sh                    # installs wrk if needed, then runs this (about 2-3 minutes)
    python bench/api_load.py [--duration 60] [--short 20] [--connections 4] [--port 8765]
    python bench/api_load.py --calibrate      # µs of model time per work unit (latency_lab/scenario/limits.py)
    python bench/api_load.py --limits         # time the largest requests the limits allow
    python bench/api_load.py --profile 2000   # in process: a predict's CPU, the model's share, where the rest goes

Runs, each against the goals of issue 6 (predict: at least 1000 requests/s with p99 under 50 ms;
a sweep answered in under 150 ms; no errors; flat memory over a 60-second run):

1. ``predict-distinct``: a 10-object predict (the default scenario with ten 2,544-byte objects), every
   request a different scenario (``network.rtt_ms`` varies), so no answer comes from the answers cache:
   what the model costs. Runs ``--duration`` seconds while the workers' memory is sampled.
2. ``predict-repeated``: the same request over and over: answered from the answers cache (after a
   2-second warm-up, not reported, so each worker has computed it once).
3. ``sweep-distinct``: a 200-point, five-protocol ``network.rtt_ms`` sweep (log, 10 to 1000 ms) of the
   same page, one request at a time, every request different: one sweep's time.
4. ``sweep-repeated``: the same sweep over and over, from the cache (after a 5-second warm-up in which
   each worker computes it once).

Every figure comes from this run on this machine; nothing is assumed. The server and wrk share the
machine's cores. wrk sends traffic to 127.0.0.1 only, and every run stops by itself.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import psutil

ROOT = Path(__file__).resolve().parents[1]
BENCH = ROOT / "bench"
HOST = "127.0.0.1"
PAGE_QUERY = "page.object_count=10&page.object_size_bytes=2544"

GOAL_PREDICT_RPS = 1000.0
GOAL_PREDICT_P99_MS = 50.0
GOAL_SWEEP_MS = 150.0


@dataclass
class WrkResult:
    name: str
    requests: int = 0
    seconds: float = 0.0
    rps: float = 0.0
    p50_ms: float = float("nan")
    p99_ms: float = float("nan")
    max_ms: float = float("nan")
    non_2xx: int = 0
    socket_errors: int = 0
    raw: str = ""
    worker_cpu_s: float = float("nan")  # CPU seconds the server's workers spent during the run (user + system)


@dataclass
class Memory:
    samples: list[tuple[float, int]] = field(default_factory=list)  # (seconds since start, total worker RSS in KiB)


#: The issue's sweep: 200 points (log-spaced RTT) x 5 protocols of a 10-object page.
SWEEP_200: dict[str, object] = {
    "field": "network.rtt_ms",
    "start": 10,
    "stop": 1000,
    "steps": 200,
    "spacing": "log",
    "scenario": {"page": {"object_count": 10, "object_size_bytes": 2544}},
}


def _ms(text: str) -> float:
    m = re.fullmatch(r"([\d.]+)(us|ms|s|m)", text.strip())
    if not m:
        return float("nan")
    value, unit = float(m.group(1)), m.group(2)
    return value * {"us": 0.001, "ms": 1.0, "s": 1000.0, "m": 60000.0}[unit]


def parse_wrk(name: str, out: str) -> WrkResult:
    r = WrkResult(name, raw=out)
    if m := re.search(r"(\d+) requests in ([\d.]+)(ms|s|m)", out):
        r.requests = int(m.group(1))
        r.seconds = _ms(m.group(2) + m.group(3)) / 1000
    if m := re.search(r"Requests/sec:\s+([\d.]+)", out):
        r.rps = float(m.group(1))
    if m := re.search(r"^\s+50%\s+(\S+)", out, re.M):
        r.p50_ms = _ms(m.group(1))
    if m := re.search(r"^\s+99%\s+(\S+)", out, re.M):
        r.p99_ms = _ms(m.group(1))
    if m := re.search(r"Latency\s+\S+\s+\S+\s+(\S+)", out):
        r.max_ms = _ms(m.group(1))
    if m := re.search(r"Non-2xx or 3xx responses: (\d+)", out):
        r.non_2xx = int(m.group(1))
    if m := re.search(r"Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)", out):
        r.socket_errors = sum(int(x) for x in m.groups())
    return r


def wrk(
    name: str, url: str, seconds: int, connections: int, script: Path | None = None, env: dict[str, str] | None = None
) -> WrkResult:
    cmd = ["wrk", "-t1", f"-c{connections}", f"-d{seconds}s", "--timeout", "10s", "--latency"]
    if script is not None:
        cmd += ["-s", str(script)]
    cmd.append(url)
    out = subprocess.run(
        cmd, capture_output=True, text=True, check=True, env={**os.environ, **(env or {})}, timeout=seconds + 60
    )
    return parse_wrk(name, out.stdout)


def cpu_seconds(pids: list[int]) -> float:
    """User and system CPU seconds of ``pids`` so far (psutil; 0 for a process gone)."""
    total = 0.0
    for pid in pids:
        with contextlib.suppress(psutil.Error):
            times = psutil.Process(pid).cpu_times()
            total += times.user + times.system
    return total


def measured(master: int, run: Callable[[], WrkResult]) -> WrkResult:
    """``run()`` with the CPU its server's workers spent meanwhile: per request, what the server costs whatever else
    the machine runs (a busy machine slows the requests, not the CPU each takes)."""
    pids = worker_pids(master)
    before = cpu_seconds(pids)
    r = run()
    r.worker_cpu_s = cpu_seconds(pids) - before
    return r


def worker_pids(master: int) -> list[int]:
    """The server's worker processes: the master's children (psutil; none if it is gone)."""
    try:
        return sorted(c.pid for c in psutil.Process(master).children())
    except psutil.Error:
        return []


def rss_kib(pid: int) -> int:
    """Resident memory of ``pid`` in KiB (psutil; 0 for a process gone)."""
    try:
        return int(psutil.Process(pid).memory_info().rss // 1024)
    except psutil.Error:
        return 0


def sample_memory(master: int, stop: threading.Event, memory: Memory, every: float = 2.0) -> None:
    t0 = time.monotonic()
    while not stop.is_set():
        memory.samples.append((time.monotonic() - t0, sum(rss_kib(p) for p in worker_pids(master))))
        stop.wait(every)


def start_server(port: int, worker_class: str = "readme") -> subprocess.Popen[bytes]:
    """gunicorn on ``port``: ``readme`` is the README's server (``bash scripts/run.sh``'s gunicorn and its
    scripts/gunicorn.conf.py, with the same malloc setting, without run.sh's venv set-up); ``sync`` or ``gthread``
    2 plain workers of that class."""
    gunicorn = Path(sys.executable).with_name("gunicorn")
    env = dict(os.environ)
    if worker_class == "readme":
        env.update(PORT=str(port), HOST=HOST, GUNICORN_CMD_ARGS="--log-level warning")
        env.setdefault("MALLOC_MMAP_THRESHOLD_", "131072")  # as scripts/run.sh sets it
        cmd = [str(gunicorn), "-c", "scripts/gunicorn.conf.py", "latency_lab_web:create_app()"]
    else:
        cmd = [
            str(gunicorn),
            "--workers",
            "2",
            "--worker-class",
            worker_class,
            "--bind",
            f"{HOST}:{port}",
            "--log-level",
            "warning",
            "--limit-request-line",
            "8190",
            "latency_lab_web:create_app()",
        ]
    proc = subprocess.Popen(cmd, cwd=ROOT, env=env)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(f"http://{HOST}:{port}/healthz", timeout=1) as r:
                if r.status == 200 and len(worker_pids(proc.pid)) >= 2:
                    return proc
        except OSError:
            time.sleep(0.2)
    proc.terminate()
    raise SystemExit("gunicorn did not start")


def stop_server(proc: subprocess.Popen[bytes]) -> None:
    proc.send_signal(signal.SIGTERM)
    try:
        proc.wait(timeout=30)
    except subprocess.TimeoutExpired:
        proc.kill()


def check_answers(port: int) -> None:
    """One request of each kind, checked, so the load runs measure real answers; an error answer stops the bench
    with its problem document's detail (the sweep needs 125,680 engine steps: over the Python engine's budget)."""
    try:
        _check_answers(port)
    except urllib.error.HTTPError as exc:
        try:
            detail = json.load(exc).get("detail", "")
        except ValueError:
            detail = ""
        raise SystemExit(
            f"the server answered {exc.code} to {exc.url}: {detail or exc.reason}\n(engine: {engine_text()}; "
            "the 200-point sweep needs the native engine: pip install -e . builds it)"
        ) from None


def engine_text() -> str:
    """What ``python -m latency_lab --version`` says in this environment (the engine the server's workers import)."""
    out = subprocess.run([sys.executable, "-m", "latency_lab", "--version"], cwd=ROOT, capture_output=True, text=True)
    return out.stdout.strip() or out.stderr.strip()[-300:]


def _check_answers(port: int) -> None:
    base = f"http://{HOST}:{port}"
    with urllib.request.urlopen(f"{base}/api/v1/predict?{PAGE_QUERY}", timeout=10) as r:
        doc = json.load(r)
        assert len(doc["results"]) == 5 and len(doc["results"][0]["objects"]) == 11, doc
    body = SWEEP_200
    req = urllib.request.Request(
        f"{base}/api/v1/sweep", json.dumps(body).encode(), {"Content-Type": "application/json"}, method="POST"
    )
    with urllib.request.urlopen(req, timeout=30) as r:
        out = json.load(r)
        assert len(out["values"]) == 200 and len(out["series"]) == 5, out


def verdict(ok: bool) -> str:
    return "meets" if ok else "MISSES"


def report(results: list[WrkResult], memory: Memory) -> None:
    print(
        f"\n{'run':<18}{'requests':>9}{'req/s':>9}{'p50 ms':>9}{'p99 ms':>9}{'max ms':>9}{'non-2xx':>9}{'sock err':>9}"
        f"{'cpu ms/req':>11}{'idle req/s':>11}"
    )
    cores = os.cpu_count() or 1
    for r in results:
        per = r.worker_cpu_s * 1000 / r.requests if r.requests else float("nan")
        print(
            f"{r.name:<18}{r.requests:>9}{r.rps:>9.1f}{r.p50_ms:>9.2f}{r.p99_ms:>9.2f}{r.max_ms:>9.1f}"
            f"{r.non_2xx:>9}{r.socket_errors:>9}{per:>11.2f}{cores * 1000 / per if per > 0 else float('nan'):>11.0f}"
        )
    print(
        f"  (cpu ms/req: the workers' CPU per request; idle req/s: {cores} cores over it, what the server could answer "
        "with the machine to itself, wrk's own CPU not counted)"
    )
    by = {r.name: r for r in results}
    print("\nagainst the goals:")
    for name in ("predict-distinct", "predict-repeated"):
        r = by[name]
        ok = r.rps >= GOAL_PREDICT_RPS and r.p99_ms < GOAL_PREDICT_P99_MS
        print(
            f"  {name}: {r.rps:.0f} req/s (goal >= {GOAL_PREDICT_RPS:.0f}), p99 {r.p99_ms:.1f} ms "
            f"(goal < {GOAL_PREDICT_P99_MS:.0f}): {verdict(ok)}"
        )
    for name in ("sweep-distinct", "sweep-repeated"):
        r = by[name]
        print(
            f"  {name}: p50 {r.p50_ms:.1f} ms, p99 {r.p99_ms:.1f} ms (goal < {GOAL_SWEEP_MS:.0f} ms): "
            f"{verdict(r.p99_ms < GOAL_SWEEP_MS)}"
        )
    errors = sum(r.non_2xx + r.socket_errors for r in results)
    print(f"  errors (non-2xx and socket errors, all runs): {errors}: {verdict(errors == 0)}")
    if memory.samples:
        kib = [k for _, k in memory.samples]
        settled = [k for t, k in memory.samples if t >= 10] or kib
        print(
            f"  worker memory (both workers' RSS) over predict-distinct: start {kib[0] / 1024:.1f} MiB, "
            f"at 10 s {settled[0] / 1024:.1f} MiB, end {kib[-1] / 1024:.1f} MiB, max {max(kib) / 1024:.1f} MiB; "
            f"growth after 10 s {(settled[-1] - settled[0]) / 1024:+.1f} MiB"
        )
        print("  RSS every 10 s (MiB): " + " ".join(f"{k / 1024:.0f}" for t, k in memory.samples if int(t) % 10 < 2))


def calibrate() -> int:
    """Model time per work unit for a spread of pages and protocols (the basis of latency_lab/scenario/limits.py)."""
    sys.path.insert(0, str(ROOT))
    from latency_lab import ALL_PROTOCOLS, Scenario
    from latency_lab.analysis.predict import result, simulate
    from latency_lab.scenario.limits import work_units
    from latency_lab.scenario.params import resolve

    print(f"{'page':<34}{'protocol':<17}{'units':>7}{'ms':>9}{'us/unit':>9}")
    worst = 0.0
    pages = ((6000, 0, 0), (6000, 10, 2544), (6000, 10, 60000), (6000, 100, 2544), (6000, 300, 14000))
    for html, count, size in (*pages, (6000, 999, 0), (10_000_000, 0, 0)):
        for proto in ALL_PROTOCOLS:
            try:
                s = Scenario.model_validate(
                    {
                        "protocols": [proto],
                        "page": {"html_bytes": html, "object_count": count, "object_size_bytes": size},
                    }
                )
            except ValueError:
                continue
            p = resolve(s)
            best = float("inf")
            for _ in range(3):
                t0 = time.perf_counter()
                result(simulate(p, proto), proto)
                best = min(best, time.perf_counter() - t0)
            units = work_units(s)
            per = best * 1e6 / units
            worst = max(worst, per)
            print(f"{f'{html} B + {count} x {size} B':<34}{proto:<17}{units:>7}{best * 1000:>9.2f}{per:>9.1f}")
    print(f"\nworst: {worst:.1f} us per unit")
    return 0


def limits() -> int:
    """Time the largest requests the limits allow, one at a time, in process, with the answers cache off."""
    sys.path.insert(0, str(ROOT))
    from latency_lab import Scenario
    from latency_lab.scenario.limits import work_units
    from latency_lab_web import create_app

    client = create_app({"TESTING": True, "API_CACHE_BYTES": 0}).test_client()
    big = {"page": {"object_count": 999, "object_size_bytes": 13800}}  # 9,995 segments: the scenario's cap
    cases: list[tuple[str, str, str, dict[str, object] | None]] = [
        ("predict, 999 objects, 9,995 segments (refused)", "POST", "/api/v1/predict", big),
        (
            "predict, 2 protocols, 999 objects, 9,995 segments",
            "POST",
            "/api/v1/predict",
            {**big, "protocols": ["http10", "http10_parallel"]},
        ),
        ("predict, HTML of 9,990 segments", "POST", "/api/v1/predict", {"page": {"html_bytes": 14_585_200}}),
        (
            "predict with packets, 12,000 units",
            "POST",
            "/api/v1/predict?packets=true",
            {"protocols": ["http10"], "page": {"object_count": 1000, "object_size_bytes": 10000}},
        ),
        (
            "formula, http10, 3,000 units",
            "POST",
            "/api/v1/formulas/http10",
            {"page": {"object_count": 400, "object_size_bytes": 2000}},
        ),
        (
            "formula, persistent, HTML of 2,900 segments",
            "POST",
            "/api/v1/formulas/persistent",
            {"page": {"html_bytes": 4_233_800, "object_bytes": []}},
        ),
        (
            "sweep, 200 points x 5 protocols x 10 objects",
            "POST",
            "/api/v1/sweep",
            SWEEP_200,
        ),
        (
            "sweep, 3 points x 5 protocols x 990 objects",
            "POST",
            "/api/v1/sweep",
            {
                "field": "network.rtt_ms",
                "values": [10, 100, 1000],
                "scenario": {"page": {"object_count": 990, "object_size_bytes": 0}},
            },
        ),
    ]
    print(f"{'request':<48}{'units':>8}{'status':>8}{'best s':>8}{'worst s':>8}")
    for name, method, url, body in cases:
        times = []
        status = 0
        for _ in range(2):
            t0 = time.perf_counter()
            response = client.open(url, method=method, json=body)
            times.append(time.perf_counter() - t0)
            status = response.status_code
        units = ""
        if "sweep" not in url and body is not None:
            doc = {k: v for k, v in body.items()}
            proto = url.rsplit("/", 1)[-1] if "formulas" in url else None
            s = Scenario.model_validate({**doc, **({"protocols": [proto]} if proto else {})})
            units = f"{work_units(s):,}"
        print(f"{name:<48}{units:>8}{status:>8}{min(times):>8.2f}{max(times):>8.2f}")
    return 0


#: Where a profiled request's own time (cProfile's tottime) is counted, by the file a function lives in: the first
#: group whose text is in the path (the model's engine, in C++, is counted with the model that calls it).
PROFILE_GROUPS: tuple[tuple[str, str], ...] = (
    ("/latency_lab_web/", "the app (latency_lab_web)"),
    ("/latency_lab/", "the model (latency_lab)"),
    ("/flask/", "Flask and Werkzeug"),
    ("/werkzeug/", "Flask and Werkzeug"),
    ("/pydantic", "pydantic (validation, JSON)"),
    ("pydantic_core", "pydantic (validation, JSON)"),
)


def profile_group(filename: str, function: str) -> str:
    """The group of :data:`PROFILE_GROUPS` a profiled function belongs to (``~`` files are built-ins, named by the
    function: pydantic_core's writer and validator are counted as pydantic)."""
    where = function if filename == "~" else filename
    for text, group in PROFILE_GROUPS:
        if text in where:
            return group
    return "other (the standard library, built-ins)"


def profile(requests: int) -> int:
    """In process, the README's app with its answers cache off: ``requests`` different 10-object predicts through
    ``app.wsgi_app`` (what gunicorn calls), timed, then the model alone on the same scenarios, then the requests again
    under cProfile with their own time grouped by where it is spent. gunicorn's own part (parsing, sockets) is not
    in it: compare with the cpu ms/req of a load run."""
    import cProfile
    import pstats

    sys.path.insert(0, str(ROOT))
    from werkzeug.test import EnvironBuilder

    from latency_lab import predict
    from latency_lab.analysis.answer import listed
    from latency_lab.scenario.errors import validate_scenario
    from latency_lab_web import create_app

    app = create_app({"API_CACHE_BYTES": 0})
    rtts = [1 + (i * 0.37) % 998 for i in range(requests + 50)]
    environs = [
        EnvironBuilder(path="/api/v1/predict", query_string=f"network.rtt_ms={rtt!r}&{PAGE_QUERY}").get_environ()
        for rtt in rtts
    ]
    docs = [{"network": {"rtt_ms": rtt}, "page": {"object_count": 10, "object_size_bytes": 2544}} for rtt in rtts]

    def status(text: str, headers: Any, exc_info: Any = None) -> Any:
        if not text.startswith("200"):
            raise SystemExit(f"the app answered {text}")
        return None

    def serve(batch: list[dict[str, object]]) -> None:
        for environ in batch:
            b"".join(app.wsgi_app(dict(environ), status))

    def model(batch: list[dict[str, object]]) -> None:
        for doc in batch:
            listed(predict(validate_scenario(doc)))

    serve(environs[-50:])  # warm: imports, caches of the schema
    model(docs[-50:])
    runs = [("the whole request (app.wsgi_app)", serve, environs), ("the model alone (validate, predict)", model, docs)]
    print(f"{requests} different 10-object predicts in process, answers cache off; CPU ms a request, best of 3:")
    for name, run, batch in runs:
        best = float("inf")
        for _ in range(3):
            t0 = time.process_time()
            run(batch[:requests])
            best = min(best, time.process_time() - t0)
        print(f"  {name:<38}{best * 1000 / requests:>8.3f}")
    profiler = cProfile.Profile()
    profiler.runcall(serve, environs[:requests])
    stats = pstats.Stats(profiler)
    groups: dict[str, float] = {}
    raw: dict[tuple[str, int, str], tuple[int, int, float, float, object]] = stats.stats  # type: ignore[attr-defined]
    for (filename, _line, function), (_cc, _nc, tottime, _ct, _callers) in raw.items():
        key = profile_group(filename, function)
        groups[key] = groups.get(key, 0.0) + tottime
    total = sum(groups.values())
    print("where its time goes (cProfile, own time of each function, grouped; the profiler slows small calls most):")
    for key, seconds in sorted(groups.items(), key=lambda kv: -kv[1]):
        print(f"  {key:<42}{100 * seconds / total:>6.1f} %")
    print(f"load average: {os.getloadavg()}")
    return 0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--duration", type=int, default=60, help="seconds of predict-distinct (memory sampled)")
    ap.add_argument("--short", type=int, default=20, help="seconds of each other run")
    ap.add_argument("--connections", type=int, default=4, help="wrk connections for the predict runs")
    ap.add_argument("--port", type=int, default=8765)
    ap.add_argument(
        "--worker-class",
        default="readme",
        choices=("readme", "sync", "gthread"),
        help="readme: the README's server (scripts/gunicorn.conf.py); sync or gthread: 2 plain workers of that class",
    )
    ap.add_argument("--calibrate", action="store_true", help="print model time per work unit and exit")
    ap.add_argument("--limits", action="store_true", help="time the largest requests the limits allow and exit")
    ap.add_argument(
        "--profile",
        type=int,
        metavar="N",
        default=0,
        help="in process: N different predicts timed, the model alone, and where a request's time goes; then exit",
    )
    args = ap.parse_args(argv)
    if args.profile:
        return profile(args.profile)
    if args.calibrate:
        return calibrate()
    if args.limits:
        return limits()
    if shutil.which("wrk") is None:
        raise SystemExit("wrk is not installed: apt-get install wrk (bench/api_load.sh does it)")
    load_before = os.getloadavg()
    proc = start_server(args.port, args.worker_class)
    workers = len(worker_pids(proc.pid))
    results: list[WrkResult] = []
    memory = Memory()
    try:
        check_answers(args.port)
        base = f"http://{HOST}:{args.port}"
        stop = threading.Event()
        sampler = threading.Thread(target=sample_memory, args=(proc.pid, stop, memory), daemon=True)
        sampler.start()
        results.append(
            measured(
                proc.pid,
                lambda: wrk(
                    "predict-distinct",
                    base,
                    args.duration,
                    args.connections,
                    BENCH / "wrk_unique_predict.lua",
                    {"BENCH_QUERY": PAGE_QUERY},
                ),
            )
        )
        stop.set()
        sampler.join()
        repeated = f"{base}/api/v1/predict?network.rtt_ms=70&{PAGE_QUERY}"
        wrk("warm-up", repeated, 2, args.connections)  # both workers' caches get the answer (not reported)
        results.append(measured(proc.pid, lambda: wrk("predict-repeated", repeated, args.short, args.connections)))
        results.append(
            measured(
                proc.pid,
                lambda: wrk("sweep-distinct", base, args.short, 1, BENCH / "wrk_sweep.lua", {"BENCH_UNIQUE": "1"}),
            )
        )
        wrk("warm-up", base, 5, args.connections, BENCH / "wrk_sweep.lua")  # a cold sweep per worker first
        results.append(
            measured(
                proc.pid, lambda: wrk("sweep-repeated", base, args.short, args.connections, BENCH / "wrk_sweep.lua")
            )
        )
    finally:
        stop_server(proc)
    print(
        f"gunicorn: {workers} {args.worker_class} workers on {HOST}:{args.port}; "
        f"wrk: 1 thread, {args.connections} connections (sweep-distinct: 1)"
    )
    print(f"load average before: {load_before}, after: {os.getloadavg()} (on {os.cpu_count()} cores)")
    print(f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}; {engine_text()}")
    report(results, memory)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
