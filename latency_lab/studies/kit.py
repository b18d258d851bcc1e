"""The studies' shared kit: scenario documents from presets, load times, and an experiment's parts as numbers.

:func:`document` sets a published case up on a preset; :class:`Experiment`, :class:`Figure`, :class:`Series` and
:class:`Comparison` hold what a study shows (no drawing: the web gallery draws them). Pure: the model only.
"""

from __future__ import annotations

import copy
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from latency_lab.analysis.predict import predict
from latency_lab.studies.presets import PRESETS


def document(
    base: str | Mapping[str, Any], protocols: str | Iterable[str] | None = None, **changes: Any
) -> dict[str, Any]:
    """A scenario document: a preset (by name) or a document, with ``section__field`` changes applied.

    ``document("h96-lan", "http10", tcp__nagle=False)`` is the h96-lan preset asking for HTTP/1.0 with
    Nagle off. The base is copied, never changed.
    """
    doc = copy.deepcopy(PRESETS[base].document if isinstance(base, str) else dict(base))
    if protocols is not None:
        doc["protocols"] = [protocols] if isinstance(protocols, str) else list(protocols)
    for path, value in changes.items():
        section, name = path.split("__")
        doc.setdefault(section, {})[name] = value
    return doc


def load_ms(base: str | Mapping[str, Any], protocol: str, **changes: Any) -> float:
    """Page load time (ms) of ``protocol`` on ``base`` with ``changes`` (see :func:`document`)."""
    return float(predict(document(base, protocol, **changes))["results"][0]["page_load_ms"])


def curves(base: str, protocols: Iterable[str], counts: Iterable[int], **changes: Any) -> dict[str, tuple[float, ...]]:
    """Load times (ms) of each protocol on ``base`` against the number of embedded objects (one
    prediction of all the protocols per count)."""
    names = list(protocols)
    out: dict[str, list[float]] = {p: [] for p in names}
    for n in counts:
        for r in predict(document(base, names, page__object_count=n, **changes))["results"]:
            out[r["protocol"]].append(float(r["page_load_ms"]))
    return {p: tuple(v) for p, v in out.items()}


Style = Literal["line", "bar", "stack", "band", "points"]


@dataclass(frozen=True)
class Series:
    """One trace: the model's numbers or the published ones.

    ``style``: ``line`` / ``bar`` / ``stack`` (stacked bar) with ``y``; ``points``: published values with
    their accepted range in ``low``/``high``; ``band``: a published range alone (``low``/``high``, no ``y``).
    ``over``: the name of the bar series in the same figure that published points belong to (drawn over that
    bar of a group, not at the group's centre).
    """

    name: str
    source: Literal["model", "published"]
    style: Style
    x: tuple[float | str, ...]
    y: tuple[float, ...] = ()
    low: tuple[float, ...] = ()
    high: tuple[float, ...] = ()
    protocol: str | None = None
    dash: bool = False
    over: str | None = None


@dataclass(frozen=True)
class Figure:
    """A figure of the paper (or a view of one) as numbers: what it plots and over which axes."""

    id: str
    title: str
    x_title: str
    y_title: str
    series: tuple[Series, ...]
    caption: str
    y_log: bool = False
    x_categories: bool = False


@dataclass(frozen=True)
class Comparison:
    """One published number (or statement) beside the model's.

    ``low``/``high`` bound what counts as agreement (the seed test's tolerance or the statement's
    range; ``None``: unbounded on that side). ``published`` is ``None`` for a statement without a number.
    ``preset`` and ``query`` set the scenario up in the calculator (query: the API's dotted syntax).
    """

    figure: str
    label: str
    quantity: str
    unit: str
    model: float
    published: float | None
    published_text: str
    low: float | None
    high: float | None
    preset: str | None
    query: dict[str, str] = field(default_factory=dict)
    note: str = ""

    @property
    def error_rel(self) -> float | None:
        """Model over published, less one (``None`` without a published number)."""
        if self.published is None or self.published == 0:
            return None
        return self.model / self.published - 1

    @property
    def agrees(self) -> bool | None:
        """Whether the model's number is within the accepted range (``None``: no range given)."""
        if self.low is None and self.high is None:
            return None
        return (self.low is None or self.model >= self.low) and (self.high is None or self.model <= self.high)


@dataclass(frozen=True)
class Experiment:
    """A seed study: its setup, figures and comparisons, and what is and is not reproduced."""

    slug: str
    seed: str
    short: str
    title: str
    citation: str
    summary: str
    presets: tuple[str, ...]
    figures: tuple[Figure, ...]
    comparisons: tuple[Comparison, ...]
    reproduced: str
    not_reproduced: str
    calculator: tuple[tuple[str, str | None, dict[str, str]], ...] = ()  # (label, preset, query)


def q(**params: Any) -> dict[str, str]:
    """Calculator query parameters in the API's syntax: dotted names (``tcp__nagle`` -> ``tcp.nagle``)."""
    out = {}
    for name, v in params.items():
        text = ("true" if v else "false") if isinstance(v, bool) else ",".join(v) if isinstance(v, list) else str(v)
        out[name.replace("__", ".")] = text
    return out


def within(value: float, rel: float) -> tuple[float, float]:
    return value * (1 - rel), value * (1 + rel)


PROTOCOL_NAMES = {
    "http10": "HTTP/1.0",
    "http10_parallel": "HTTP/1.0, parallel connections",
    "persistent": "persistent",
    "pipelined": "persistent + pipelined",
    "getall": "GETALL",
}
