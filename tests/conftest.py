"""Shared fixtures. Imports of the app happen inside fixtures, so model-only tests never need it.

The ``serial`` marker (:data:`SERIAL_FILES`): scripts/test.sh runs every other test over all cores with pytest-xdist
and these afterwards alone, because what they measure is time on this machine (the real-stack guard's page loads,
a live server's answer times under slow clients, a server's memory after a warm-up).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

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

#: Test files that run on one xdist worker, one after the other, as one work unit: they read the same page states
#: (tests/browser/conftest.py ``page_states``: one load and one set of measures for both).
SHARED_UNITS: dict[str, str] = {
    "tests/browser/test_accessibility.py": "tests/browser/[page states]",
    "tests/browser/test_fits_the_window.py": "tests/browser/[page states]",
}

#: The parallel phase's longest work units, with their test time in seconds (summed over their tests; the CI run of
#: 43a4bcf, 2026-11-29 17:31 UTC, quiet machine, before issue 26's cuts), for the xdist order only: the
#: longest first, so that no long unit starts near the end while the other worker has run dry (pytest-xdist's own
#: order, most tests first, started test_api_schemathesis 73rd and test_engine_backends 95th of 125 units). A unit
#: not listed comes after these, most tests first; a figure that is off changes only the order.
EXPECTED_SECONDS: dict[str, float] = {
    "tests/browser/[page states]": 496,  # test_accessibility 375 s + test_fits_the_window 121 s
    "tests/latency_lab_web/test_api_schemathesis.py": 310,
    "tests/latency_lab/engine/test_engine_backends.py": 296,
    "tests/latency_lab/analysis/test_expected_loss.py": 109,
    "tests/latency_lab/protocols/test_release.py": 98,
    "tests/latency_lab_web/test_teaching.py": 95,
    "tests/test_packaging_install.py": 88,
    "tests/validation/test_bulk_loss_ci.py": 78,
    "tests/browser/test_compare.py": 77,
    "tests/browser/test_loss_leads.py": 73,
    "tests/browser/test_form_edits.py": 68,
    "tests/browser/test_units_typed.py": 60,
    "tests/browser/test_explain.py": 55,
    "tests/browser/test_ladder_steps.py": 53,
    "tests/validation/test_loss_ci.py": 53,
    "tests/latency_lab_web/test_views.py": 43,
}


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


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Any:
    """With ``--dist loadfile`` (scripts/test.sh): pytest-xdist's file-by-file scheduling, with the files of
    :data:`SHARED_UNITS` as one unit each and the units in the order of :data:`EXPECTED_SECONDS` (longest first).
    Any other ``--dist`` is left to pytest-xdist."""
    if config.getvalue("dist") != "loadfile":
        return None
    from xdist.scheduler import LoadFileScheduling

    class LongestFirst(LoadFileScheduling):  # type: ignore[misc]
        ordered = False

        def _split_scope(self, nodeid: str) -> str:
            path = nodeid.split("::", 1)[0]
            return SHARED_UNITS.get(path, path)

        def _assign_work_unit(self, node: Any) -> None:
            if not self.ordered:  # the queue is whole before the first unit is handed out
                units = sorted(self.workqueue.items(), key=lambda u: (-EXPECTED_SECONDS.get(u[0], 0.0), -len(u[1])))
                self.workqueue.clear()
                self.workqueue.update(units)
                self.ordered = True
            super()._assign_work_unit(node)

    return LongestFirst(config, log)


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
