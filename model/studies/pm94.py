"""Seed 002 (Padmanabhan & Mogul 1994): round trips of HTTP/1.0 and long-lived connections, figures 6-1 to 6-4."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from model.analysis.predict import predict
from model.studies.kit import (
    PROTOCOL_NAMES,
    Comparison,
    Experiment,
    Figure,
    Series,
    curves,
    document,
    load_ms,
    q,
    within,
)
from model.studies.presets import PRESETS

PM94_CITATION = "Padmanabhan & Mogul 1994, Improving HTTP Latency, sections 3, 4 and 6 (figures 6-1 to 6-4)"
#: Seed 002, sections 3 and 4: round trips before the first image (HTTP/1.0, long-lived connection)
#: and per additional image (HTTP/1.0).
PM94_ROUND_TRIPS = {"http10_first_image": 4, "per_additional_image": 2, "persistent_first_image": 2}
PM94_SMALL_BYTES = 2544  # figure 6-1: about the median image size of the traces
PM94_LARGE_BYTES = 45566  # figure 6-2
PM94_LARGE_IMPROVEMENT = 0.22  # figure 6-2: "improves latency by about 22%"
PM94_LARGE_TOLERANCE_REL = 0.15
PM94_LOCAL_REDUCTION = (0.05, 0.15)  # figure 6-4: persistent without pipelining, "only about 5% to 15%"
#: The image counts on the x axis of figures 6-1 to 6-4: the seed's text does not give the range.
PM94_IMAGE_COUNTS = tuple(range(1, 11))
#: Seed 002, sections 3 and 4: a path where only round trips count (no transmission time to speak of).
PM94_ROUND_TRIP_SCENARIO: dict[str, Any] = {
    "network": {"rtt_ms": 100, "bandwidth_bps": 100e9, "packet_overhead_bytes": 0},
    "tcp": {"nagle": False},
    "page": {"html_bytes": 100, "object_count": 3, "object_size_bytes": 100},
}


def pm94_round_trips() -> dict[str, float]:
    """Seed 002's round-trip accounting in the model, in RTTs: HTTP/1.0's first image, each further
    HTTP/1.0 image, and the first image on an already open long-lived connection."""
    rtt = PM94_ROUND_TRIP_SCENARIO["network"]["rtt_ms"]
    http10 = predict(document(PM94_ROUND_TRIP_SCENARIO, "http10"))["results"][0]
    ends = {o["name"]: o["end_ms"] for o in http10["objects"]}
    open_conn = document(PM94_ROUND_TRIP_SCENARIO, "persistent", tcp__handshake="none")
    persistent = {o["name"]: o["end_ms"] for o in predict(open_conn)["results"][0]["objects"]}
    return {
        "http10_first_image": ends["obj1"] / rtt,
        "per_additional_image": (ends["obj3"] - ends["obj1"]) / 2 / rtt,
        "persistent_first_image": persistent["obj1"] / rtt,
        "http10_round_trips": http10["counts"]["round_trips"],
    }


def pm94_times(size: int, protocols: Iterable[str], base: str = "pm94-remote", **changes: Any) -> list[float]:
    """Seed 002, section 6: load times (ms) of a page of ``size``-byte images on ``base``."""
    return [load_ms(base, p, page__object_size_bytes=size, **changes) for p in protocols]


_PM94_PROTOCOLS = ("http10", "persistent", "pipelined")


def _pm94_curves(base: str, size: int) -> dict[str, tuple[float, ...]]:
    return curves(base, _PM94_PROTOCOLS, PM94_IMAGE_COUNTS, page__object_size_bytes=size)


def _improvement(base: tuple[float, ...], other: tuple[float, ...]) -> tuple[float, ...]:
    return tuple(100 * (1 - o / b) for b, o in zip(base, other, strict=True))


def build() -> Experiment:
    counts = tuple(float(n) for n in PM94_IMAGE_COUNTS)
    small = _pm94_curves("pm94-remote", PM94_SMALL_BYTES)
    large = _pm94_curves("pm94-remote", PM94_LARGE_BYTES)
    local = _pm94_curves("pm94-local", PM94_SMALL_BYTES)
    n_preset = PRESETS["pm94-remote"].document["page"]["object_count"]

    def times(fid: str, title: str, by_protocol: dict[str, tuple[float, ...]], caption: str) -> Figure:
        return Figure(
            fid,
            title,
            "number of images",
            "page load time (ms)",
            tuple(Series(PROTOCOL_NAMES[p], "model", "line", counts, by_protocol[p], protocol=p) for p in by_protocol),
            caption,
        )

    def band(name: str, lo: float, hi: float) -> Series:
        return Series(name, "published", "band", counts, (), (lo,) * len(counts), (hi,) * len(counts))

    large_lo, large_hi = within(100 * PM94_LARGE_IMPROVEMENT, PM94_LARGE_TOLERANCE_REL)
    loc_lo, loc_hi = (100 * x for x in PM94_LOCAL_REDUCTION)
    figures = (
        times(
            "fig6-1",
            "Figure 6-1: remote server, 2,544-byte images",
            small,
            "The model's load time against the number of images (pm94-remote preset). Published: the "
            "modified protocol cuts latency by more than half, more than half of that from pipelining "
            "(the table below; the seed's text gives no times).",
        ),
        times(
            "fig6-2",
            "Figure 6-2: remote server, 45,566-byte images",
            large,
            "As figure 6-1 with 45,566-byte images. Published: latency improved by about 22%.",
        ),
        Figure(
            "fig6-3",
            "Figure 6-3: latency improvement, remote server",
            "number of images",
            "improvement over HTTP/1.0 (%)",
            (
                Series(
                    "2,544-byte images",
                    "model",
                    "line",
                    counts,
                    _improvement(small["http10"], small["pipelined"]),
                    protocol="pipelined",
                ),
                Series(
                    "45,566-byte images",
                    "model",
                    "line",
                    counts,
                    _improvement(large["http10"], large["pipelined"]),
                    protocol="pipelined",
                    dash=True,
                ),
                band("published: more than 50% (2,544 B)", 50.0, 100.0),
                band("published: about 22% (45,566 B)", large_lo, large_hi),
            ),
            "Persistent + pipelined against HTTP/1.0. The seed's figure covers further image sizes its text "
            "does not give; the two sizes of figures 6-1 and 6-2 are drawn. Bands: the published statements "
            "(the seed does not say at which image count; the table checks them at the preset's "
            f"{n_preset} images).",
        ),
        Figure(
            "fig6-4",
            "Figure 6-4: latency improvement, local server",
            "number of images",
            "improvement over HTTP/1.0 (%)",
            (
                Series(
                    PROTOCOL_NAMES["pipelined"],
                    "model",
                    "line",
                    counts,
                    _improvement(local["http10"], local["pipelined"]),
                    protocol="pipelined",
                ),
                Series(
                    PROTOCOL_NAMES["persistent"],
                    "model",
                    "line",
                    counts,
                    _improvement(local["http10"], local["persistent"]),
                    protocol="persistent",
                ),
                band("published: persistent, 5-15%", loc_lo, loc_hi),
            ),
            "The pm94-local preset (2,544-byte images). Published: long-lived connections without pipelining "
            "reduce latency by only about 5-15%.",
        ),
    )
    i = PM94_IMAGE_COUNTS.index(n_preset)
    s_http, s_pers, s_pipe = small["http10"][i], small["persistent"][i], small["pipelined"][i]
    l_http, l_pipe = large["http10"][i], large["pipelined"][i]
    c_http, c_pers = local["http10"][i], local["persistent"][i]
    rt = pm94_round_trips()
    rt_query = q(
        network__rtt_ms=100,
        network__bandwidth_bps="1e11",
        network__packet_overhead_bytes=0,
        tcp__nagle=False,
        page__html_bytes=100,
        page__object_count=3,
        page__object_size_bytes=100,
    )
    rt_rows = [
        Comparison(
            "section 3-4",
            text,
            "round trips",
            "RTT",
            rt[key],
            float(PM94_ROUND_TRIPS[key]),
            f"{PM94_ROUND_TRIPS[key]} RTT",
            PM94_ROUND_TRIPS[key] - 1e-3,
            PM94_ROUND_TRIPS[key] + 1e-3,
            None,
            {**rt_query, "protocols": proto, **({"tcp.handshake": "none"} if proto == "persistent" else {})},
            "a 100 ms RTT on a 100 Gb/s path: transmission time negligible",
        )
        for key, text, proto in (
            ("http10_first_image", "HTTP/1.0: until the first image has arrived", "http10"),
            ("per_additional_image", "HTTP/1.0: each additional image", "http10"),
            ("persistent_first_image", "long-lived connection, already open: first image", "persistent"),
        )
    ]
    n = {"page.object_count": str(n_preset)}
    comps = (
        *rt_rows,
        Comparison(
            "fig6-1",
            f"remote, {n_preset} images of 2,544 bytes: persistent + pipelined",
            "latency cut against HTTP/1.0",
            "%",
            100 * (1 - s_pipe / s_http),
            None,
            "more than half",
            50.0,
            100.0,
            "pm94-remote",
            {**n, "page.object_size_bytes": str(PM94_SMALL_BYTES)},
        ),
        Comparison(
            "fig6-1",
            f"remote, {n_preset} images of 2,544 bytes: pipelining's share of the gain",
            "share of the improvement",
            "%",
            100 * (s_pers - s_pipe) / (s_http - s_pipe),
            None,
            "more than half",
            50.0,
            100.0,
            "pm94-remote",
            {**n, "page.object_size_bytes": str(PM94_SMALL_BYTES)},
            "holds with the fitted 50 ms client cost per request; with none, pipelining's share is about a third",
        ),
        Comparison(
            "fig6-2",
            f"remote, {n_preset} images of 45,566 bytes: persistent + pipelined",
            "latency cut against HTTP/1.0",
            "%",
            100 * (1 - l_pipe / l_http),
            100 * PM94_LARGE_IMPROVEMENT,
            "about 22%",
            large_lo,
            large_hi,
            "pm94-remote",
            {**n, "page.object_size_bytes": str(PM94_LARGE_BYTES)},
        ),
        Comparison(
            "fig6-4",
            f"local, {n_preset} images of 2,544 bytes: persistent without pipelining",
            "latency cut against HTTP/1.0",
            "%",
            100 * (1 - c_pers / c_http),
            None,
            "about 5-15%",
            loc_lo,
            loc_hi,
            "pm94-local",
            {**n, "page.object_size_bytes": str(PM94_SMALL_BYTES)},
        ),
    )
    return Experiment(
        slug="pm94",
        seed="002",
        short="PM94",
        title="Long-lived connections and pipelining (Padmanabhan & Mogul 1994, figures 6-1 to 6-4)",
        citation=PM94_CITATION,
        summary="Documents with a number of inlined images of one size, fetched by Mosaic from a remote server "
        "over a T1 (about 70 ms RTT) and from a local server on a 10 Mb/s Ethernet, with HTTP/1.0 and with "
        "the paper's long-lived connections, with and without pipelining.",
        presets=("pm94-remote", "pm94-local"),
        figures=figures,
        comparisons=comps,
        reproduced="The round-trip accounting of sections 3 and 4 and the four statements of section 6, "
        "checked at the presets' five images; the curves over 1-10 images.",
        not_reproduced="The seed's text gives no times, only statements, and not the range of image counts "
        "(1-10 assumed) nor the further image sizes of figure 6-3, so the curves are the model's alone. "
        "The throughput-against-transfer-length figures of section 3.2 are not drawn.",
        calculator=(
            ("Remote server, 2,544-byte images", "pm94-remote", {}),
            ("Remote server, 45,566-byte images", "pm94-remote", {"page.object_size_bytes": str(PM94_LARGE_BYTES)}),
            ("Local server, 2,544-byte images", "pm94-local", {}),
            ("Round-trip accounting (section 3)", None, rt_query),
        ),
    )
