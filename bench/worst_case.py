"""Search for the slowest request the documented limits accept: random scenarios, then hill-climbing.

The promise (issue 14): every request the limits accept is answered in under one second on the 2-core reference
machine. This bench looks for a counterexample. For each route it draws random scenarios over every field of the
schema (numbers log-uniform over their allowed range, choices and booleans uniform, pages of up to 1,000 objects,
any protocols), sends each to the app in-process (Flask's test client: the whole request path, validation, the
work estimate, the engine with its step budget, the answer's JSON, without the network; the answers cache off),
and keeps the accepted ones (200). Then it hill-climbs from the slowest: it changes one to three fields of the
best request found (a new random value, or the old one doubled or halved), and keeps a change that is accepted and
slower. Finally the slowest request of each route is timed again (median of repeats) and printed.

Routes: ``predict`` (POST /api/v1/predict), ``packets`` (the same with ``packets=true``), ``formula`` (POST
/api/v1/formulas/{protocol}), ``sweep`` (POST /api/v1/sweep), ``page`` (GET /, the calculator: a prediction, the
sweep plot and the figures), ``explain`` (GET /explain, the teaching panel of one protocol), and ``lossy_sweep`` and
``lossy_page``: a sweep and a calculator page whose scenarios always have random loss (lossy runs cost the most per
work unit), and ``lossy_fill`` (GET /sweep-points: one follow-up request that fills in the values a lossy page's sweep
plot or loss chart left out for its budget; a slice the page does not have is a 400, counted with the refusals).

The refusals are searched too (issue 26: a refusal is decided by the work estimate before anything runs, in under
50 ms): every 4xx answer met is counted, those a step budget stopped while running (their problem names
``max_engine_steps`` or ``max_packets_engine_steps``) apart, and the slowest refusal of each route is timed again
(median of repeats). The report ends with the slowest accepted request and the slowest refusal, with the date and the
load average at the start and the end.

    python bench/worst_case.py                      # every route, 90 s of search each
    python bench/worst_case.py --routes predict --seconds 300 --json worst.json

Every request is timed cold: the model's caches are emptied first (``bench.calibrate_costs.forget``), so a
re-timing is not the warm second run of the first (the loss analysis keeps its periods by loss rate, window, RTT
and RTO: a lossy run of a new RTT costs several times its repeat; until 2026-11-28 the re-timings were warm).

Times are the CPU seconds the request takes in this process (``time.process_time``): the machine is shared, and
wall-clock times swing with what else runs (at a load of 6 on 2 cores they were 2-3 times the CPU time); on an idle
machine a request's wall time is about its CPU time. The search compares single timings; the report re-times the
slowest of each route ``--repeats`` times and gives the median and the maximum CPU time and the median wall time,
with the date, the load and the engine (native or Python).

Run on 2026-11-25 (compiled engine, 75 s of search per route, seed 14; load average 9 to 11 on the 2 cores, so
wall-clock times were 2 to 3 times the CPU times); the requests are in bench/worst_case.json:

    route      tried accepted climbs    found   median     max     wall   (seconds of CPU; wall: median)
    predict      807      260      9    0.369    0.373   0.391    1.278
    packets     1961      618      9    0.253    0.250   0.261    0.411
    formula     1507      476      6    0.613    0.599   0.616    1.207
    sweep       1606      240      2    0.452    0.388   0.438    0.768
    page         773      295     11    0.559    0.529   0.554    1.142
    explain      737      301      4    0.455    0.386   0.407    0.888

The run of 2026-11-28 (20 s a route, load 13-17, with the lossy routes and the refusals) is in docs/measurements.md
("Refusals up front and the server's cost"): every refusal but two under 50 ms of CPU (sweep 51 ms, packets 52 ms),
one refusal by the budget while running (now refused by the estimate), and /explain over a second (2.3 s).

The runs of 2026-11-29 (60 s a route, seed 28, routes lossy_fill, sweep, lossy_sweep and page; docs/measurements.md,
"Refusals up front: the follow-up requests and the sweeps"): before (main, load 2.1-3.1) the slowest refusals were
82 ms (lossy_fill: a slice the page does not have, its 121 points priced first), 23, 229 (lossy_sweep: 205 receive
windows, every point validated) and 16 ms; after (load 4.4-3.1) 70 ms (lossy_fill, one stopped by the step budget
while running), 5, 17 and 18 ms: every refusal decided up front re-timed under 20 ms (single timings in the search
up to 114 ms, at a load of 3 to 4). The same search found an accepted calculator page at 1.40 s median (1.57 s on
main): its sweep plot's estimate prices it far under its time. Both were the estimate's counts (the requests' window
rounds; the connections persistent_parallel preconnects), priced since (docs/measurements.md, "Priced up front: the
requests' window rounds and preconnected connections"): that page is refused in 18 ms, that slice runs in 93 ms.

Earlier searches the same day as the table above, before the fixes they led to, found over a second of CPU: /explain 1.14 s (a
quadratic scan in the ladder's Nagle holds), the calculator page 1.08 s (a lossy page: the loss analysis was not
counted in the step budget), a packets=true prediction 0.97 s median, 1.07 s max (87,000 packets in a 43 MB answer,
now max_packets_engine_steps), and two 500s (the teaching panel of any split-proxy path; a sweep range overflowing to
infinity on a whole-number field).
"""

