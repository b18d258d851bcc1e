"""The prediction CSV (latency_lab/analysis/tables.py): its pinned columns, and the time that leads added at the end."""

from __future__ import annotations

from latency_lab import predict
from latency_lab.analysis.leading import leading_ms
from latency_lab.analysis.tables import csv_rows

#: The columns scripts read by position before 2026-11-28 (docs/manual.md): they keep their places.
PINNED_START = ["protocol", "page_load_ms", "breakdown_ms.dns"]


def _doc(loss_rate: float) -> dict[str, object]:
    return {
        "protocols": ["persistent", "h2", "h3"],
        "network": {"loss_rate": loss_rate},
        "page": {"object_count": 4, "object_size_bytes": 5000},
    }


def test_the_csv_ends_with_the_time_that_leads() -> None:
    """Issue 25: with loss every view leads with the expected time; the CSV had no column of the time that leads
    (on main before 2026-11-28 its last column was expected_with_loss.head_of_line_ms)."""
    for rate in (0.0, 0.02):
        doc = predict(_doc(rate))
        header, *rows = csv_rows([doc], batch=False)
        assert header[: len(PINNED_START)] == PINNED_START
        assert header[-2:] == ["expected_with_loss.head_of_line_ms", "leading_ms"]
        for row, r in zip(rows, doc["results"], strict=True):
            assert row[-1] == leading_ms(r)
            assert row[-1] == (r["expected_with_loss"]["page_load_ms"] if rate else r["page_load_ms"])
        if rate:
            assert all(row[-1] > row[1] for row in rows)  # the expected time, not the lossless one


def test_batch_rows_keep_the_order_asked() -> None:
    docs = [predict(_doc(0.01)), predict({**_doc(0.0), "protocols": ["h3", "http10"]})]
    header, *rows = csv_rows(docs, batch=True)
    assert header[:2] == ["scenario", "protocol"] and header[-1] == "leading_ms"
    assert [(row[0], row[1]) for row in rows] == [(0, "persistent"), (0, "h2"), (0, "h3"), (1, "h3"), (1, "http10")]
