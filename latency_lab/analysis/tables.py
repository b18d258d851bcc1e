"""Predictions as tables: the CSV rows the command line prints and the API serves (``format=csv``).

One row per protocol of each output document of :func:`latency_lab.predict`; the sweep's own table is
:func:`latency_lab.analysis.sweep.csv_rows`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from latency_lab.analysis.expected_loss import CAUSES
from latency_lab.analysis.leading import leading_ms
from latency_lab.analysis.result import Prediction

__all__ = ["LOSS_COLUMNS", "csv_rows"]


#: The CSV columns of a result's expected_with_loss block (dotted below it).
LOSS_COLUMNS = (
    "loss_rate",
    "page_load_ms",
    "extra_ms",
    *(f"by_cause_ms.{c}" for c in CAUSES),
    "head_of_line_ms",
)


def _loss_cell(block: Mapping[str, Any], key: str) -> Any:
    head, _, rest = key.partition(".")
    return block[head][rest] if rest else block[head]


def csv_rows(documents: Sequence[Prediction], batch: bool) -> list[list[Any]]:
    """Header and one row per protocol: [scenario,] protocol, page_load_ms, breakdown_ms.*, counts.*, then the
    expected value under random loss (:data:`LOSS_COLUMNS`: expected_with_loss.*, zeros with no loss), then
    ``leading_ms``: the time that leads (:func:`latency_lab.analysis.leading.leading_ms`: the expected one with loss, else
    page_load_ms). The columns before it are pinned for scripts (new ones are added at the end); the rows keep the
    order the protocols were asked in."""
    results = [(i, r) for i, d in enumerate(documents) for r in d["results"]]
    breakdown = list(dict.fromkeys(k for _, r in results for k in r["breakdown_ms"]))
    counts = list(dict.fromkeys(k for _, r in results for k in r["counts"]))
    header = [
        *(["scenario"] if batch else []),
        "protocol",
        "page_load_ms",
        *(f"breakdown_ms.{k}" for k in breakdown),
        *(f"counts.{k}" for k in counts),
        *(f"expected_with_loss.{k}" for k in LOSS_COLUMNS),
        "leading_ms",
    ]
    rows: list[list[Any]] = [header]
    for i, r in results:
        rows.append(
            [
                *([i] if batch else []),
                r["protocol"],
                r["page_load_ms"],
                *(r["breakdown_ms"].get(k, "") for k in breakdown),
                *(r["counts"].get(k, "") for k in counts),
                *(_loss_cell(r["expected_with_loss"], k) for k in LOSS_COLUMNS),
                leading_ms(r),
            ]
        )
    return rows
