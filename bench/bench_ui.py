"""The calculator page's speed and size, measured in one run: ``python bench/bench_ui.py``.

Server time of a form change (an htmx request for the calculator fragment, through the Flask app
in process: routing, parsing, model, sweep, figures, templates, compression) for the Microscape
presets (n97-*), against the issue's goal of 150 ms:

- cold, sweep included: a value never asked before (every cache misses: prediction and sweep);
- cold, sweep cached: the swept field itself changes (the sweep's points do not depend on it);
- warm: the same address again (the rendered results come from the page's cache);

and the first view's transfer: the page and every file it loads, compressed as a browser asks
(gzip; br), against the goal of 1.5 MB. Prints the figures and their ratio to the goals.

With ``--loss RATE`` every form change also sets ``network.loss_rate`` (issue 29: the page then draws the sweep plot
and the loss chart on the lossy analysis): it prints, per preset, how many of the sweep plot's values and of the loss
chart's rates the page itself drew (the rest left out for its time budget, drawn by follow-up requests), and the
follow-up requests' time (``GET /sweep-points``, each within the same budget); the first view's transfer is skipped.
"""

from __future__ import annotations

import argparse
import datetime
import gzip
import json
import os
import re
import statistics
import sys
import time
from html import unescape
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from latency_lab import predict, preset
from latency_lab_web import create_app
from latency_lab_web.web.form import DEFAULT_SWEEP, SWEEPS

GOAL_MS = 150.0
GOAL_FIRST_VIEW_BYTES = 1_500_000
HX = {"HX-Request": "true", "Accept-Encoding": "gzip"}
PRESETS = ("n97-lan", "n97-wan", "n97-ppp")


def timed(client, url: str) -> float:  # type: ignore[no-untyped-def]
    start = time.perf_counter()
    r = client.get(url, headers=HX)
    elapsed = (time.perf_counter() - start) * 1000
    if r.status_code != 200:
        raise SystemExit(f"{url}: HTTP {r.status_code}")
    return elapsed


def summary(name: str, values: list[float]) -> str:
    values = sorted(values)
    p90 = values[min(len(values) - 1, round(0.9 * (len(values) - 1)))]
    med = statistics.median(values)
    return (
        f"{name:<34} median {med:7.1f} ms   p90 {p90:7.1f} ms   max {values[-1]:7.1f} ms"
        f"   median/goal {med / GOAL_MS:5.2f}"
    )


LEFT_OUT = re.compile(r"Left out \(over this page&#39;s time budget\): ([^<]*?)\.(?:\s|<)")
LOSS_LEFT_OUT = re.compile(r"Left out to keep within this page&#39;s time budget: (\d+) of the rates")
FILLS = re.compile(r'data-fill="([^"]+)"')


def left_out(html: str) -> tuple[int, int]:
    """How many sweep values and loss-chart rates a page left out for its time budget (its captions' counts)."""
    m = LEFT_OUT.search(html)
    values = 0
    if m:
        many = re.match(r"(\d+) values from", m.group(1))
        values = int(many.group(1)) if many else m.group(1).count(",") + 1
    rates = LOSS_LEFT_OUT.search(html)
    return values, int(rates.group(1)) if rates else 0


