"""Issue 28: the page features beside the plain page (``page.origins``, ``page.object_parents``) in ns-3.

What the harness cannot build is refused by name (:func:`validation.sim.unsupported`) rather than run as another
page; what it builds is compared with the model (ns3 TCP profile) packet for packet, as tests/validation/test_ns3.py
does for the plain page.
"""

from __future__ import annotations

from typing import Any

import pytest

from latency_lab.scenario.params import resolve
from validation.sim import (
    SIMULATED_PROTOCOLS,
    TREE_BLIND_PROTOCOLS,
    SimulationError,
    as_scenario,
    setup_text,
    unsupported,
)

NS3 = {"profile": "ns3"}
LINK = {"rtt_ms": 70, "bandwidth_bps": 1_544_000}
#: HTML -> css (1) -> font (2), and three images of the HTML's (3, 4, 5); an image of the css's (6)
TREE_PAGE = {
    "html_bytes": 6000,
    "object_bytes": [3000, 12000, 2544, 8000, 500, 4000],
    "object_parents": [0, 1, 0, 0, 0, 1],
}
ORIGINS_PAGE = {
    "html_bytes": 6000,
    "object_bytes": [3000, 2544, 8000],
    "origins": [{"dns_ms": 20.0}],
    "object_origins": [0, 1, 1],
}


def _doc(page: dict[str, Any], protocols: list[str]) -> dict[str, Any]:
    return {"protocols": protocols, "network": LINK, "tcp": NS3, "page": page}


# ------------------------------------------------------------------------------------------------ refusals
def test_several_origins_are_refused_by_name() -> None:
    """The harness builds one origin: a page with another origin is refused for every protocol, naming the field,
    before ns-3 is started (it ran the page as one origin's before, silently)."""
    p = resolve(as_scenario(_doc(ORIGINS_PAGE, ["persistent"])))
    assert any(r.startswith("page.origins ") for r in unsupported(p))
    for protocol in SIMULATED_PROTOCOLS:
        with pytest.raises(SimulationError, match=r"page\.origins"):
            setup_text(p, protocol)
    # an origin no object comes from still costs its preconnection in the model: refused too
    idle = resolve(as_scenario(_doc({"origins": [{"preconnected": True}]}, ["persistent"])))
    assert any(r.startswith("page.origins ") for r in unsupported(idle))


def test_a_dependency_tree_is_refused_where_the_harness_cannot_build_it() -> None:
    """A tree changes nothing for the protocols that ask for one object at a time in index order (and getall), so
    those run it; the others are refused by name unless the harness builds the tree (they are then runnable)."""
    p = resolve(as_scenario(_doc(TREE_PAGE, ["persistent"])))
    for protocol in TREE_BLIND_PROTOCOLS:
        assert unsupported(p, protocol) == []
        assert "sizes 7 " in setup_text(p, protocol)
    flat = resolve(as_scenario(_doc({**TREE_PAGE, "object_parents": [0] * 6}, ["persistent"])))
    assert all(unsupported(flat, protocol) == [] for protocol in SIMULATED_PROTOCOLS)  # every parent the HTML
    assert any("page.object_parents" in r for r in unsupported(p))  # some protocol cannot take it
    for protocol in set(SIMULATED_PROTOCOLS) - set(TREE_BLIND_PROTOCOLS):
        with pytest.raises(SimulationError, match=rf"page\.object_parents with protocol '{protocol}'"):
            setup_text(p, protocol)
