"""The browser comparison's runs, stored results and report in Lantern's form (issue 28).

    python -m validation.realstack.browser_report measure [--repeats 3] [--out FILE]   # as root: loads every run
    python -m validation.realstack.browser_report report [--results FILE]             # no root: the figures

``measure`` loads every run of :func:`validation.realstack.browser.runs` (page x protocol x path) in a fresh
Chromium ``--repeats`` times and stores the records (:data:`RESULTS`); ``report`` prints the figures: each run's
error, the median and 95th percentile of |error|, Spearman's rho between the model's and the browser's page times
and the mean error, beside Lantern's published 0.81 and 23 %, for the model as it is and with Chromium's own measured
time added (browser.compare).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import signal
import statistics
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from validation.grid import quantile
from validation.realstack import browser

RESULTS = Path(__file__).resolve().parent / "browser_results.json"


def ranks(xs: Sequence[float]) -> list[float]:
    """Ranks from 1, ties sharing their mean rank."""
    order = sorted(range(len(xs)), key=lambda i: xs[i])
    out = [0.0] * len(xs)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and xs[order[j + 1]] == xs[order[i]]:
            j += 1
        for k in range(i, j + 1):
            out[order[k]] = (i + j) / 2 + 1
        i = j + 1
    return out


def spearman(a: Sequence[float], b: Sequence[float]) -> float:
    """Spearman's rank correlation (Pearson's on the ranks)."""
    ra, rb = ranks(a), ranks(b)
    ma, mb = statistics.fmean(ra), statistics.fmean(rb)
    cov = sum((x - ma) * (y - mb) for x, y in zip(ra, rb, strict=True))
    va = math.sqrt(sum((x - ma) ** 2 for x in ra))
    vb = math.sqrt(sum((y - mb) ** 2 for y in rb))
    return cov / (va * vb) if va and vb else math.nan


def stats(rows: Sequence[dict[str, Any]], key: str = "error", model: str = "model_ms") -> dict[str, float]:
    """Lantern's figures (Spearman's rho, mean |error|) and the issue's (median and p95 |error|, mean signed)."""
    errs = sorted(abs(r[key]) for r in rows)
    return {
        "runs": len(rows),
        "median_abs_error": quantile(errs, 0.5),
        "p95_abs_error": quantile(errs, 0.95),
        "max_abs_error": max(errs, default=math.nan),
        "mean_abs_error": statistics.fmean(errs) if errs else math.nan,
        "mean_error": statistics.fmean(r[key] for r in rows) if rows else math.nan,
        "spearman_rho": spearman([r[model] for r in rows], [r["real_ms"] for r in rows]),
    }


def measure(out: Path, repeats: int, only: set[str] | None = None, resume: bool = False) -> dict[str, Any]:
    from validation.realstack.stack import Stack

    rows: list[dict[str, Any]] = []
    started = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    if resume and out.exists():  # the runs already stored are kept, the others loaded
        old = json.loads(out.read_text())
        rows, started = old["runs"], old["measured"]
    done = {r["id"] for r in rows}
    with Stack() as stack:
        for spec in browser.runs():
            if (only and spec["id"] not in only) or spec["id"] in done:
                continue
            rec = browser.run(stack, spec, repeats=repeats)
            rows.append(rec)
            r = rec["real"]
            print(
                f"{spec['id']:<24} load {r['load_ms']:7.1f} net {r['net_ms']:7.1f} model {rec['model_ms']:7.1f} "
                f"error {100 * rec['error']:+6.1f}% accounted {100 * rec['accounted_error']:+6.1f}% "
                f"discovery {r['discovery_ms']:5.1f} lag {r['load_lag_ms']:5.1f} conns {r['connections']}",
                file=sys.stderr,
                flush=True,
            )
            data = {"measured": started, "load": os.getloadavg(), "repeats": repeats, "runs": rows}
            data["finished"] = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
            out.write_text(json.dumps(data, indent=1))
    return data


def table(data: dict[str, Any]) -> str:
    rows = data["runs"]
    lines = [
        "| run | browser load (ms) | model (ms) | error | Chromium's own (ms): discovery + load lag | model + own: error "
        "| last byte (ms) | connections: used/opened/model |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        x = r["real"]
        lines.append(
            f"| {r['id']} | {x['load_ms']:.1f} | {r['model_ms']:.1f} | {100 * r['error']:+.1f} % | "
            f"{x['discovery_ms']:.1f} + {x['load_lag_ms']:.1f} | {100 * r['accounted_error']:+.1f} % | "
            f"{x['net_ms']:.1f} | {x['connections']}/{x['connections_opened']}/{r['model_connections']} |"
        )
    return "\n".join(lines)


def summary(data: dict[str, Any]) -> str:
    rows = [r for r in data["runs"] if not r["noise"]]
    raw, acc = stats(rows), stats(rows, "accounted_error", "accounted_ms")
    net = stats(rows, "net_error")
    lines = [
        "| figure | Lantern (published) | model as it is | model + Chromium's measured own time | model vs last byte |",
        "|---|---|---|---|---|",
        f"| Spearman's rho | {browser.LANTERN['spearman_rho']:.2f} | {raw['spearman_rho']:.3f} | "
        f"{acc['spearman_rho']:.3f} | |",
        f"| mean abs error | {100 * browser.LANTERN['mean_abs_error']:.0f} % | {100 * raw['mean_abs_error']:.1f} % | "
        f"{100 * acc['mean_abs_error']:.1f} % | {100 * net['mean_abs_error']:.1f} % |",
    ]
    for k, name in (("median_abs_error", "median abs error"), ("p95_abs_error", "p95 abs error")):
        lines.append(f"| {name} | | {100 * raw[k]:.1f} % | {100 * acc[k]:.1f} % | {100 * net[k]:.1f} % |")
    lines.append(
        f"| mean signed error | | {100 * raw['mean_error']:+.1f} % | {100 * acc['mean_error']:+.1f} % | "
        f"{100 * net['mean_error']:+.1f} % |"
    )
    lines.append(f"| runs (quiet) | | {raw['runs']} | {acc['runs']} | {net['runs']} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m validation.realstack.browser_report")
    sub = ap.add_subparsers(dest="cmd", required=True)
    m = sub.add_parser("measure")
    m.add_argument("--repeats", type=int, default=3)
    m.add_argument("--out", type=Path, default=RESULTS)
    m.add_argument("--only", nargs="*")
    m.add_argument("--resume", action="store_true", help="keep the runs already in --out, load the others")
    r = sub.add_parser("report")
    r.add_argument("--results", type=Path, default=RESULTS)
    a = ap.parse_args(argv)
    if a.cmd == "measure":
        # a measurement started in the background (SIGINT ignored) stops on SIGTERM with the namespaces removed
        signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
        data = measure(a.out, a.repeats, set(a.only) if a.only else None, a.resume)
    else:
        data = json.loads(a.results.read_text())
    print(summary(data))
    print()
    print(table(data))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