def lossy(client, rate: float, changes: int) -> None:  # type: ignore[no-untyped-def]
    """Form changes at loss rate ``rate``: their time, the sweep points and loss-chart rates the page drew, and its
    follow-up requests (``GET /sweep-points``, each timed)."""
    points = len(SWEEPS[DEFAULT_SWEEP].values)
    now = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC")
    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    print(f"Form changes at network.loss_rate={rate}, {now}, load average {load}; goal {GOAL_MS:.0f} ms")
    for k, name in enumerate(PRESETS):
        times: list[float] = []
        cpu: list[float] = []  # this process's CPU time of each change: less disturbed by other load than wall time
        fills: list[float] = []
        kept: list[int] = []
        rates: list[int] = []
        for i in range(changes):
            url = f"/?preset={name}&network.loss_rate={rate}&network.bandwidth_bps={28_000 + 97 * i + 1_000 * k + 1}"
            c0 = time.process_time()
            times.append(timed(client, url))
            cpu.append((time.process_time() - c0) * 1000)
            html = client.get(url, headers={"HX-Request": "true"}).get_data(as_text=True)  # again, from its cache
            values, rates_out = left_out(html)
            kept.append(points - values)
            rates.append(rates_out)
            for fill in FILLS.findall(html):
                follow = unescape(fill)
                while follow:
                    start = time.perf_counter()
                    r = client.get(follow, headers=HX)
                    fills.append((time.perf_counter() - start) * 1000)
                    if r.status_code != 200:
                        raise SystemExit(f"{follow}: HTTP {r.status_code}")
                    gz = r.headers.get("Content-Encoding") == "gzip"
                    follow = json.loads(gzip.decompress(r.data) if gz else r.data).get("next")
        print(summary(f"  {name}", times))
        print(summary(f"  {name} (CPU time)", cpu))
        print(
            f"    sweep values the page drew: {min(kept)}-{max(kept)} of {points}; loss-chart rates left out: "
            f"{min(rates)}-{max(rates)}; follow-up requests {len(fills) / changes:.1f} a change"
            + (f", median {statistics.median(fills):.1f} ms, max {max(fills):.1f} ms" if fills else "")
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--changes", type=int, default=12, help="form changes timed per preset and case")
    parser.add_argument("--loss", type=float, default=0.0, help="network.loss_rate of every form change (0: none)")
    args = parser.parse_args()

    app = create_app()
    client = app.test_client()
    client.get("/", headers=HX)  # templates compiled, modules imported
    if args.loss > 0:
        lossy(client, args.loss, args.changes)
        return

    cold: list[float] = []
    cold_sweep_cached: list[float] = []
    warm: list[float] = []
    per_preset: dict[str, list[float]] = {}
    for k, name in enumerate(PRESETS):
        first = len(cold)
        for i in range(args.changes):
            # A bandwidth no one asked for: prediction and sweep both computed.
            url = f"/?preset={name}&network.bandwidth_bps={28_000 + 97 * i + 1_000 * k + 1}"
            cold.append(timed(client, url))
            warm.append(timed(client, url))
            # The swept field (rtt_ms) changes: the sweep comes from its cache, the prediction does not.
            cold_sweep_cached.append(timed(client, f"{url}&network.rtt_ms={40 + 13 * i + 0.5}"))
        per_preset[name] = cold[first:]

    points = len(SWEEPS[DEFAULT_SWEEP].values)
    model_ms = []
    for _ in range(5):
        start = time.perf_counter()
        predict(preset("n97-ppp"))
        model_ms.append((time.perf_counter() - start) * 1000)
    print(
        f"This machine now: one n97-ppp prediction (3 protocols) takes {min(model_ms):.1f} ms at best, "
        f"{statistics.median(model_ms):.1f} ms median; a cold change costs {1 + points} of them (the page, {points} sweep "
        "points)"
    )
    print(
        f"Server time of a form change (htmx fragment), Microscape presets {', '.join(PRESETS)}, "
        f"{args.changes} changes each; goal {GOAL_MS:.0f} ms"
    )
    print(summary("cold, sweep included", cold))
    for name, values in per_preset.items():
        print(summary(f"  of which {name}", values))
    print(summary("cold, sweep from its cache", cold_sweep_cached))
    print(summary("warm (same address again)", warm))

    print()
    print(f"First view of /?preset=n97-ppp, bytes transferred; goal {GOAL_FIRST_VIEW_BYTES:,}")
    for encoding in ("gzip", "br"):
        page = client.get("/?preset=n97-ppp", headers={"Accept-Encoding": encoding})
        html = client.get("/?preset=n97-ppp").get_data(as_text=True)
        total = len(page.data)
        rows = [("page /?preset=n97-ppp", len(page.data), page.headers.get("Content-Encoding", "-"))]
        for url in sorted(set(re.findall(r'(?:src|href)="(/static/[^"]+)"', html))):
            r = client.get(unescape(url), headers={"Accept-Encoding": encoding})
            total += len(r.data)
            rows.append((url.split("?")[0], len(r.data), r.headers.get("Content-Encoding", "-")))
        explain = re.search(r'hx-get="(/explain[^"]+)" hx-trigger="load"', html)
        if explain:
            r = client.get(unescape(explain.group(1)), headers={**HX, "Accept-Encoding": encoding})
            total += len(r.data)
            rows.append(("teaching panel (loaded after)", len(r.data), r.headers.get("Content-Encoding", "-")))
        print(f"  Accept-Encoding: {encoding}")
        for what, size, enc in rows:
            print(f"    {what:<48} {size:>10,} bytes ({enc})")
        print(f"    {'total':<48} {total:>10,} bytes   total/goal {total / GOAL_FIRST_VIEW_BYTES:.2f}")


if __name__ == "__main__":
    main()
