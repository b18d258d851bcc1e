"""Memory soak of the served app: the README's ``bash scripts/run.sh`` under a mix of never-repeated requests.

    python bench/soak.py [--seconds 60] [--warmup SECONDS] [--clients N] [--interval 1] [--mmap-threshold BYTES]

Starts ``bash scripts/run.sh`` on a free loopback port (its own session; the whole process group is stopped
at the end), then for ``--seconds`` sends, from ``--clients`` threads (default: two per gunicorn worker, at
least 4), requests that each ask for something new, so that every cache of the app fills and then has to
evict:

- ``static``: the plotly bundle (1.2 MB) with a ``?v=`` never sent before (every fourth request: the
  current version), asking in turn for brotli, zstd or gzip;
- ``page``: the calculator on the n97-wan preset with a new ``network.rtt_ms`` (a new results entry,
  about 0.11 MB);
- ``big``: a 400-object page with a new ``network.rtt_ms`` (about 0.58 MB of results in the cache);
- ``sweep``: the calculator sweeping ``page.object_count`` on the preset with a new ``network.rtt_ms`` (a
  new results entry and a new sweep entry), as an htmx fragment;
- ``api``: ``GET /api/v1/predict?packets=true`` on the preset with a new ``network.rtt_ms`` (about 230 KB)
  and ``POST /api/v1/predict`` with a new scenario (about 14 KB).

Every ``--interval`` seconds it reads the resident memory (``VmRSS`` in ``/proc/<pid>/status``) of each
gunicorn worker (the master's children) and prints the curve, with the requests per second since the last
sample; then each worker's memory after the warm-up (default: the first half) and at the end, each the
median of the samples of the last 5 s. tests/latency_lab_web/test_memory.py runs the same soak and asserts the end
within 10 % of the warm-up's figure.

``--mmap-threshold 131072`` serves with ``MALLOC_MMAP_THRESHOLD_=131072`` (see :data:`MMAP_ENV`; the test
does): without it glibc's heap fragments for minutes and the workers creep whatever the caches do.

Figures, one run each unless said (2026-11-25, a 2-core machine shared with other jobs, hence the request
rates; 2 workers, 4 clients, 60 s, 30 s warm-up; every request answered 200 or 303); per worker, MB after the
warm-up -> at the end:

- before the caches were bounded by bytes (the app of commit 7f13c99; static compression kept per ``?v=``,
  results kept by count): 326 -> 457 and 310 -> 435 (+40 %, 59 requests/s); with the fixed mmap threshold
  251 -> 316 and 255 -> 305 (+26 %, +20 %; 43/s). Still growing at the end.
- after, with the fixed mmap threshold (two runs): 155.2 -> 156.2, 155.3 -> 156.1 (+0.6 %, 80/s) and
  156.1 -> 157.7, 152.5 -> 154.3 (+1.0 %, +1.2 %; 71/s).
- after, as run.sh serves today (three runs; the first, and the 300 s one, before static files stopped being
  read on cache hits): 230 -> 251, 251 -> 263 (+9.1 %, +4.4 %; 115/s), 222 -> 248,
  218 -> 233 (+11.8 %, +6.7 %; 134/s), 237 -> 244, 238 -> 245 (+2.8 %, +3.0 %; 135/s); over 300 s one
  worker went 237 -> 268 MB by 170 s (when max_requests recycled both workers), the other 241 -> 249.
"""

from __future__ import annotations

import argparse
import datetime
import http.client
import itertools
import json
import os
import statistics
import sys
import tempfile
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from tests.latency_lab_web.test_server import (  # noqa: E402  (after the path set-up above)
    HOST,
    Server,
    live_processes,
    start_server,
)

PLOTLY = "/static/vendor/plotly-basic-4.1.1.min.js"
PRESET = "n97-wan"
ENCODINGS = ("br", "zstd", "gzip")
#: One client's round of requests (a client starts at its own offset in it).
ROUND = ("static", "page", "api", "static", "sweep", "api", "static", "page", "api", "big")
#: glibc's malloc: with this set (to its default, 128 KiB) the threshold above which a block gets its own mapping
#: stays fixed, instead of rising to the largest block freed so far (up to 32 MiB), which leaves the big passing
#: buffers of a page (a few MB) in the heap between cached values, where the holes they leave keep the heap growing.
MMAP_ENV = "MALLOC_MMAP_THRESHOLD_"
MMAP_THRESHOLD = 128 * 1024
#: Seconds of samples whose median gives the memory at the end of the warm-up and at the end of the soak.
WINDOW_S = 5.0


# --- the server ----------------------------------------------------------------------------------------------


def workers(master: int) -> list[int]:
    """The live children of process ``master`` (gunicorn's workers), by pid."""
    return sorted(pid for pid, ppid, _group in live_processes() if ppid == master)


