"""The time that leads a result: with random loss, the expected page load time; without, the schedule's.

Every view of a prediction (the calculator's headline, its "fastest" mark, its ratios, table and bars; the
comparison, its print view; the CSV) asks this module which time to lead with, so no view can pick another.
With ``network.loss_rate`` > 0 the lossless schedule is a lower bound, not the answer: the expected page load
time with loss (``expected_with_loss.page_load_ms``, :mod:`latency_lab.analysis.expected_loss`) leads, and the lossless
time stands beside it, labelled.

:func:`parts_ms` gives the time that leads as named parts: the lossless breakdown's own keys (whatever the
critical path reports, read as given) and, with loss, the expected extra time of each of loss's causes
(:data:`LOSS_PARTS`, the keys of ``expected_with_loss.by_cause_ms`` prefixed ``loss_``), so the parts add up to
:func:`leading_ms`. The head-of-line time (``expected_with_loss.head_of_line_ms``: the time other streams wait
behind a repair, on HTTP/2's one TCP connection; none on HTTP/3's independent streams) is a stream-time, not
part of the page's extra time, and so not a part.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from latency_lab.analysis.expected_loss import CAUSES

__all__ = ["LOSS_PARTS", "fastest", "head_of_line_ms", "leading_ms", "lossless_ms", "lossy", "parts_ms"]

#: Loss's own parts of the time, in order: ``by_cause_ms`` key -> part name.
LOSS_PARTS: dict[str, str] = {cause: f"loss_{cause}" for cause in CAUSES}


def lossy(result: Mapping[str, Any]) -> bool:
    """Whether ``result`` (a :class:`~latency_lab.analysis.result.ProtocolResult` or a sweep's summary) has random loss."""
    block = result.get("expected_with_loss")
    return block is not None and float(block["loss_rate"]) > 0


def leading_ms(result: Mapping[str, Any]) -> float:
    """The page load time that leads: the expected one with loss, else the schedule's (ms)."""
    if lossy(result):
        return float(result["expected_with_loss"]["page_load_ms"])
    return float(result["page_load_ms"])


def lossless_ms(result: Mapping[str, Any]) -> float:
    """The schedule's page load time, without loss (ms): the lower bound shown beside the time that leads."""
    return float(result["page_load_ms"])


def head_of_line_ms(result: Mapping[str, Any]) -> float:
    """The expected time other streams wait behind a repair (stream-ms; 0 without loss)."""
    return float(result["expected_with_loss"]["head_of_line_ms"]) if lossy(result) else 0.0


def parts_ms(result: Mapping[str, Any]) -> dict[str, float]:
    """The time that leads in named parts: the breakdown's own keys, then (with loss) :data:`LOSS_PARTS`."""
    out = {key: float(v) for key, v in result["breakdown_ms"].items()}
    if lossy(result):
        by_cause = result["expected_with_loss"]["by_cause_ms"]
        for cause, name in LOSS_PARTS.items():
            out[name] = float(by_cause.get(cause, 0.0))
    return out


def fastest(results: Sequence[Mapping[str, Any]]) -> str:
    """The protocol with the least time that leads (the first of a tie); "" for none."""
    return str(min(results, key=leading_ms)["protocol"]) if results else ""
