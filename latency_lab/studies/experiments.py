"""The seed studies as experiments: each paper's setup on the presets, the model over the paper's axes,
and the published numbers beside the model's.

The index of the seed studies. One module per study (:mod:`~latency_lab.studies.h96`, :mod:`~latency_lab.studies.pm94`,
:mod:`~latency_lab.studies.p98`, :mod:`~latency_lab.studies.m98`, :mod:`~latency_lab.studies.n97` and, beyond the seeds,
:mod:`~latency_lab.studies.stacks`), on a shared kit (:mod:`~latency_lab.studies.kit`), holds for its study how its
published cases are set up from the presets
(:func:`document`, :func:`h96_document`, ...), the published numbers with their citations and the
tolerance the seed tests hold the model to, and a ``build`` that runs the model over the
setup the paper describes and returns an :class:`Experiment`: figures (series of numbers, no
drawing), and comparisons (the model's number, the published one, the accepted range). This module
names them all (:func:`experiment`, :data:`SLUGS`) and re-exports their setups: the seed tests
(tests/latency_lab/studies/test_seed_cases.py) and the web gallery (latency_lab_web/gallery/views.py) use it.

Where a seed gives only a statement ("more than half"), the published side is a range, not a
number. Where it gives a number derived from others (the ST time of seed 003 is 75% of the SS
time), the comparison says so. Experiments depend only on code, so :func:`experiment` computes
each once per process.

Pure: the model and the standard library only.
"""

from __future__ import annotations

import functools

from latency_lab.studies import h96, m98, n97, p98, pm94, stacks
from latency_lab.studies.h96 import H96_CITATION, H96_RATIOS, H96_ROWS, H96_TOLERANCE_REL, H96Row, h96_document
from latency_lab.studies.kit import (
    PROTOCOL_NAMES,
    Comparison,
    Experiment,
    Figure,
    Series,
    Style,
    curves,
    document,
    load_ms,
)
from latency_lab.studies.m98 import (
    M98_ARCHS,
    M98_CITATION,
    M98_LINKS,
    M98_PERSISTENCE_CUT,
    M98_PROXY_OVER_SS,
    M98_PUBLISHED_S,
    M98_SENSITIVITY_MS,
    M98_SERVER_RANGE_MS,
    M98_SS_OVER_TT,
    M98_ST_OVER_SS,
    M98_TOLERANCE_REL,
    m98_document,
    m98_presets,
    m98_ratios,
    m98_requests,
    m98_results,
)
from latency_lab.studies.n97 import (
    N97_CITATION,
    N97_HTML_COMPRESSION_RATIO,
    N97_MODES,
    N97_NETWORKS,
    N97_PACKET_FACTOR,
    N97_PPP_FIRST_VISIT_LOW,
    n97_document,
)
from latency_lab.studies.p98 import (
    P98_CITATION,
    P98_FACTORS,
    P98_IMAGE_COUNTS,
    P98_MAX_FACTOR,
    P98_TOLERANCE_REL,
    p98_factors,
)
from latency_lab.studies.pm94 import (
    PM94_CITATION,
    PM94_IMAGE_COUNTS,
    PM94_LARGE_BYTES,
    PM94_LARGE_IMPROVEMENT,
    PM94_LARGE_TOLERANCE_REL,
    PM94_LENGTHS,
    PM94_LOCAL_CAPACITY_BPS,
    PM94_LOCAL_REDUCTION,
    PM94_LONG_BYTES,
    PM94_MEDIUM_BYTES,
    PM94_ROUND_TRIP_SCENARIO,
    PM94_ROUND_TRIPS,
    PM94_SHORT_BYTES,
    PM94_SMALL_BYTES,
    PM94_THROUGHPUT,
    PM94_THROUGHPUT_TOLERANCE_REL,
    PM94_WINDOWS,
    pm94_host_cost_ms,
    pm94_round_trips,
    pm94_throughput_bps,
    pm94_throughput_shares,
    pm94_times,
    pm94_transfer_document,
    pm94_transfer_ms,
)
from latency_lab.studies.stacks import (
    PROTOCOL_NAMES_MODERN,
    STACKS_CHANGES,
    STACKS_CITATION,
    STACKS_NETWORKS,
    STACKS_PROTOCOLS,
    stacks_document,
    ttfb_document,
    ttfb_expected_ms,
)