from __future__ import annotations

import argparse
import copy
import datetime
import json
import math
import os
import random
import statistics
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.calibrate_costs import forget
from latency_lab import engine_backend
from latency_lab.analysis.sweep import SWEEPABLE_FIELDS, field_spec
from latency_lab.scenario.errors import FieldSpec
from latency_lab.scenario.limits import MAX_ENGINE_STEPS, MAX_SWEEP_POINTS, MAX_WORK_UNITS
from latency_lab.scenario.schema import (
    ALL_PROTOCOLS,
    MAX_DNS_MS,
    MAX_OBJECTS,
    MAX_ORIGINS,
    MAX_URGENCY,
    MIN_URGENCY,
)
from latency_lab_web import create_app
from latency_lab_web.calculator.views import flatten
from latency_lab_web.web.query import SCENARIO_PARAMS

ROUTES = ("predict", "packets", "formula", "sweep", "page", "explain", "lossy_sweep", "lossy_page", "lossy_fill")
#: Routes whose scenarios always have random loss (network.loss_rate log-uniform over LOSS_RATES): lossy runs cost the
#: most per work unit (latency_lab.scenario.limits.RUN_COSTS), so they get a search of their own.
LOSSY_ROUTES = {"lossy_sweep": "sweep", "lossy_page": "page", "lossy_fill": "fill"}
LOSS_RATES = (1e-4, 0.2)
#: The promise for a refusal (issue 26): answered before anything runs, in under 50 ms.
REFUSAL_PROMISE_S = 0.05
PROMISE_S = 1.0
#: Fields the page generator sets itself (object sizes are drawn as a page, not field by field).
PAGE_FIELDS = {
    "page.object_bytes",
    "page.object_count",
    "page.object_size_bytes",
    "page.object_parents",
    "page.origins.dns_ms",
    "page.origins.preconnected",
    "page.origins.coalesce_with_html",
    "page.origins.rtt_ms",
    "page.origins.bandwidth_bps",
    "page.object_origins",
    "page.object_urgency",
    "page.object_incremental",
    "page.object_early_hint",
    "page.origins.early_hint_preconnect",
    "page.object_named_at_bytes",
}
NUMERIC_SWEEPS = [f for f in SWEEPABLE_FIELDS if field_spec(f).kind in ("number", "integer")]