def rss_bytes(pid: int) -> int | None:
    """Resident memory of ``pid`` (``VmRSS``), ``None`` if it has ended."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    except OSError:
        pass
    return None


# --- the load ------------------------------------------------------------------------------------------------


def current_version(port: int) -> str:
    """The ``?v=`` the calculator's page links the plotly bundle with."""
    page = _send(port, "GET", f"/?preset={PRESET}", None, {})[1].decode()
    at = page.index(PLOTLY + "?v=") + len(PLOTLY) + 3
    return page[at : at + 12]


def _send(port: int, method: str, path: str, body: Any, headers: dict[str, str]) -> tuple[int, bytes]:
    data = None
    headers = {"Connection": "close", "Accept-Encoding": "identity", **headers}
    if body is not None:
        data = json.dumps(body).encode()
        headers["Content-Type"] = "application/json"
    conn = http.client.HTTPConnection(HOST, port, timeout=30)
    try:
        conn.request(method, path, body=data, headers=headers)
        response = conn.getresponse()
        return response.status, response.read()
    finally:
        conn.close()


@dataclass
class Load:
    """Clients sending the mix; every request draws a new number, so none repeats another."""

    port: int
    version: str
    numbers: itertools.count[int] = field(default_factory=itertools.count)
    counts: Counter[str] = field(default_factory=Counter)
    failures: list[str] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def one(self, kind: str, n: int) -> None:
        rtt = f"{1 + n * 0.01:.2f}".rstrip("0").rstrip(".")  # a new round-trip time (ms), as the page writes it
        headers = {"Accept-Encoding": "gzip, deflate, br, zstd"}
        body = None
        method = "GET"
        if kind == "static":
            v = self.version if n % 4 == 0 else f"{n:012x}"
            path = f"{PLOTLY}?v={v}"
            headers["Accept-Encoding"] = ENCODINGS[n % 3]
        elif kind == "page":
            path = f"/?preset={PRESET}&network.rtt_ms={rtt}"
        elif kind == "big":
            path = f"/?network.rtt_ms={rtt}&page.object_count=400&page.object_size_bytes=2000"
        elif kind == "sweep":
            path = f"/?preset={PRESET}&network.rtt_ms={rtt}&sweep=page.object_count"
            headers["HX-Request"] = "true"
        elif n % 2:
            path = f"/api/v1/predict?preset={PRESET}&network.rtt_ms={rtt}&packets=true"
        else:
            method, path, body = (
                "POST",
                "/api/v1/predict",
                {"network": {"rtt_ms": float(rtt)}, "tcp": {"nagle": n % 4 == 0}},
            )
        try:
            status, _ = _send(self.port, method, path, body, headers)
        except OSError as exc:
            status, problem = 0, repr(exc)
        else:
            problem = f"HTTP {status}"
        # 303: a page whose round-trip time is the base's own (the preset's, or the default 70 ms once a fast server
        # has made 6,900 "big" requests), sent to its shorter address (without it)
        ok = status == 200 or (status == 303 and kind in ("page", "sweep", "big"))
        with self.lock:
            self.counts[kind] += 1
            if not ok:
                self.failures.append(f"{method} {path}: {problem}")

    def client(self, offset: int, until: float) -> None:
        for kind in itertools.islice(itertools.cycle(ROUND), offset, None):
            if time.monotonic() >= until:
                return
            self.one(kind, next(self.numbers))

    @property
    def total(self) -> int:
        with self.lock:
            return sum(self.counts.values())


@dataclass
class Sample:
    seconds: float  # since the soak started
    requests: int  # answered so far
    rss: dict[int, int | None]  # worker pid -> resident bytes


@dataclass
class Soak:
    """One soak's record: the memory curve, the requests and the workers' memory before and after."""

    seconds: float
    warmup: float
    clients: int
    samples: list[Sample]
    counts: Counter[str]
    failures: list[str]
    workers_before: list[int]
    workers_after: list[int]

    @property
    def rate(self) -> float:
        """Requests per second over the whole soak."""
        return sum(self.counts.values()) / self.samples[-1].seconds

    def at(self, seconds: float) -> Sample:
        """The first sample taken at or after ``seconds``."""
        return next((s for s in self.samples if s.seconds >= seconds), self.samples[-1])

    def growth(self) -> dict[int, Growth]:
        """Per worker (those that ran the whole soak): its memory after the warm-up and at the end."""
        out = {}
        for pid in self.workers_before:
            curve = [(s.seconds, s.rss.get(pid)) for s in self.samples]
            if any(rss is None for _, rss in curve):
                continue  # ended during the soak
            warm = [rss for t, rss in curve if self.warmup - WINDOW_S <= t <= self.warmup and rss is not None]
            end = [rss for t, rss in curve if t >= curve[-1][0] - WINDOW_S and rss is not None]
            peak = max(rss for t, rss in curve if t >= self.warmup and rss is not None)
            out[pid] = Growth(int(statistics.median(warm)), int(statistics.median(end)), peak)
        return out


