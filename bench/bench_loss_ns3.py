"""The expected cost of random loss (model.expected_loss) against ns-3 with a RateErrorModel, over seeds.

For each scenario, protocol and loss rate: ns-3 (validation/harness.cc, TcpNewReno, no SACK) runs the page
N times with independent packet loss on both receiving devices (each run its own RngRun), and the mean page
load time and its extra over the lossless run are printed beside the model's deterministic page load time
and its ``expected_with_loss``. The error is ``(model - ns-3) / ns-3`` on the extra time; the model's figure
is a lower bound (first loss per flow only, no congestion avoidance after it), so a negative error is
expected, growing with the loss rate and the page. Not a CI test: several minutes, needs the ns3 package.

    .venv/bin/python bench/bench_loss_ns3.py --seeds 200
"""

from __future__ import annotations

import argparse
import math
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from model.predict import predict
from model.scenario import Scenario, resolve
from validation.analyze import parse
from validation.sim import Simulator, setup_text

NS = 1e-6  # ms per ns

BASE: dict[str, Any] = {
    "network": {"rtt_ms": 100, "bandwidth_bps": 10_000_000, "packet_overhead_bytes": 42},
    "tcp": {"profile": "ns3", "mss_bytes": 1460, "initial_window_segments": 10},
}
SCENARIOS: dict[str, dict[str, Any]] = {
    "short transfer (5,000-byte HTML)": {
        **BASE,
        "protocols": ["http10"],
        "page": {"html_bytes": 5000, "object_bytes": []},
    },
    "page of 10 objects of 10 KB": {
        **BASE,
        "protocols": ["http10", "http10_parallel", "persistent", "pipelined", "getall"],
        "page": {"object_count": 10, "object_size_bytes": 10_000},
    },
}


def ns3_page_load_ms(sim: Simulator, s: Scenario, protocol: str, loss_rate: float, seed: int) -> float:
    """One ns-3 run's page load time (ms): the last object's last byte from the page's start."""
    p = resolve(s)
    setup = setup_text(p, protocol)
    extra = f" loss_rate {loss_rate!r} seed {seed} rto_min_ms {s.tcp.rto_min_ms!r} sizes "
    trace = parse(sim.run_trace(setup.replace(" sizes ", extra, 1)))
    ends = [end for _, _, _, end in trace.objects]
    if min(ends) < 0:
        raise RuntimeError(f"{protocol}: an object never completed (seed {seed})")
    return (max(ends) - trace.t0) * NS


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, default=100, help="ns-3 runs per point (default 100)")
    ap.add_argument("--rates", type=float, nargs="+", default=[0.01, 0.03], help="loss rates")
    args = ap.parse_args()
    t_start = time.perf_counter()
    rows = []
    with Simulator() as sim:
        for title, doc in SCENARIOS.items():
            for rate in args.rates:
                d = {**doc, "network": {**doc["network"], "loss_rate": rate}}
                s = Scenario.model_validate(d)
                model = {r["protocol"]: r for r in predict(s)["results"]}
                for protocol in s.protocols:
                    lossless = ns3_page_load_ms(sim, s, protocol, 0.0, 1)
                    runs = [ns3_page_load_ms(sim, s, protocol, rate, seed) for seed in range(1, args.seeds + 1)]
                    mean = statistics.fmean(runs)
                    sem = statistics.stdev(runs) / math.sqrt(len(runs))
                    m = model[protocol]
                    e = m["expected_with_loss"]
                    ns_extra = mean - lossless
                    err = (e["extra_ms"] - ns_extra) / ns_extra if ns_extra > 0 else math.nan
                    rows.append((title, rate, protocol, m["page_load_ms"], lossless, e, mean, sem, ns_extra, err))
                    print(
                        f"{title:34} p={rate:<5} {protocol:16} lossless model {m['page_load_ms']:8.1f} ns-3 "
                        f"{lossless:8.1f} | extra model {e['extra_ms']:8.1f} ns-3 {ns_extra:8.1f} ± {sem:6.1f} "
                        f"(error {err:+.0%}) | expected page load model {e['page_load_ms']:8.1f} ns-3 {mean:8.1f}",
                        flush=True,
                    )
    errors = [r[-1] for r in rows if not math.isnan(r[-1])]
    print(
        f"\n{len(rows)} points, {args.seeds} seeds each, {time.perf_counter() - t_start:.0f} s; error of the "
        f"extra time: median {statistics.median(errors):+.0%}, range {min(errors):+.0%} to {max(errors):+.0%}"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