def _number(rng: random.Random, s: FieldSpec) -> float | int:
    """A value of a number field: log-uniform over its range (uniform if it starts at 0 half the time), often at an
    end (the heavy cases are at the ends)."""
    low = s.low if s.low is not None else 0.0
    high = s.high if s.high is not None else max(1.0, low) * 1e6
    r = rng.random()
    if r < 0.15:
        x = low if s.low_inclusive else low + (1 if s.kind == "integer" else 1e-9)
    elif r < 0.3:
        x = high if s.high_inclusive else high - (1 if s.kind == "integer" else 1e-9)
    elif low > 0 and rng.random() < 0.5:
        x = math.exp(rng.uniform(math.log(low), math.log(high)))
    else:
        x = rng.uniform(low, high)
    if s.kind == "integer":
        x = max(math.ceil(low), min(math.floor(high), round(x)))
        return int(x)
    return float(min(max(x, low), high))


def _item(param: str) -> FieldSpec:
    """What each value of a list parameter (``page.origins.rtt_ms``) takes."""
    item = SCENARIO_PARAMS[param].item
    assert item is not None, param
    return item


def draw_value(rng: random.Random, s: FieldSpec) -> Any:
    if s.kind == "boolean":
        return rng.random() < 0.5
    if s.kind == "choice":
        return rng.choice(s.choices)
    if s.kind in ("number", "integer"):
        if s.nullable and rng.random() < 0.2:
            return None
        return _number(rng, s)
    raise ValueError(s)


def draw_page(rng: random.Random, html_bytes: int = 6000) -> dict[str, Any]:
    """Objects: equal ones (object_count, object_size_bytes) or a list of sizes; up to MAX_OBJECTS of them, small
    pages as often as large ones (log-uniform count)."""
    count = int(math.exp(rng.uniform(0, math.log(MAX_OBJECTS + 1)))) - 1
    size = int(math.exp(rng.uniform(0, math.log(2_000_000))))
    page: dict[str, Any] = (
        {"object_count": count, "object_size_bytes": size}
        if rng.random() < 0.5
        else {"object_bytes": [int(math.exp(rng.uniform(0, math.log(2 * size + 2)))) for _ in range(count)]}
    )
    tree = rng.random()  # page.object_parents: none, a random tree, or a chain (each object named by the one before)
    if tree < 0.2:
        page["object_parents"] = [rng.randint(0, k - 1) for k in range(1, count + 1)]
    elif tree < 0.35:
        page["object_parents"] = list(range(count))
    if rng.random() < 0.3:  # page.origins (issue 28): up to MAX_ORIGINS, each its own lookup and connections
        k = int(math.exp(rng.uniform(0, math.log(MAX_ORIGINS + 1))))
        page["origins"] = [
            {
                "dns_ms": rng.choice([0.0, rng.uniform(0, MAX_DNS_MS)]),
                "preconnected": rng.random() < 0.5,
                "coalesce_with_html": rng.random() < 0.3,
                "early_hint_preconnect": rng.random() < 0.3,
            }
            for _ in range(k)
        ]
        if rng.random() < 0.5:  # an origin's own path (issue 28): not with coalescing (nor loss: refused, quickly)
            for origin in page["origins"]:
                if not origin["coalesce_with_html"] and rng.random() < 0.5:
                    origin["rtt_ms"] = _number(rng, _item("page.origins.rtt_ms"))
                    if rng.random() < 0.5:
                        origin["bandwidth_bps"] = _number(rng, _item("page.origins.bandwidth_bps"))
        page["object_origins"] = [rng.randint(0, k) for _ in range(count)]
    if rng.random() < 0.3:  # RFC 9218 priorities (issue 28)
        page["object_urgency"] = [rng.randint(MIN_URGENCY, MAX_URGENCY) for _ in range(count)]
        page["object_incremental"] = [rng.random() < 0.5 for _ in range(count)]
    if rng.random() < 0.3:  # 103 Early Hints (issue 28): some objects named by the HTML's 103
        page["object_early_hint"] = [rng.random() < 0.3 for _ in range(count)]
    if rng.random() < 0.3:  # HTML parsed as it streams (issue 28): where in its parent (``html_bytes``: the HTML's
        # size) each object is named, from its start to its end
        sizes = page.get("object_bytes") or [page.get("object_size_bytes", 0)] * count
        tops = [html_bytes if parent == 0 else sizes[parent - 1] for parent in page.get("object_parents", [0] * count)]
        page["object_named_at_bytes"] = [rng.choice([0, rng.randint(0, top), top]) for top in tops]
    return page


