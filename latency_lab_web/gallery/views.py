"""The experiments gallery: each seed study as a page, the model beside the published numbers.

- ``GET /experiments/``: the studies, each with how many of its published numbers the model meets;
- ``GET /experiments/<slug>``: one study: the comparison table (published, model, error, accepted
  range), the figures (plotly, with each figure's data as a table), the presets' assumptions and
  fitted values, and links that open each setup in the calculator;
- ``GET /experiments/<slug>.csv``: every plotted point of the page, one row each;
- ``GET /experiments/<slug>/comparisons.csv``: the comparison table.

The numbers come from :mod:`latency_lab.studies.experiments` (computed once per process); the figures' JSON and
the CSV files are built once per process too, and each page is rendered once per app.
"""

from __future__ import annotations

import csv
import functools
import io
import math
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from flask import Response, abort, current_app, render_template, url_for

from latency_lab import PRESETS
from latency_lab.scenario import limits
from latency_lab.studies.experiments import SLUGS, Comparison, Experiment, Figure, experiment
from latency_lab_web.figures import to_json
from latency_lab_web.figures.gallery import figure as plotly_figure
from latency_lab_web.gallery import bp
from latency_lab_web.web.comparisons import table1_url

#: Columns of a page's plotted-data CSV.
CSV_COLUMNS = ("figure", "figure_title", "series", "source", "x", "y", "low", "high", "x_title", "y_title")
#: Columns of a page's comparisons CSV.
COMPARISON_COLUMNS = (
    "figure",
    "case",
    "quantity",
    "unit",
    "published",
    "published_value",
    "model",
    "error_rel",
    "accepted_low",
    "accepted_high",
    "within",
    "preset",
    "note",
)


def number(value: float | None, unit: str = "") -> str:
    """A number for the page and the CSV files: four significant figures, thousands separated."""
    if value is None:
        return ""
    if value == 0 or not math.isfinite(value):
        text = f"{value:g}"
    else:
        digits = max(0, 3 - math.floor(math.log10(abs(value))))
        text = f"{value:,.{digits}f}"
    return f"{text} {unit}".strip() if unit not in ("", "x", "%") else f"{text}{unit}"


def _cell(value: float | str | None) -> str:
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    return f"{float(value):.10g}"


@dataclass(frozen=True)
class FigureRow:
    """One plotted point: a figure's series at one x."""

    series: str
    source: str
    x: float | str
    y: float | None
    low: float | None
    high: float | None


def figure_rows(f: Figure) -> Iterator[FigureRow]:
    """Every plotted point of ``f``, series by series (the figure's data table and CSV rows)."""
    for s in f.series:
        for i, x in enumerate(s.x):
            yield FigureRow(
                s.name,
                s.source,
                x,
                s.y[i] if s.y else None,
                s.low[i] if s.low else None,
                s.high[i] if s.high else None,
            )


@dataclass(frozen=True)
class Page:
    """What a gallery page needs beyond the experiment: each figure's JSON and data rows, and the CSV files."""

    experiment: Experiment
    figures: tuple[tuple[Figure, str, tuple[FigureRow, ...]], ...]
    csv: str
    comparisons_csv: str


def _csv(rows: list[list[str]], header: tuple[str, ...]) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\r\n")
    writer.writerow(header)
    writer.writerows(rows)
    return out.getvalue()


def _comparison_row(c: Comparison) -> list[str]:
    within = c.agrees
    return [
        c.figure,
        c.label,
        c.quantity,
        c.unit,
        c.published_text,
        _cell(c.published),
        _cell(c.model),
        _cell(c.error_rel),
        _cell(c.low),
        _cell(c.high),
        "" if within is None else ("yes" if within else "no"),
        c.preset or "",
        c.note,
    ]


@functools.cache
def page(slug: str) -> Page:
    """The page data of experiment ``slug``, built once per process; ``KeyError`` if there is none.

    The studies are the code's, not a request's: they run outside the request's step budget."""
    with limits.unbudgeted():
        e = experiment(slug)
    figures = []
    rows: list[list[str]] = []
    for f in e.figures:
        points = tuple(figure_rows(f))
        figures.append((f, to_json(plotly_figure(f)), points))
        rows.extend(
            [
                f.id,
                f.title,
                p.series,
                p.source,
                _cell(p.x),
                _cell(p.y),
                _cell(p.low),
                _cell(p.high),
                f.x_title,
                f.y_title,
            ]
            for p in points
        )
    return Page(
        e,
        tuple(figures),
        _csv(rows, CSV_COLUMNS),
        _csv([_comparison_row(c) for c in e.comparisons], COMPARISON_COLUMNS),
    )


def _page_or_404(slug: str) -> Page:
    if slug not in SLUGS:
        abort(404, description=f"No experiment {slug!r}; experiments: {', '.join(SLUGS)}.")
    return page(slug)


def calculator_url(preset: str | None, query: dict[str, str]) -> str:
    """The calculator's address for a scenario: the preset and the changes, in the API's query syntax."""
    params: dict[str, Any] = {"preset": preset} if preset else {}
    params.update(query)
    return url_for("calculator.index", **params)


def _rendered(key: str, render: Callable[[], str]) -> str:
    """A page rendered once per app (it depends only on code; in debug mode templates may change, so not there)."""
    cache: dict[str, str] = current_app.extensions.setdefault("gallery_pages", {})
    html = cache.get(key)
    if html is None or current_app.debug:
        html = cache[key] = render()
    return html


@bp.get("/")
def index() -> str:
    """Every seed study, with how many of its published numbers the model meets."""
    return _rendered("", lambda: render_template("gallery/index.html", experiments=[page(s).experiment for s in SLUGS]))


@bp.get("/<slug>")
def show(slug: str) -> str:
    """One seed study: comparisons, figures, presets and calculator links."""
    p = _page_or_404(slug)
    return _rendered(
        slug,
        lambda: render_template(
            "gallery/experiment.html",
            e=p.experiment,
            figures=p.figures,
            presets=[PRESETS[name] for name in p.experiment.presets],
            number=number,
            calculator_url=calculator_url,
            compare_url=table1_url() if slug == "h96" else None,
            compare_words="Open table 1 in the side-by-side comparison",
        ),
    )


def _csv_response(text: str, filename: str) -> Response:
    return Response(
        text,
        mimetype="text/csv",
        headers={"Content-Disposition": f'attachment; filename="{filename}"'},
    )


@bp.get("/<slug>.csv")
def data_csv(slug: str) -> Response:
    """Every point the page plots: figure, series, source (model or published), x, y and the accepted range."""
    return _csv_response(_page_or_404(slug).csv, f"latency-lab-{slug}.csv")


@bp.get("/<slug>/comparisons.csv")
def comparisons_csv(slug: str) -> Response:
    """The page's comparison table: published, model, relative error, accepted range and verdict."""
    return _csv_response(_page_or_404(slug).comparisons_csv, f"latency-lab-{slug}-comparisons.csv")
