"""Units people type in the calculator's form: ``10 Mbps``, ``1.5M``, ``64 KB``, ``80ms``, ``0.08 s``.

Only the form reads these; the API and the address bar stay in the fields' base units (the calculator's
canonical address writes the converted number). The parser is a regular expression and a fixed table of
units per base unit, nothing else: a number (digits, a decimal point, an exponent), optional spaces, then
one unit the table knows for the field's base unit. Prefixes are SI (k = 1,000, M = 1,000,000, G =
1,000,000,000); ``Ki``, ``Mi``, ``Gi`` are the binary ones (1,024, ...). ``b`` is a bit and ``B`` a byte:
``MB/s`` is eight times ``Mb/s``; a bare prefix on a rate (``1.5M``) means bits per second.

Numbers may be written with commas between groups of three digits, as the app prints them (``1,000``,
``100,000,000 bytes``; :func:`ungroup`), except in a comma-separated list, where a comma parts the values. A
fraction (a field with no unit whose values run from 0 to at most 1, such as ``network.loss_rate``) may be written
as a percentage: ``1%`` and ``1 %`` are 0.01, as the field's help says.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

#: A number as people write it: digits (in groups of three parted by commas, or not), a decimal part, an exponent.
_NUMBER_TEXT = r"[+-]?(?:\d{1,3}(?:,\d{3})+(?:\.\d*)?|\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?"
_QUANTITY = re.compile(rf"({_NUMBER_TEXT})\s*([A-Za-z\u00b5\u03bc/%]*)")
#: A plain number written with commas between groups of three digits: ``1,000``, ``-12,345.5``.
_GROUPED = re.compile(r"[+-]?\d{1,3}(?:,\d{3})+(?:\.\d*)?(?:[eE][+-]?\d+)?")

_SI = {"": 1.0, "k": 1e3, "K": 1e3, "M": 1e6, "G": 1e9}
_BINARY = {"Ki": 1024.0, "Mi": 1024.0**2, "Gi": 1024.0**3}


def _time_units() -> dict[str, float]:
    out = {"": 1.0, "ms": 1.0, "msec": 1.0, "s": 1e3, "sec": 1e3, "secs": 1e3, "second": 1e3, "seconds": 1e3}
    out.update({"us": 1e-3, "\u00b5s": 1e-3, "\u03bcs": 1e-3})
    return out


def _rate_units() -> dict[str, float]:
    out: dict[str, float] = {}
    prefixes = {**_SI, "m": 1e6, "g": 1e9}  # "10 mbps": no one means millibits
    for prefix, factor in prefixes.items():
        for suffix in ("bps", "bit/s", "bits/s", "b/s"):
            out[prefix + suffix] = factor
        for suffix in ("Bps", "B/s", "byte/s", "bytes/s"):
            out[prefix + suffix] = factor * 8
        if prefix:
            out[prefix] = factor  # 1.5M: bits per second
    out[""] = 1.0
    return out


def _byte_units() -> dict[str, float]:
    out: dict[str, float] = {"": 1.0}
    for prefix, factor in {**_SI, **_BINARY}.items():
        for suffix in ("B", "byte", "bytes"):
            out[prefix + suffix] = factor
        if prefix:
            out[prefix] = factor  # 64k, 1.5M, 64Ki
    return out


#: The units each base unit accepts, with the factor to the base unit.
#: ``fraction``: a dimensionless field from 0 to at most 1 (a probability, a ratio), which a percentage may give.
UNITS: dict[str, dict[str, float]] = {
    "ms": _time_units(),
    "bit/s": _rate_units(),
    "bytes": _byte_units(),
    "fraction": {"": 1.0, "%": 0.01},
}

#: What each base unit measures, for messages.
KINDS = {"ms": "time", "bit/s": "rate", "bytes": "size", "fraction": "fraction"}

#: Examples shown in messages, per base unit.
EXAMPLES = {
    "ms": "80ms, 0.08 s",
    "bit/s": "10 Mbps, 1.5M, 56 kbit/s",
    "bytes": "64 KB, 1.5M, 64 KiB",
    "fraction": "1 %, 0.5%",
}


@dataclass(frozen=True)
class UnitError(Exception):
    """Text the parser cannot read as a quantity of ``unit``; ``reason`` says why, in words."""

    text: str
    unit: str
    reason: str


def to_base(text: str, unit: str) -> float:
    """``text`` (a number with an optional unit) in ``unit``, the field's base unit; :class:`UnitError` if unreadable.

    >>> to_base("10 Mbps", "bit/s"), to_base("64 KB", "bytes"), to_base("80ms", "ms"), to_base("0.08 s", "ms")
    (10000000.0, 64000.0, 80.0, 80.0)
    """
    table = UNITS[unit]
    m = _QUANTITY.fullmatch(text.strip())
    if m is None:
        raise UnitError(text, unit, f"write a number, then a unit if you like ({EXAMPLES[unit]})")
    number, suffix = m.groups()
    number = number.replace(",", "")
    factor = table.get(suffix)
    if factor is None:
        hint = ""
        if unit == "bytes" and suffix.lower() in ("kb", "mb", "gb") and suffix[-1] == "b":
            hint = f"; {suffix} is bits: write {suffix[:-1].upper()}B for bytes"
        raise UnitError(text, unit, f"{suffix!r} is not a unit of {KINDS[unit]} (try {EXAMPLES[unit]}){hint}")
    value = float(number) * factor
    if not math.isfinite(value):
        raise UnitError(text, unit, "the number is too large")
    return value


def ungroup(text: str) -> str:
    """A plain number written with grouping commas without them (``1,000`` -> ``1000``); any other text as it is.

    >>> ungroup("100,000,000"), ungroup("1,5"), ungroup("1000")
    ('100000000', '1,5', '1000')
    """
    stripped = text.strip()
    return stripped.replace(",", "") if _GROUPED.fullmatch(stripped) else text


def has_unit(text: str) -> bool:
    """Whether ``text`` is a number followed by a unit (or spaces): what the form converts. Anything else (a plain
    number, or text that is no number at all) goes to the field's own validation as it is."""
    m = _QUANTITY.fullmatch(text.strip())
    return m is not None and (bool(m.group(2)) or text != text.strip())


def readable(value: float, unit: str) -> str:
    """A base-unit value in the units people read: ``10 Mbit/s``, ``64 kB``, ``1.5 s``, ``80 ms``, ``1 %``."""
    if unit == "fraction":
        return f"{_short(value * 100)} %"
    if unit == "ms":
        if abs(value) >= 1000:
            return f"{_short(value / 1000)} s"
        return f"{_short(value)} ms"
    steps = (("G", 1e9), ("M", 1e6), ("k", 1e3))
    name = "bit/s" if unit == "bit/s" else "B"
    for prefix, factor in steps:
        if abs(value) >= factor:
            return f"{_short(value / factor)} {prefix}{name}"
    return f"{_short(value)} {'bit/s' if unit == 'bit/s' else 'bytes'}"


def _short(x: float) -> str:
    """At most four significant digits, no trailing zeros: 1.544, 64, 0.08."""
    text = f"{x:.4g}"
    if "e" in text:
        return f"{x:,.0f}"
    return text