def set_at(doc: dict[str, Any], param: str, value: Any) -> None:
    *sections, name = param.split(".")
    place = doc
    for section in sections:
        place = place.setdefault(section, {})
    place[name] = value


def random_scenario(rng: random.Random) -> dict[str, Any]:
    doc: dict[str, Any] = {}
    share = rng.choice([0.1, 0.3, 0.6])  # how many fields to set: few, some, most
    for param, s in SCENARIO_PARAMS.items():
        if param in PAGE_FIELDS or param == "protocols" or rng.random() > share:
            continue
        set_at(doc, param, draw_value(rng, s))
    doc.setdefault("page", {}).update(draw_page(rng, doc.get("page", {}).get("html_bytes", 6000)))
    doc["protocols"] = (
        list(ALL_PROTOCOLS) if rng.random() < 0.5 else rng.sample(ALL_PROTOCOLS, rng.randint(1, len(ALL_PROTOCOLS)))
    )
    return doc


@dataclass
class Request:
    route: str
    scenario: dict[str, Any]
    extra: dict[str, Any] = field(default_factory=dict)  # formula: protocol; sweep: the sweep's own fields

    def http(self) -> tuple[str, str, Any]:
        """Method, URL and JSON body (None for a GET)."""
        if self.route in LOSSY_ROUTES:
            return Request(LOSSY_ROUTES[self.route], self.scenario, self.extra).http()
        if self.route == "predict":
            return "POST", "/api/v1/predict", self.scenario
        if self.route == "packets":
            return "POST", "/api/v1/predict?packets=true", self.scenario
        if self.route == "formula":
            return "POST", f"/api/v1/formulas/{self.extra['protocol']}", self.scenario
        if self.route == "sweep":
            return "POST", "/api/v1/sweep", {"scenario": self.scenario, **self.extra}
        query = urlencode(flatten(self.scenario), safe=",")
        if self.route == "page":
            return "GET", "/?" + query, None
        if self.route == "explain":
            return "GET", f"/explain?protocol={self.extra['protocol']}&" + query, None
        if self.route == "fill":
            chart, part = self.extra["chart"], self.extra["slice"]
            return "GET", f"/sweep-points?chart={chart}&slice={part}&" + query, None
        raise ValueError(self.route)

    def document(self) -> dict[str, Any]:
        method, url, body = self.http()
        return {"method": method, "url": url, "body": body}


def lossy(rng: random.Random, scenario: dict[str, Any]) -> dict[str, Any]:
    """``scenario`` with a random loss rate over 0 (log-uniform over :data:`LOSS_RATES`)."""
    rate = math.exp(rng.uniform(math.log(LOSS_RATES[0]), math.log(LOSS_RATES[1])))
    set_at(scenario, "network.loss_rate", round(rate, 6))
    return scenario


def random_extra(rng: random.Random, route: str, scenario: dict[str, Any]) -> dict[str, Any]:
    route = LOSSY_ROUTES.get(route, route)
    if route in ("formula", "explain"):
        protocols = scenario.get("protocols") or list(ALL_PROTOCOLS)
        return {"protocol": rng.choice(protocols)}
    if route == "sweep":
        name = rng.choice(NUMERIC_SWEEPS)
        s = field_spec(name)
        steps = int(math.exp(rng.uniform(math.log(2), math.log(MAX_SWEEP_POINTS))))
        a, b = _number(rng, s), _number(rng, s)
        if a == b:
            b = _number(rng, s)
        extra: dict[str, Any] = {"field": name, "start": a, "stop": b, "steps": steps}
        if rng.random() < 0.3 and min(a, b) > 0:
            extra["spacing"] = "log"
        return extra
    if route == "fill":  # a follow-up request of the page's sweep plot or loss chart (most pages have a few)
        return {"chart": rng.choice(["sweep", "sweep", "loss"]), "slice": rng.choice([0, 0, 1, 2, 4])}
    return {}


