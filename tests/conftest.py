"""Shared fixtures. Imports of the app happen inside fixtures, so model-only tests never need it.

The ``serial`` marker (:data:`SERIAL_FILES`): scripts/test.sh runs every other test over all cores with pytest-xdist
and these afterwards alone, because what they measure is time on this machine (the real-stack guard's page loads,
a live server's answer times under slow clients, a server's memory after a warm-up).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

#: Test files that run in scripts/test.sh's serial phase (paths from the repository's root).
SERIAL_FILES = frozenset(
    {
        "tests/validation/test_realstack_ci.py",
        "tests/validation/test_browser_ci.py",
        "tests/latency_lab_web/test_server.py",
        "tests/latency_lab_web/test_memory.py",
    }
)
ROOT = Path(__file__).resolve().parents[1]


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Mark the tests of :data:`SERIAL_FILES` ``serial`` (a listed file that is gone is an error, not a silent
    parallel run of its replacement)."""
    gone = sorted(f for f in SERIAL_FILES if not (ROOT / f).is_file())
    if gone:
        raise pytest.UsageError(f"tests/conftest.py SERIAL_FILES lists files that do not exist: {gone}")
    serial = {ROOT / f for f in SERIAL_FILES}
    for item in items:
        if item.path.resolve() in serial:
            item.add_marker(pytest.mark.serial)


if TYPE_CHECKING:
    from flask import Flask
    from flask.testing import FlaskClient


@pytest.fixture
def app() -> Iterator[Flask]:
    """The Flask app in testing mode."""
    from latency_lab_web import create_app

    yield create_app({"TESTING": True})


@pytest.fixture
def client(app: Flask) -> FlaskClient:
    """A test client for :func:`app`."""
    return app.test_client()
