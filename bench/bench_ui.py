"""The calculator page's speed and size, measured in one run: ``python bench/bench_ui.py``.

Server time of a form change (an htmx request for the calculator fragment, through the Flask app
in process: routing, parsing, model, sweep, figures, templates, compression) for the Microscape
presets (n97-*), against the issue's goal of 150 ms:

- cold, sweep included: a value never asked before (every cache misses: prediction and sweep);
- cold, sweep cached: the swept field itself changes (the sweep's points do not depend on it);
- warm: the same address again (the rendered results come from the page's cache);

and the first view's transfer: the page and every file it loads, compressed as a browser asks
(gzip; br), against the goal of 1.5 MB. Prints the figures and their ratio to the goals.
"""

from __future__ import annotations

import argparse
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--changes", type=int, default=12, help="form changes timed per preset and case")
    args = parser.parse_args()

    app = create_app()
    client = app.test_client()
    client.get("/", headers=HX)  # templates compiled, modules imported

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