class Timer:
    """Requests to the app in-process; the wall time of each and its status."""

    def __init__(self) -> None:
        app = create_app({"TESTING": True, "API_CACHE_BYTES": 0, "PAGE_CACHE_BYTES": 0, "SWEEP_CACHE_BYTES": 0})
        self.client = app.test_client()
        self.sent = 0
        self.crashes: list[dict[str, Any]] = []
        self.last_stopped = 0  # 1 if the last request was stopped by a step budget while running (*_engine_steps)

    def time(self, req: Request) -> tuple[int, float]:
        """The status and the seconds of CPU the request took (see :meth:`wall`)."""
        status, cpu, _ = self.timed(req)
        return status, cpu

    def timed(self, req: Request) -> tuple[int, float, float]:
        """The status, the CPU seconds of this process and the wall-clock seconds of one request. The CPU time is
        what the request costs, whatever else the machine runs; on an idle machine the wall time is about it."""
        method, url, body = req.http()
        forget()  # the model's caches emptied: each request timed as the first to meet its numbers (cold)
        c0 = time.process_time()
        t0 = time.perf_counter()
        self.sent += 1
        try:
            if method == "GET":
                response = self.client.get(url, follow_redirects=True)
            else:
                response = self.client.post(url, json=body)
            response.get_data()
        except Exception as exc:  # the pages let the app's errors through in testing: a 500 in production
            self.crashes.append({"request": req.document(), "error": f"{type(exc).__name__}: {exc}"})
            return 500, time.process_time() - c0, time.perf_counter() - t0
        status = response.status_code
        self.last_stopped = int(status in (400, 422) and b"engine_steps" in response.get_data())
        if status >= 500:
            self.crashes.append({"request": req.document(), "error": response.get_data(as_text=True)[:300]})
        return status, time.process_time() - c0, time.perf_counter() - t0


def mutate(rng: random.Random, req: Request) -> Request:
    """One to three changes: a field's new random value, its value doubled or halved, a new page, other protocols
    or (sweep, formula) a new sweep or protocol."""
    out = Request(req.route, copy.deepcopy(req.scenario), copy.deepcopy(req.extra))
    for _ in range(rng.randint(1, 3)):
        r = rng.random()
        if r < 0.15:
            page = {
                k: v
                for k, v in out.scenario.get("page", {}).items()
                if k not in ("object_bytes", "object_count", "object_parents", "object_named_at_bytes")
            }
            page.pop("object_size_bytes", None)
            out.scenario["page"] = {**page, **draw_page(rng, page.get("html_bytes", 6000))}
        elif r < 0.25:
            out.scenario["protocols"] = rng.sample(ALL_PROTOCOLS, rng.randint(1, len(ALL_PROTOCOLS)))
        elif r < 0.3 and out.route in ("sweep", "formula", "explain"):
            out.extra = random_extra(rng, out.route, out.scenario)
        else:
            param = rng.choice([p for p in SCENARIO_PARAMS if p not in PAGE_FIELDS and p != "protocols"])
            s = SCENARIO_PARAMS[param]
            value = draw_value(rng, s)
            *sections, name = param.split(".")
            place: Any = out.scenario
            for section in sections:
                place = place.get(section, {}) if isinstance(place, dict) else {}
            old = place.get(name) if isinstance(place, dict) else None
            if s.kind in ("number", "integer") and isinstance(old, int | float) and not isinstance(old, bool):
                scaled = old * rng.choice([0.5, 2.0]) if old else value
                if s.kind == "integer" and scaled is not None:
                    scaled = round(scaled)
                value = scaled
            set_at(out.scenario, param, value)
    if out.route in ("formula", "explain") and out.extra.get("protocol") not in out.scenario.get("protocols", []):
        out.extra = random_extra(rng, out.route, out.scenario)
    if out.route in LOSSY_ROUTES and not out.scenario.get("network", {}).get("loss_rate"):
        lossy(rng, out.scenario)
    return out


