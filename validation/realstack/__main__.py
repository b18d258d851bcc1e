"""``python -m validation.realstack``: the model's ``linux`` profile against the real Linux stack (issue 18).

Needs root (network namespaces, TUN devices) and Debian's nginx, nghttp2-client and tcpdump:

    python -m validation.realstack one scenario.json [--protocols http10 h2] [--repeats 3] [--json]
    python -m validation.realstack grid [--repeats 3] [--blocks tls1.3 ...]   # results.json, results.csv, report
    python -m validation.realstack report                # docs/validation/realstack.md from results.json (no root)
    python -m validation.realstack remodel               # the model's side of results.json again (no root)
"""

from __future__ import annotations

import argparse
import json
import signal
import sys
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
RESULTS = HERE / "results.json"
PARTIAL = HERE / "results.partial.json"


def _line(r: dict[str, Any]) -> str:
    spread = max(r["real_ms_all"]) - min(r["real_ms_all"])
    return (
        f"{r['id']:>5} {r['protocol']:<16} real {r['real_ms']:10.2f} ms (spread {spread:6.2f})  model {r['model_ms']:10.2f}"
        f"  error {100 * r['error']:+7.2f}%  (raw {100 * r['raw_error']:+7.2f}%)  packets {r['real_packets']}/"
        f"{r['model_packets']}  relay late {r['relay_late_us']} us  noisy loads again {len(r.get('rejected_loads', []))}"
        + (f"  NOISE: {r['noise']}" if r.get("noise") else "")
    )


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m validation.realstack", description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    o = sub.add_parser("one", help="one scenario on the real stack and through the model")
    o.add_argument("scenario", help="the model's scenario document (JSON file, '-' for stdin)")
    o.add_argument("--protocols", nargs="+", help="only these (http10, persistent, http10_parallel, h2)")
    o.add_argument("--repeats", type=int, default=3, help="real loads per protocol; the median is compared")
    o.add_argument("--json", action="store_true", help="print the records as JSON")
    g = sub.add_parser("grid", help="run the grid and write results.json, results.csv and the report")
    g.add_argument("--repeats", type=int, default=3)
    g.add_argument("--limit", type=int, default=None, help="only the first N scenarios (to try it out)")
    g.add_argument(
        "--resume", action="store_true", help="keep the runs stored by an interrupted grid (results.partial.json)"
    )
    g.add_argument(
        "--blocks",
        nargs="+",
        help="run only these blocks (base, tls1.3, tls1.2, fast_open, asymmetric, sizes) and keep the other blocks' runs "
        "stored in results.json",
    )
    sub.add_parser("report", help="write docs/validation/realstack.md from results.json (no root needed)")
    sub.add_parser(
        "remodel", help="run the model again on every stored run's real loads (after a model change; no root needed)"
    )
    a = ap.parse_args(argv)
    # SIGTERM unwinds like Ctrl-C, so the namespaces, the relay and nginx are removed
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))

    from validation.realstack import report

    if a.cmd == "report":
        report.write(json.loads(RESULTS.read_text()))
        return 0
    if a.cmd == "remodel":
        from validation.realstack import bench as b

        data = json.loads(RESULTS.read_text())
        data["runs"] = [b.remodel(r) for r in data["runs"]]
        data["modelled"] = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
        RESULTS.write_text(json.dumps(data, indent=1) + "\n")
        report.write(data)
        return 0
    from validation.realstack import bench, grid
    from validation.realstack.stack import Stack, Unavailable

    try:
        if a.cmd == "one":
            from pydantic import ValidationError

            from latency_lab import Scenario

            try:
                doc = json.loads(sys.stdin.read() if a.scenario == "-" else Path(a.scenario).read_text())
                scenario = Scenario.model_validate(doc)
            except (OSError, ValueError) as e:  # ValidationError is a ValueError
                if isinstance(e, ValidationError):
                    err = e.errors()[0]
                    detail = f"{'.'.join(str(x) for x in err['loc'])}: {err['msg']}"
                else:
                    detail = str(e)
                print(f"error: {a.scenario}: {detail}", file=sys.stderr)
                return 2
            protos = a.protocols or [p for p in scenario.protocols if p in bench.CLIENTS]
            bad = [p for p in protos if p not in bench.CLIENTS]
            if bad:
                print(
                    f"error: protocols {bad} are not run on the real stack; allowed: {list(bench.CLIENTS)}",
                    file=sys.stderr,
                )
                return 2
            with Stack() as stack:
                recs = [bench.run(stack, "one", doc, p, a.repeats) for p in protos]
            if a.json:
                json.dump(recs, sys.stdout, indent=1)
            else:
                for r in recs:
                    print(_line(r))
            return 0
        t = time.monotonic()
        rows: list[dict[str, Any]] = []
        scen = grid.scenarios()[: a.limit]
        if a.blocks:
            scen = [sc for sc in scen if sc["tags"]["block"] in a.blocks]
        ids = {sc["id"] for sc in scen}
        old: dict[str, Any] = json.loads(RESULTS.read_text()) if RESULTS.exists() else {"runs": []}
        # runs of the blocks not run now stay as stored, if their scenario is still the grid's
        kept = [r for r in old["runs"] if r["id"] not in ids and r["doc"] == grid.doc_of(r["id"])]
        if a.resume and PARTIAL.exists():
            rows = [r for r in json.loads(PARTIAL.read_text()) if r["id"] in ids and r["doc"] == grid.doc_of(r["id"])]
        done = {(r["id"], r["protocol"]) for r in rows}
        with Stack() as stack:
            for sc in scen:
                for proto in sc["protocols"]:
                    if (sc["id"], proto) in done:
                        continue
                    r = bench.run(stack, sc["id"], sc["doc"], proto, a.repeats)
                    r["tags"] = sc["tags"]
                    rows.append(r)
                    PARTIAL.write_text(json.dumps(rows))
                    print(_line(r), flush=True)
        everything = grid.scenarios()
        order = {(s["id"], p): i for i, (s, p) in enumerate((s, p) for s in everything for p in s["protocols"])}
        rows = sorted(kept + rows, key=lambda r: order[(r["id"], r["protocol"])])
        blocks = dict(old.get("blocks") or {})
        if not blocks and old["runs"]:  # results stored before the grid had blocks: all base
            blocks["base"] = {k: old[k] for k in ("date", "repeats", "kernel")}
            blocks["base"]["run_seconds"] = old["seconds"]
        ran = sorted({sc["tags"]["block"] for sc in scen})
        for b in ran:
            blocks[b] = {
                "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
                "run_seconds": round(time.monotonic() - t, 1),  # the whole command's, for all blocks it ran
                "run_with": ran,
                "repeats": a.repeats,
                "kernel": Path("/proc/sys/kernel/osrelease").read_text().strip(),
            }
        data = {
            "date": time.strftime("%Y-%m-%d", time.gmtime()),
            "repeats": a.repeats,
            # each command's time once (blocks run together share it)
            "seconds": round(sum({b["date"]: b["run_seconds"] for b in blocks.values()}.values()), 1),
            "kernel": Path("/proc/sys/kernel/osrelease").read_text().strip(),
            "blocks": blocks,
            "runs": rows,
        }
        RESULTS.write_text(json.dumps(data, indent=1) + "\n")
        PARTIAL.unlink(missing_ok=True)
        report.write(data)
        return 0
    except Unavailable as e:
        print(f"error: {e}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
