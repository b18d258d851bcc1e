"""Validation tests: the ns-3 harness (validation/). Select them with ``pytest -m validation``.

Tests that run ns-3 skip, saying why, when the ``ns3`` package is not installed
(``pip install -r requirements-validation.txt``); the trace-analysis tests need only the model.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from validation.sim import Simulator


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "validation: the packet-level validation against ns-3 (issue 3)")
    config.addinivalue_line("markers", "ns3: needs the ns3 package (skipped without it)")


@pytest.fixture(scope="session")
def ns3_sim() -> Iterator[Simulator]:
    """One ns-3 worker for the whole session (starting ns-3 takes about 15 s)."""
    from validation.sim import Simulator, ns3_available

    if not ns3_available():
        pytest.skip("the ns3 package is not installed (pip install -r requirements-validation.txt)")
    with Simulator() as sim:
        yield sim