@dataclass(frozen=True)
class Growth:
    """A worker's resident bytes: the median of the samples in the last WINDOW_S seconds of the warm-up and in the
    last WINDOW_S seconds of the soak (medians, so that one request's passing buffers do not decide), and the
    largest sample after the warm-up."""

    warm: int
    end: int
    peak: int

    @property
    def ratio(self) -> float:
        return self.end / self.warm


def soak(
    server: Server, seconds: float, warmup: float | None = None, clients: int | None = None, interval: float = 1.0
) -> Soak:
    """Send the mix for ``seconds`` from ``clients`` threads (default: two per worker, at least 4, so each worker
    fills its caches as fast on a machine with more cores), sampling the workers' memory every ``interval``;
    ``warmup`` (default: half of ``seconds``) only says where :meth:`Soak.growth` starts."""
    load = Load(server.port, current_version(server.port))
    master = server.proc.pid  # run.sh execs gunicorn: its pid is the master's
    before = workers(master)
    warmup = seconds / 2 if warmup is None else warmup
    clients = max(4, 2 * len(before)) if clients is None else clients
    start = time.monotonic()
    until = start + seconds
    threads = [threading.Thread(target=load.client, args=(i * 3, until), daemon=True) for i in range(clients)]
    samples = [Sample(0.0, 0, {pid: rss_bytes(pid) for pid in before})]
    for t in threads:
        t.start()
    while time.monotonic() < until:
        time.sleep(min(interval, max(0.0, until - time.monotonic())))
        samples.append(Sample(time.monotonic() - start, load.total, {pid: rss_bytes(pid) for pid in before}))
    for t in threads:
        t.join(60)
    return Soak(seconds, warmup, clients, samples, load.counts, load.failures, before, workers(master))


# --- the command ---------------------------------------------------------------------------------------------


def _mb(value: int | None) -> str:
    return "   —  " if value is None else f"{value / 1e6:6.1f}"


def report(result: Soak) -> str:
    """The memory curve, the requests and each worker's growth, as text."""
    lines = [
        f"{datetime.date.today().isoformat()}: {len(result.workers_before)} gunicorn workers on {os.cpu_count()} "
        f"cores, {result.clients} clients, {result.seconds:.0f} s, warm-up {result.warmup:.0f} s",
    ]
    lines += [f"{'t (s)':>6} {'req/s':>6}  " + "  ".join(f"{pid:>6}" for pid in result.workers_before) + "   (MB)"]
    last = result.samples[0]
    for s in result.samples[1:]:
        rate = (s.requests - last.requests) / max(1e-9, s.seconds - last.seconds)
        mark = "  <- warm-up ends" if s is result.at(result.warmup) else ""
        lines.append(
            f"{s.seconds:6.1f} {rate:6.0f}  " + "  ".join(_mb(s.rss.get(p)) for p in result.workers_before) + mark
        )
        last = s
    lines.append(
        f"{sum(result.counts.values())} requests in {result.samples[-1].seconds:.1f} s ({result.rate:.0f}/s): "
        + ", ".join(f"{k} {v}" for k, v in sorted(result.counts.items()))
        + f"; {len(result.failures)} not 200"
    )
    for pid, g in result.growth().items():
        lines.append(
            f"worker {pid}: {_mb(g.warm).strip()} MB after the warm-up, {_mb(g.end).strip()} MB at the end "
            f"({(g.ratio - 1) * 100:+.1f} %; medians of {WINDOW_S:.0f} s), largest after the warm-up "
            f"{_mb(g.peak).strip()} MB ({(g.peak / g.warm - 1) * 100:+.1f} %)"
        )
    if result.workers_after != result.workers_before:
        lines.append(f"workers replaced during the soak: {result.workers_before} -> {result.workers_after}")
    lines.extend(f"  {f}" for f in result.failures[:10])
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--seconds", type=float, default=60.0, help="length of the soak (default 60)")
    parser.add_argument("--warmup", type=float, default=None, help="seconds to fill the caches (default: half)")
    parser.add_argument("--clients", type=int, default=None, help="client threads (default: 2 a worker, at least 4)")
    parser.add_argument("--interval", type=float, default=1.0, help="seconds between memory samples")
    parser.add_argument("--port", type=int, default=None, help="port to serve on (default: a free one)")
    parser.add_argument(
        "--mmap-threshold",
        type=int,
        default=None,
        metavar="BYTES",
        help=f"serve with {MMAP_ENV}=BYTES (glibc's malloc: a fixed threshold; tests/latency_lab_web/test_memory.py: {MMAP_THRESHOLD})",
    )
    args = parser.parse_args(argv)
    extra = {MMAP_ENV: str(args.mmap_threshold)} if args.mmap_threshold is not None else {}
    with tempfile.TemporaryDirectory() as tmp:
        server = start_server(Path(tmp) / "run.log", args.port, extra)
        if extra:
            print(f"serving with {MMAP_ENV}={args.mmap_threshold}")
        try:
            result = soak(server, args.seconds, args.warmup, args.clients, args.interval)
        finally:
            server.stop()
    print(report(result))
    return 1 if result.failures else 0


if __name__ == "__main__":
    sys.exit(main())