@dataclass
class Found:
    request: Request
    seconds: float
    tried: int = 0
    accepted: int = 0
    climbs: int = 0
    refused: Request | None = None  # the slowest refusal (4xx) met in the search, and its CPU seconds
    refused_seconds: float = 0.0
    refusals: int = 0
    stopped_running: int = 0  # refusals by the step budget while running (max_engine_steps): not decided up front


def search(timer: Timer, route: str, seconds: float, rng: random.Random) -> Found | None:
    """Random requests for half the time, then hill-climbing from the slowest accepted one; the slowest refusal met
    on the way is kept too."""
    deadline = time.monotonic() + seconds
    explore_until = time.monotonic() + seconds / 2
    best: Found | None = None
    refused: tuple[Request, float] | None = None
    tried = accepted = climbs = refusals = stopped = 0
    while time.monotonic() < deadline:
        if best is None or time.monotonic() < explore_until:
            scenario = random_scenario(rng)
            if route in LOSSY_ROUTES:
                lossy(rng, scenario)
            req = Request(route, scenario, random_extra(rng, route, scenario))
        else:
            req = mutate(rng, best.request)
        status, took = timer.time(req)
        tried += 1
        if status != 200:
            if 400 <= status < 500:
                refusals += 1
                stopped += timer.last_stopped
                if refused is None or took > refused[1]:
                    refused = (req, took)
            continue
        accepted += 1
        if best is None or took > best.seconds:
            if best is not None and time.monotonic() >= explore_until:
                climbs += 1
            best = Found(req, took)
    if best is None and refused is not None:
        best = Found(refused[0], float("nan"))
    if best is not None:
        best.tried, best.accepted, best.climbs = tried, accepted, climbs
        best.refusals, best.stopped_running = refusals, stopped
        if refused is not None:
            best.refused, best.refused_seconds = refused
    return best


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--routes", default=",".join(ROUTES), help="comma-separated, of: " + ", ".join(ROUTES))
    parser.add_argument("--seconds", type=float, default=90.0, help="search time per route (default 90)")
    parser.add_argument("--repeats", type=int, default=5, help="timings of each route's slowest (default 5)")
    parser.add_argument("--seed", type=int, default=14)
    parser.add_argument("--json", type=Path, help="write the slowest request of each route and its figures here")
    args = parser.parse_args(argv)
    routes = [r for r in args.routes.split(",") if r]
    unknown = [r for r in routes if r not in ROUTES]
    if unknown:
        parser.error(f"--routes: unknown {', '.join(unknown)}; choose from {', '.join(ROUTES)}")
    rng = random.Random(args.seed)
    timer = Timer()
    timer.time(Request("predict", {"protocols": ["persistent"]}))  # warm-up: imports, first JIT of caches
    now = datetime.datetime.now(datetime.UTC)
    print(
        f"worst accepted request and slowest refusal by search, {now:%Y-%m-%d %H:%M} UTC, engine {engine_backend()}; "
        f"limits: max_work_units {MAX_WORK_UNITS:,}, max_engine_steps {MAX_ENGINE_STEPS:,}; {args.seconds:.0f} s of "
        "search per route"
    )
    print(f"load average at the start: {', '.join(f'{x:.1f}' for x in os.getloadavg())} (cores: {os.cpu_count()})")
    print(
        f"{'route':<12} {'tried':>6} {'accepted':>8} {'climbs':>6} {'found':>8} {'median':>8} {'max':>7} {'wall':>8}"
        f" {'refused':>8} {'running':>7} {'slowest':>8} {'median':>8}"
        "\n   (seconds: CPU of the request; wall: median wall clock; refused: 4xx answers, running: of them stopped by "
        "the step budget while running, slowest: the slowest refusal found and its median CPU re-timed)"
    )
    report: dict[str, Any] = {"date": now.isoformat(timespec="minutes"), "engine": engine_backend(), "seed": args.seed}
    report["load_average_start"] = os.getloadavg()
    report["routes"] = {}
    over = False
    slow_refusal = False
    worst: tuple[float, str] = (0.0, "")
    worst_refusal: tuple[float, str] = (0.0, "")
    for route in routes:
        found = search(timer, route, args.seconds, rng)
        if found is None:
            print(f"{route:<12} nothing answered")
            continue
        entry: dict[str, Any] = {
            "tried": found.tried,
            "accepted": found.accepted,
            "climbs": found.climbs,
            "refused": found.refusals,
            "stopped_while_running": found.stopped_running,
        }
        accepted = "        -        -       -        -"
        if found.accepted:
            again = [timer.timed(found.request) for _ in range(args.repeats)]
            cpu = [c for status, c, _ in again if status == 200]
            wall = [w for status, _, w in again if status == 200]
            median = statistics.median(cpu)
            over = over or median >= PROMISE_S
            worst = max(worst, (median, route))
            accepted = f"{found.seconds:>8.3f} {median:>8.3f} {max(cpu):>7.3f} {statistics.median(wall):>8.3f}"
            entry.update(
                found_cpu_seconds=round(found.seconds, 4),
                median_cpu_seconds=round(median, 4),
                max_cpu_seconds=round(max(cpu), 4),
                median_wall_seconds=round(statistics.median(wall), 4),
                request=found.request.document(),
            )
        refusal = "       -        -"
        if found.refused is not None:
            timed = [timer.timed(found.refused)[1] for _ in range(args.repeats)]
            median_refusal = statistics.median(timed)
            slow_refusal = slow_refusal or median_refusal >= REFUSAL_PROMISE_S
            worst_refusal = max(worst_refusal, (median_refusal, route))
            refusal = f"{found.refused_seconds:>8.3f} {median_refusal:>8.3f}"
            entry.update(
                refusal_found_cpu_seconds=round(found.refused_seconds, 4),
                refusal_median_cpu_seconds=round(median_refusal, 4),
                refusal_request=found.refused.document(),
            )
        print(
            f"{route:<12} {found.tried:>6} {found.accepted:>8} {found.climbs:>6} {accepted} "
            f"{found.refusals:>8} {found.stopped_running:>7} {refusal}"
        )
        report["routes"][route] = entry
    report["load_average_end"] = os.getloadavg()
    report["crashes"] = timer.crashes
    for crash in timer.crashes[:5]:
        print(f"5xx: {crash['error'][:200]}\n  {json.dumps(crash['request'])[:1500]}")
    if args.json:
        args.json.write_text(json.dumps(report, indent=1) + "\n", encoding="utf-8")
    print(f"load average at the end: {', '.join(f'{x:.1f}' for x in os.getloadavg())}")
    print(
        f"slowest accepted request: {worst[0]:.3f} s of CPU ({worst[1] or '-'}); slowest refusal: {worst_refusal[0] * 1000:.1f} ms ({worst_refusal[1] or '-'})"
    )
    print(f"promise: every accepted request under {PROMISE_S:.0f} s (median of {args.repeats}): ", end="")
    print("BROKEN" if over else "kept", end="")
    print(f"; every refusal under {REFUSAL_PROMISE_S * 1000:.0f} ms: ", end="")
    print("BROKEN" if slow_refusal else "kept", f"; requests answered 5xx: {len(timer.crashes)}")
    return 1 if over or slow_refusal or timer.crashes else 0


if __name__ == "__main__":
    sys.exit(main())
