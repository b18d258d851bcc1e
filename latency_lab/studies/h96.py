"""Seed 000 (Heidemann 1996): P-HTTP against HTTP/1.0 on a LAN, the header flush and Nagle's algorithm (table 1)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from latency_lab.analysis.predict import predict
from latency_lab.studies.kit import Comparison, Experiment, Figure, Series, document, q, within

#: Seed 000, table 1: retrieval time per page (ms, mean of 100) of the four configurations, and how
#: each is set up on the h96-lan preset (protocol, header flush, Nagle).
H96_CITATION = "Heidemann 1996, Performance Interactions Between P-HTTP and TCP Implementations, section 2, table 1"


@dataclass(frozen=True)
class H96Row:
    config: str
    protocol: str
    header_flush: bool
    nagle: bool
    published_ms: float
    short: str  # the row's name on a chart's axis


H96_ROWS: dict[str, H96Row] = {
    "http": H96Row("HTTP/1.0, a connection per document", "http10", False, True, 43, "HTTP/1.0"),
    "phttp": H96Row("P-HTTP, headers flushed in their own segment, Nagle on", "persistent", True, True, 605, "P-HTTP"),
    "fix1": H96Row("P-HTTP, headers sent with the data, Nagle on", "persistent", False, True, 195, "P-HTTP, fix 1"),
    "fix2": H96Row("P-HTTP, no header flush, Nagle off", "persistent", False, False, 26, "P-HTTP, fixes 1+2"),
}
H96_TOLERANCE_REL = 0.15
#: Seed 000, abstract: unfixed P-HTTP ~14x slower than HTTP/1.0 and ~20x slower than fixed P-HTTP.
H96_RATIOS = {"phttp_over_http": 14.0, "phttp_over_fix2": 20.0}


def h96_document(row: str, **changes: Any) -> dict[str, Any]:
    """Seed 000, table 1: the h96-lan preset set up as ``row`` (http, phttp, fix1 or fix2)."""
    r = H96_ROWS[row]
    return document("h96-lan", r.protocol, http__header_flush=r.header_flush, tcp__nagle=r.nagle, **changes)


def build() -> Experiment:
    results = {row: predict(h96_document(row))["results"][0] for row in H96_ROWS}
    labels = tuple(H96_ROWS[r].short for r in H96_ROWS)
    model_ms = tuple(float(results[r]["page_load_ms"]) for r in H96_ROWS)
    published = tuple(float(H96_ROWS[r].published_ms) for r in H96_ROWS)
    table = Figure(
        "table1",
        "Table 1: retrieval time per page, model and published",
        "configuration",
        "time per page (ms)",
        (
            Series("model", "model", "bar", labels, model_ms),
            Series(
                "published (Heidemann 1996, table 1)",
                "published",
                "points",
                labels,
                published,
                tuple(within(p, H96_TOLERANCE_REL)[0] for p in published),
                tuple(within(p, H96_TOLERANCE_REL)[1] for p in published),
            ),
        ),
        "Bars: the model on the h96-lan preset, set up as each row (fix 1: headers sent with the data; fix 2: "
        f"Nagle off). Points: the published means, with the accepted range ({H96_TOLERANCE_REL:.0%}).",
        y_log=True,
        x_categories=True,
    )
    parts = ("connection_setup", "request", "server", "propagation", "serialization", "slow_start_idle")
    stack = tuple(
        Series(
            name.replace("_", " "),
            "model",
            "stack",
            labels,
            tuple(float(results[r]["breakdown_ms"][name]) for r in H96_ROWS),
        )
        for name in (*parts, "delayed_ack_stall", "nagle_stall")
    )
    stalls = Figure(
        "stalls",
        "Where the time goes: the delayed-ACK and Nagle stalls",
        "configuration",
        "time on the critical path (ms)",
        stack,
        "The model's breakdown of each row's time along its critical path: unfixed P-HTTP waits once for "
        "a delayed ACK and twice for Nagle; headers sent with the data leave one Nagle stall; Nagle off, none.",
        x_categories=True,
    )
    comps = []
    for row, r in H96_ROWS.items():
        res = results[row]
        lo, hi = within(r.published_ms, H96_TOLERANCE_REL)
        counts = res["counts"]
        comps.append(
            Comparison(
                "table1",
                r.config,
                "retrieval time per page",
                "ms",
                float(res["page_load_ms"]),
                float(r.published_ms),
                f"{r.published_ms:g} ms",
                lo,
                hi,
                "h96-lan",
                q(protocols=[r.protocol], http__header_flush=r.header_flush, tcp__nagle=r.nagle),
                f"{counts['delayed_ack_stalls']} delayed-ACK stall(s), {counts['nagle_stalls']} Nagle stall(s)",
            )
        )
    t = {row: float(results[row]["page_load_ms"]) for row in H96_ROWS}
    for key, num, den, text in (
        ("phttp_over_http", "phttp", "http", "unfixed P-HTTP over HTTP/1.0"),
        ("phttp_over_fix2", "phttp", "fix2", "unfixed P-HTTP over fixed P-HTTP (Nagle off)"),
    ):
        pub = H96_RATIOS[key]
        lo, hi = within(pub, H96_TOLERANCE_REL)
        comps.append(
            Comparison("table1", text, "ratio of times", "x", t[num] / t[den], pub, f"~{pub:g}x", lo, hi, "h96-lan")
        )
    return Experiment(
        slug="h96",
        seed="000",
        short="H96",
        title="P-HTTP against TCP's delayed ACK and Nagle (Heidemann 1996, table 1)",
        citation=H96_CITATION,
        summary="One page of three documents (6,651, 3,883 and 1,866 bytes) between two hosts on a 10 Mb/s "
        "Ethernet. Persistent connections should beat a connection per document, yet the first P-HTTP server "
        "was fourteen times slower: a header flushed in its own segment meets the client's delayed ACK, and "
        "odd final segments wait for Nagle. Sending headers with the data, then turning Nagle off, fixes it.",
        presets=("h96-lan",),
        figures=(table, stalls),
        comparisons=tuple(comps),
        reproduced="Table 1's four rows and the abstract's two ratios, with the stalls the seed traces show "
        "(section 2.2-2.3).",
        not_reproduced="The seed's other measurements (server throughput, its figure 2 trace's timing "
        "packet by packet) are not drawn here; the calculator's ladder diagram shows the packets.",
        calculator=tuple(
            (r.config, "h96-lan", q(protocols=[r.protocol], http__header_flush=r.header_flush, tcp__nagle=r.nagle))
            for r in H96_ROWS.values()
        ),
    )
