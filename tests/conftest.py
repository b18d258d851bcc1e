"""Shared fixtures. Imports of the app happen inside fixtures, so model-only tests never need it.

The ``serial`` marker (:data:`SERIAL_FILES`): scripts/test.sh runs every other test over all cores with pytest-xdist
and these afterwards alone, because what they measure is time on this machine (the real-stack guard's page loads,
a live server's answer times under slow clients, a server's memory after a warm-up).
"""

from __future__ import annotations

import gc
import os
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

#: Test files whose parametrized tests are each a work unit of their own (the rest of the file one more unit): the engine
#: differential's chunks, which two workers can then share (each chunk computes its own cases; nothing is shared
#: between them but the drawing of the cases, 1.3 s).
SPLIT_FILES = frozenset({"tests/latency_lab/engine/test_engine_backends.py"})

#: The parallel phase's longest work units, with their test time in seconds (summed over their tests; the CI run of
#: 3bb16a9, 2026-11-29 20:58 UTC, quiet, its per-module table; the modules issue 26's third cuts changed scaled by
#: their measured CPU, docs/measurements.md), for the xdist order only: the longest first, so that no long unit starts
#: near the end while the other worker has run dry (pytest-xdist's own order, most tests first, started
#: test_api_schemathesis 73rd and test_engine_backends 95th of 125 units). A unit not listed comes after these, most
#: tests first; a figure that is off changes only the order.
_DIFFERENTIAL = "tests/latency_lab/engine/test_engine_backends.py::test_native_engine_equals_python_engine"
EXPECTED_SECONDS: dict[str, float] = {
    "tests/browser/[page states]": 395,  # test_accessibility 354 s + test_fits_the_window (under 44 s)
    "tests/latency_lab/analysis/test_expected_loss.py": 144,
    "tests/latency_lab_web/test_api_schemathesis.py": 103,  # 281 s before its coverage phase went (-64 % CPU)
    "tests/validation/test_bulk_loss_ci.py": 102,
    "tests/browser/test_loss_leads.py": 77,
    "tests/browser/test_units_typed.py": 73,
    "tests/latency_lab_web/test_teaching.py": 72,
    "tests/browser/test_compare.py": 69,
    "tests/latency_lab_web/test_views.py": 61,
    "tests/browser/test_explain.py": 60,
    "tests/browser/test_calculator.py": 58,
    "tests/browser/test_form_edits.py": 56,
    "tests/browser/test_editing_keeps_place.py": 55,
    "tests/browser/test_ladder_steps.py": 49,
    "tests/latency_lab/engine/test_native_proxy.py": 46,
    "tests/latency_lab/analysis/test_symbolic.py": 44,
    # the engine differential (357 s as one unit before; 99 s of CPU now in all), in chunks, the Python engine's
    # outcomes stored: 1,000 random or lossy scenarios a chunk the longest (the grid's and the presets' about 5 s each)
    **{f"{_DIFFERENTIAL}[{group}-{k}of2]": 25 for group in ("random", "lossy") for k in (1, 2)},
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


_MODULE: list[Any] = [None]  # the module whose tests the worker runs


def pytest_runtest_setup(item: pytest.Item) -> None:
    """In the gate's xdist workers (``PYTEST_XDIST_WORKER``), at each new test module: the objects the modules before
    it left behind (libraries, caches, session fixtures) are frozen (``gc.collect`` then ``gc.freeze``), so the cyclic
    collector's full passes examine what the running module makes, not everything a worker has loaded since it
    started. Nothing a test makes is frozen while it runs. An object frozen here is still freed when its count drops
    to zero; only a reference cycle among frozen objects that becomes garbage later stays. Seven model and app modules
    in one process (604 tests, 2026-11-29 22:42-22:57 UTC, load 7-12, both runs side by side): 183.3 s of CPU against
    196.5 s without (-7 %), peak memory 204 against 205 MB."""
    module = getattr(item, "module", None)
    if os.environ.get("PYTEST_XDIST_WORKER") and module is not _MODULE[0]:
        _MODULE[0] = module
        gc.collect()
        gc.freeze()


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Any:
    """With ``--dist loadfile`` (scripts/test.sh): pytest-xdist's file-by-file scheduling, with the files of
    :data:`SHARED_UNITS` as one unit each, each parametrized test of :data:`SPLIT_FILES` a unit of its own, and the
    units in the order of :data:`EXPECTED_SECONDS` (longest first). Any other ``--dist`` is left to pytest-xdist."""
    if config.getvalue("dist") != "loadfile":
        return None
    from xdist.scheduler import LoadFileScheduling

    class LongestFirst(LoadFileScheduling):  # type: ignore[misc]
        ordered = False

        def _split_scope(self, nodeid: str) -> str:
            path = nodeid.split("::", 1)[0]
            if path in SPLIT_FILES and nodeid.endswith("]"):
                return nodeid
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