BUILDERS = {
    "h96": h96.build,
    "p98": p98.build,
    "pm94": pm94.build,
    "m98": m98.build,
    "n97": n97.build,
    "stacks": stacks.build,
}


#: The experiments' slugs, in seed order (000 to 004), then today's stacks (beyond the seeds).
SLUGS: tuple[str, ...] = ("h96", "p98", "pm94", "m98", "n97", "stacks")


@functools.cache
def experiment(slug: str) -> Experiment:
    """The experiment ``slug`` (one of :data:`SLUGS`), computed once per process; ``KeyError`` if unknown."""
    return BUILDERS[slug]()


def experiments() -> list[Experiment]:
    """Every experiment, in seed order."""
    return [experiment(s) for s in SLUGS]


__all__ = [
    "BUILDERS",
    "H96_CITATION",
    "H96_RATIOS",
    "H96_ROWS",
    "H96_TOLERANCE_REL",
    "M98_ARCHS",
    "M98_CITATION",
    "M98_LINKS",
    "M98_PERSISTENCE_CUT",
    "M98_PROXY_OVER_SS",
    "M98_PUBLISHED_S",
    "M98_SENSITIVITY_MS",
    "M98_SERVER_RANGE_MS",
    "M98_SS_OVER_TT",
    "M98_ST_OVER_SS",
    "M98_TOLERANCE_REL",
    "N97_CITATION",
    "N97_HTML_COMPRESSION_RATIO",
    "N97_MODES",
    "N97_NETWORKS",
    "N97_PACKET_FACTOR",
    "N97_PPP_FIRST_VISIT_LOW",
    "P98_CITATION",
    "P98_FACTORS",
    "P98_IMAGE_COUNTS",
    "P98_MAX_FACTOR",
    "P98_TOLERANCE_REL",
    "PM94_CITATION",
    "PM94_IMAGE_COUNTS",
    "PM94_LARGE_BYTES",
    "PM94_LARGE_IMPROVEMENT",
    "PM94_LARGE_TOLERANCE_REL",
    "PM94_LENGTHS",
    "PM94_LOCAL_CAPACITY_BPS",
    "PM94_LOCAL_REDUCTION",
    "PM94_LONG_BYTES",
    "PM94_MEDIUM_BYTES",
    "PM94_ROUND_TRIPS",
    "PM94_ROUND_TRIP_SCENARIO",
    "PM94_SHORT_BYTES",
    "PM94_SMALL_BYTES",
    "PM94_THROUGHPUT",
    "PM94_THROUGHPUT_TOLERANCE_REL",
    "PM94_WINDOWS",
    "PROTOCOL_NAMES",
    "PROTOCOL_NAMES_MODERN",
    "SLUGS",
    "STACKS_CHANGES",
    "STACKS_CITATION",
    "STACKS_NETWORKS",
    "STACKS_PROTOCOLS",
    "Comparison",
    "Experiment",
    "Figure",
    "H96Row",
    "Series",
    "Style",
    "curves",
    "document",
    "experiment",
    "experiments",
    "h96_document",
    "load_ms",
    "m98_document",
    "m98_presets",
    "m98_ratios",
    "m98_requests",
    "m98_results",
    "n97_document",
    "p98_factors",
    "pm94_host_cost_ms",
    "pm94_round_trips",
    "pm94_throughput_bps",
    "pm94_throughput_shares",
    "pm94_times",
    "pm94_transfer_document",
    "pm94_transfer_ms",
    "stacks_document",
    "ttfb_document",
    "ttfb_expected_ms",
]
