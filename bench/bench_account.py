"""The teaching panel's account of the time, timed: ``python bench/bench_account.py``.

``latency_lab.analysis.account.account`` (one run of the schedule and one walk of its critical path per page: the
breakdown and the path stalls come from the same walk) on the issue's large page, 300 objects of 20 KB over a
persistent connection, and the whole ``/explain`` panel (formula, ladder, templates) through the Flask app in
process. Prints the median and the spread of ``--repeat`` runs each, with the machine's load average, so a figure
can be read against how busy the machine was. Run it from another checkout's root (``cd ../other && python
/path/to/bench_account.py``) to time that checkout's code the same way.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path.cwd()))

from latency_lab import Scenario
from latency_lab.analysis.account import account

DOC = {
    "protocols": ["persistent"],
    "page": {"object_count": 300, "object_size_bytes": 20_000},
}
QUERY = "/explain?protocols=persistent&page.object_count=300&page.object_size_bytes=20000&protocol=persistent"


def timed(run: Callable[[], object], repeat: int) -> list[float]:
    run()  # warm: imports, caches
    out = []
    for _ in range(repeat):
        t = time.perf_counter()
        run()
        out.append((time.perf_counter() - t) * 1000)
    return out


def line(name: str, ms: list[float]) -> str:
    return f"{name}: median {statistics.median(ms):.1f} ms (min {min(ms):.1f}, max {max(ms):.1f}, n={len(ms)})"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=15)
    args = parser.parse_args()
    scenario = Scenario.model_validate(DOC)
    print(f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    print(line("account(), 300 x 20 KB persistent", timed(lambda: account(scenario, "persistent"), args.repeat)))
    from latency_lab_web import create_app

    client = create_app().test_client()

    def panel() -> None:
        r = client.get(QUERY, headers={"HX-Request": "true"})
        assert r.status_code == 200, r.status_code

    print(line("/explain panel, same page", timed(panel, args.repeat)))
    print(f"load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
