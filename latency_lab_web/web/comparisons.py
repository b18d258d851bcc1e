"""Addresses of side-by-side comparisons (``/compare``), shared by the features that link to one.

A comparison's address holds every scenario: the shared preset and fields, then each scenario's own fields
as ``a.FIELD`` to ``f.FIELD``, and ``n`` when the count is not implied by the letters used. The comparison
feature builds its toggles and its add/remove links with :func:`address`; the experiments gallery links
seed 000's table 1 with :func:`table1_url` (the import contract keeps those two features apart, so this
lives here).
"""

from __future__ import annotations

import string
from urllib.parse import urlencode

from flask import url_for

from latency_lab.studies.experiments import H96_ROWS

#: The scenarios' letters, in order; a comparison has at most six.
LETTERS = tuple(string.ascii_lowercase[:6])
MIN_SCENARIOS = 2

Pairs = list[tuple[str, str]]


def address(preset: str, shared: Pairs, own: dict[str, Pairs], n: int) -> str:
    """The comparison of ``n`` scenarios: ``preset`` and ``shared`` under all, ``own[letter]`` under each."""
    pairs: Pairs = [("preset", preset)] if preset else []
    pairs += shared
    for letter in LETTERS[:n]:
        pairs += [(f"{letter}.{k}", v) for k, v in own.get(letter, [])]
    used = max((LETTERS.index(letter) + 1 for letter in LETTERS[:n] if own.get(letter)), default=0)
    if n != max(used, MIN_SCENARIOS):
        pairs.append(("n", str(n)))
    return url_for("compare.index") + "?" + urlencode(pairs, safe=",")


def table1_url() -> str:
    """Seed 000's table 1 as four scenarios (its rows, from :data:`latency_lab.studies.experiments.H96_ROWS`)."""
    own: dict[str, Pairs] = {}
    for letter, row in zip(LETTERS, H96_ROWS.values(), strict=False):
        own[letter] = [
            ("protocols", row.protocol),
            ("http.header_flush", "true" if row.header_flush else "false"),
            ("tcp.nagle", "true" if row.nagle else "false"),
        ]
    return address("h96-lan", [], own, len(H96_ROWS))
