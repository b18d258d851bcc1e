"""``python -m validation compare SCENARIO.json``: the model against ns-3, protocol by protocol.

Needs the ``ns3`` package (``pip install -r requirements-validation.txt``). Starting ns-3 takes
about 15 s; each protocol then takes milliseconds to seconds.

``python -m validation grid`` runs the validation grid (:mod:`validation.grid`) through one ns-3
worker, stores the raw results in ``docs/validation/grid.json`` and writes the report next to it;
``python -m validation report`` writes the report again from that file, without ns-3.

``python -m validation loss`` runs the random-loss grid (:mod:`validation.loss`: ns-3 over seeds, stored in
``bench/loss_ns3_runs.json``) and writes ``docs/validation/loss.md``; ``--compare`` writes it from the stored
runs alone, without ns-3. ``python -m validation bulk`` does the same for bulk transfers of 1 to 3,000 segments
(:mod:`validation.bulk_loss`, ``bench/bulk_loss_ns3_runs.json``, ``docs/validation/bulk_loss.md``).
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from pydantic import ValidationError


def _load(path: str) -> Any:
    text = sys.stdin.read() if path == "-" else open(path, encoding="utf-8").read()
    return json.loads(text)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m validation", description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    c = sub.add_parser("compare", help="run one scenario through the model and ns-3 and print both")
    c.add_argument("scenario", help="scenario JSON file (the model's document; '-' reads stdin)")
    c.add_argument("--protocols", nargs="+", help="only these protocols")
    c.add_argument("--json", action="store_true", help="print the comparison as JSON")
    c.add_argument("--objects", action="store_true", help="also print each object's start and end")
    c.add_argument("--events", action="store_true", help="also print both sides' stall events")
    c.add_argument(
        "--keep-overhead",
        action="store_true",
        help="run the model with the scenario's packet_overhead_bytes instead of ns-3's 42",
    )
    c.add_argument(
        "--no-quickack",
        action="store_true",
        help="stop ns-3 from ACKing the first data segment of a connection at once (the model does not)",
    )
    g = sub.add_parser("grid", help="run the validation grid through ns-3, store grid.json and write the report")
    g.add_argument("--out", default=None, help="report folder (default docs/validation)")
    g.add_argument("--size", type=int, default=None, help="scenarios (default: the grid's 320; fewer to try it out)")
    g.add_argument("--no-report", action="store_true", help="store grid.json only")
    r = sub.add_parser("report", help="write docs/validation/ again from its grid.json (no ns-3 needed)")
    r.add_argument("--out", default=None, help="report folder (default docs/validation)")
    lo = sub.add_parser(
        "loss",
        help="run the random-loss grid through ns-3 over seeds and write docs/validation/loss.md",
        description="The model's expected page load time under random loss against ns-3's mean over seeds "
        "(validation/loss.py). Seeds already stored are not run again.",
    )
    from validation.loss import add_arguments

    add_arguments(lo, seeds=200)
    lo.add_argument("--out", default=None, help="report folder (default docs/validation)")
    bu = sub.add_parser(
        "bulk",
        help="run the bulk-transfer loss grid through ns-3 and write docs/validation/bulk_loss.md",
        description="One response of 1 to 3,000 segments under random loss: the model, Cardwell 2000 and Padhye "
        "1998 against ns-3's mean over seeds (validation/bulk_loss.py). Seeds already stored are not run again.",
    )
    from validation import bulk_loss

    bulk_loss.add_arguments(bu)
    args = ap.parse_args(argv)

    if args.cmd == "loss":
        return _loss(args)
    if args.cmd == "bulk":
        return bulk_loss.main(args)

    if args.cmd in ("grid", "report"):
        from validation.report import main_grid, main_report

        if args.cmd == "grid":
            return main_grid(out=args.out, size=args.size, report=not args.no_report)
        return main_report(out=args.out)

    from validation.compare import compare, table
    from validation.sim import SimulationError, Simulator, ns3_available

    if not ns3_available():
        print("the ns3 package is not installed: pip install -r requirements-validation.txt", file=sys.stderr)
        return 2
    from latency_lab.scenario.schema import Scenario

    try:
        doc = _load(args.scenario)
        if args.protocols:
            doc["protocols"] = args.protocols
        scenario = Scenario.model_validate(doc)
    except (OSError, json.JSONDecodeError, ValidationError) as exc:
        print(f"bad scenario: {exc}", file=sys.stderr)
        return 2
    try:
        with Simulator() as sim:
            result = compare(scenario, sim, keep_overhead=args.keep_overhead, quickack=not args.no_quickack)
    except SimulationError as exc:
        print(f"ns-3 failed: {exc}", file=sys.stderr)
        return 1
    if args.json:
        print(json.dumps(result, indent=2))
        return 0
    print(table(result, objects=args.objects))
    if args.events:
        for r in result["rows"]:
            print(f"\n{r['protocol']}: model events")
            for e in r["model_events"]:
                print(f"  {e['kind']:<18} conn {e['connection']} {e['start_ms']:10.2f} ms  {e['duration_ms']:8.2f} ms")
            print(f"{r['protocol']}: ns-3 events")
            for e in r["ns3_events"]:
                print(
                    f"  {e['kind']:<18} conn {e['connection']} {e['start_ms']:10.2f} ms  {e['duration_ms']:8.2f} ms"
                    f"  ({e['sender']})"
                )
    return 0


def _loss(args: argparse.Namespace) -> int:
    """``python -m validation loss``: run the missing seeds (unless ``--compare``), print and write loss.md."""
    from pathlib import Path

    from validation import loss
    from validation.sim import ns3_available

    points = loss.grid_of(args)
    if not args.compare:
        if not ns3_available():
            print("the ns3 package is not installed: pip install -r requirements-validation.txt", file=sys.stderr)
            return 2
        loss.simulate(args.runs, args.seeds, args.jobs, args.batch, points)
    runs = loss.load(args.runs)
    rows = loss.results(runs, points, args.min_seeds)
    if not rows:
        print(f"no point has a lossless run and {args.min_seeds} seeds in {args.runs}", file=sys.stderr)
        return 1
    print(loss.summary_table(rows))
    out = Path(args.out) if args.out else Path(__file__).resolve().parent.parent / "docs" / "validation"
    try:
        name = str(args.runs.resolve().relative_to(loss.REPO))
    except ValueError:
        name = str(args.runs)
    path = loss.write_report(out, runs, points, args.min_seeds, runs_name=name)
    print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
