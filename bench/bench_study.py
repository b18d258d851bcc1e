"""Benchmark: scenarios per second of ``run_study`` (latency_lab.studies.study) in 1 and in 2 processes.

    python bench/bench_study.py [--scenarios N] [--jobs 1 2] [--shard-size N]

Runs one seeded random design of N scenarios (default 10,000: round trip time 0-300 ms, bandwidth 1-100 Mbit/s,
0-20 objects, no loss, three protocols: plain scenarios, which the native engine runs; a lossy one runs on the
Python engine, about 30 times slower: 134 ms for three protocols against 4.4 on 2026-11-28) with each number of worker processes, writing Parquet shards
to a fresh temporary folder each time (the shards, the provenance and the DataFrame included in the time), and
prints for each: the wall time, scenarios and rows per second, the failed scenarios, and the machine's load
average before and after (a shared machine: other work takes cores from the run). The frames of the runs must
be equal.
"""

from __future__ import annotations

import argparse
import datetime
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import pandas as pd  # noqa: E402

from latency_lab import __version__, engine_backend  # noqa: E402
from latency_lab.analysis import native  # noqa: E402
from latency_lab.studies.study import load_design, run_study  # noqa: E402


def design(n: int) -> dict[str, object]:
    return {
        "kind": "random",
        "samples": n,
        "seed": 2026,
        "protocols": ["http10", "persistent", "h2"],
        "fields": {
            "network.rtt_ms": {"low": 0, "high": 300},
            "network.bandwidth_bps": {"low": 1e6, "high": 1e8, "spacing": "log"},
            "page.object_count": {"low": 0, "high": 20},
        },
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scenarios", type=int, default=10_000)
    parser.add_argument("--jobs", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--shard-size", type=int, default=2_500)
    args = parser.parse_args()
    d = load_design(design(args.scenarios))
    print(f"# bench_study {datetime.datetime.now(datetime.UTC):%Y-%m-%d %H:%M} UTC, latency-lab {__version__}")
    print(f"# engine {engine_backend()}, native {native.available()}, {os.cpu_count()} cores")
    print(f"# {args.scenarios:,} scenarios x 3 protocols, shards of {args.shard_size:,}")
    print("| processes | wall s | scenarios/s | rows/s | failed | load before | load after |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    frames: list[pd.DataFrame] = []
    for jobs in args.jobs:
        with tempfile.TemporaryDirectory() as out:
            before = os.getloadavg()[0]
            t0 = time.perf_counter()
            frame = run_study(d, out, shard_size=args.shard_size, jobs=jobs, progress=False)
            wall = time.perf_counter() - t0
            after = os.getloadavg()[0]
        assert frame is not None
        frames.append(frame)
        failed = frame.loc[frame["error"].notna(), "scenario"].nunique()
        print(
            f"| {jobs} | {wall:.1f} | {args.scenarios / wall:,.0f} | {len(frame) / wall:,.0f} | {failed} "
            f"| {before:.2f} | {after:.2f} |",
            flush=True,
        )
    for other in frames[1:]:
        pd.testing.assert_frame_equal(frames[0], other)


if __name__ == "__main__":
    main()
