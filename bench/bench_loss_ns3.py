"""The expected cost of random loss (latency_lab.analysis.expected_loss) against ns-3 with a RateErrorModel, over seeds.

For each point of a grid (RTT, loss rate, page, protocol), ns-3 (validation/harness.cc, TcpNewReno, no SACK,
the ns3 profile) runs the page once without loss and N times with independent packet loss on both
receiving devices (each run its own RngRun). The runs are stored in a JSON file (``--runs``), one page load
time per seed, and appended to on the next call, so the comparison with the model (``--compare``, no
ns-3 needed) can be redone after a model change, and more seeds added later. Seeds go round-robin over the
points in batches, so an interrupted run still has every point at about the same count.

Printed per point: the model's lossless page load time and ns-3's (they agree), the extra time over the
lossless run (model ``expected_with_loss.extra_ms`` vs ns-3's mean, with a 95 % confidence interval from the
t distribution of the seeds) and the total expected page load time; the error is ``(model - ns-3) /
ns-3``, and its 95 % interval is the ns-3 mean's interval carried through. A summary gives the median and
90th percentile of |error| per page, protocol and RTT, and says which points meet the goal (total expected
page load time within 15 % of ns-3's mean, or, where the interval is wider than that, the interval holding
the model's figure). Running needs the ns3 package (``--compare`` does not); a seed-run takes a few ms of ns-3.

A thin command line over :mod:`validation.loss` (the grid, its scenarios, the ns-3 runs, the statistics and
the goal), which ``python -m validation loss`` (the report docs/validation/loss.md) and the CI guard
tests/validation/test_loss_ci.py share.

    .venv/bin/python bench/bench_loss_ns3.py --seeds 100 --jobs 2      # run (or extend) the grid
    .venv/bin/python bench/bench_loss_ns3.py --compare                 # the model against the stored runs
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from validation.loss import RUNS, add_arguments, compare, grid_of, simulate

__all__ = ["RUNS", "main"]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_arguments(ap)
    args = ap.parse_args()
    grid = grid_of(args)
    if not args.compare:
        simulate(args.runs, args.seeds, args.jobs, args.batch, grid)
    return compare(args.runs, grid, args.min_seeds)


if __name__ == "__main__":
    raise SystemExit(main())
