"""The template filters every page may use: ``ms``, ``count`` and ``number`` (registered by :func:`latency_lab_web.create_app`)."""

from __future__ import annotations

from flask import Flask


def format_ms(value: float | None) -> str:
    """Milliseconds with one decimal: ``1234.56`` -> ``1,234.6``."""
    return "—" if value is None else f"{value:,.1f}"


def format_count(value: int | None) -> str:
    """A count with thousands separators."""
    return "—" if value is None else f"{value:,}"


def format_number(value: float | None) -> str:
    """A field's value for people: ``1544000.0`` -> ``1,544,000``, ``0.5`` -> ``0.5``."""
    if value is None:
        return "—"
    if float(value).is_integer():
        return f"{int(value):,}"
    return f"{value:,.6g}"


def register(app: Flask) -> None:
    app.add_template_filter(format_ms, "ms")
    app.add_template_filter(format_count, "count")
    app.add_template_filter(format_number, "number")
