"""The output document as the API and the command line answer it: its long lists bounded.

:func:`latency_lab.analysis.predict` lists every idle period the engine recorded (``events``) and every stall on the
critical path (``path_stalls``): what the teaching panel's account and the ladder read, in process. A page sent one
segment a round lists one of each a round, without bound: 118,000 events and 58,000 path stalls for a 9.67 MB style
sheet over a 1994-byte window (8 protocols), a 56.7 MB answer whose JSON took 1.6 s of CPU to write (issue 26,
bench/worst_case.py seed 27). An answer lists at most :data:`~latency_lab.scenario.limits.MAX_LISTED` of each per
protocol result, the first in time order, and says how many there are in all (``events_total``,
``path_stalls_total``, in every answer, cut or not); the page load time, the breakdown and the counts are read off
all of them before the cut, so they are the same.

Pure: a document in, a document out.
"""

from __future__ import annotations

from typing import Any, cast

from latency_lab.analysis.result import Prediction, ProtocolResult
from latency_lab.scenario.limits import MAX_LISTED

#: The lists cut, each with the key of its total, written right after it.
LISTS = {"path_stalls": "path_stalls_total", "events": "events_total"}


def _listed(r: ProtocolResult, limit: int) -> ProtocolResult:
    out: dict[str, Any] = {}
    for key, value in cast(dict[str, Any], r).items():
        if key in LISTS:
            out[key] = value[:limit]
            out[LISTS[key]] = len(value)
        elif key not in LISTS.values():
            out[key] = value
    return cast(ProtocolResult, out)


def listed(doc: Prediction, limit: int = MAX_LISTED) -> Prediction:
    """``doc`` (:func:`latency_lab.analysis.predict`'s output document) as an answer: each result's ``path_stalls`` and
    ``events`` cut to their first ``limit``, with ``path_stalls_total`` and ``events_total`` after them; the rest as
    it is. ``doc`` is not changed (the results are new dictionaries; what they hold is shared)."""
    out = cast(Prediction, dict(doc))
    out["results"] = [_listed(r, limit) for r in doc["results"]]
    return out
