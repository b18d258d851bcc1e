"""latency_lab._backend: the native engine is built by the README's commands and runs the numbers by default; the
Python reference is one environment variable away; ``--version`` says which runs; a build is stale when the sources
present differ from the ones it recorded (by content: an installed copy, whose ``.so`` pip writes before its
sources, is not stale; issue 30)."""

from __future__ import annotations

import importlib.machinery
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from latency_lab import _backend, engine_backend
from latency_lab.cli import version_text

ROOT = Path(__file__).resolve().parents[3]
NATIVE = _backend.NATIVE


def _backend_in_subprocess(**env: str) -> str:
    code = "import latency_lab; print(latency_lab.engine_backend())"
    out = subprocess.run(
        [sys.executable, "-W", "error", "-c", code],
        cwd=ROOT,
        env={**os.environ, **env},
        capture_output=True,
        text=True,
        check=True,
    )
    return out.stdout.strip()


def test_the_readme_commands_build_the_native_engine() -> None:
    # scripts/test.sh (CI's command) runs `pip install -e .` first; a build that failed would leave "python"
    assert _backend.native_built() is not None
    # ... and recorded what it was built from (setup.py, in place): nothing stale
    assert (ROOT / "latency_lab" / _backend.BUILD_RECORD).is_file()
    assert _backend._stale() == []
    assert engine_backend() == "native"
    assert "engine: native: C++, and the Python engine for formulas" in version_text()


def test_no_module_of_the_python_engine_is_compiled() -> None:
    """One native extension, nothing else: the Python engine runs from its sources (issue 29)."""
    suffixes = tuple(importlib.machinery.EXTENSION_SUFFIXES)
    built = sorted(
        p.relative_to(ROOT).as_posix() for p in (ROOT / "latency_lab").rglob("*") if p.name.endswith(suffixes)
    )
    assert built == [_backend.native_built().relative_to(ROOT).as_posix()]  # type: ignore[union-attr]
    assert sorted((ROOT / "latency_lab").rglob("*.pxd")) == []
    import latency_lab.engine.core as core

    assert (core.__file__ or "").endswith(".py")


def test_the_python_reference_is_one_variable_away() -> None:
    assert _backend_in_subprocess(LATENCY_LAB_ENGINE="python") == "python"
    assert _backend_in_subprocess(LATENCY_LAB_ENGINE="native") == "native"
    assert _backend_in_subprocess() == "native"


SUFFIX = importlib.machinery.EXTENSION_SUFFIXES[0]


@pytest.fixture
def checkout(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A checkout in ``tmp_path`` as setup.py leaves it: the native engine's sources (their real text), a built module
    beside them (its contents do not matter to the check, only that it is there) and the record of what it was built
    from; the check looks there."""
    monkeypatch.setattr(_backend, "_ROOT", tmp_path)
    for path in _backend.native_sources():
        path.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(ROOT / path.relative_to(tmp_path), path)
    (tmp_path / "latency_lab" / "engine" / "native" / ("_native" + SUFFIX)).write_bytes(b"")
    record = {NATIVE: _backend.source_hashes()}
    (tmp_path / "latency_lab" / _backend.BUILD_RECORD).write_text(json.dumps(record))
    return tmp_path


def _age(path: Path, seconds: float) -> None:
    t = path.stat().st_mtime - seconds
    os.utime(path, (t, t))


def test_a_build_from_these_sources_is_fresh_whatever_the_file_times(checkout: Path) -> None:
    assert _backend._stale() == []
    # pip writes an installed copy's .so a few ms before its sources: the times do not matter, the contents do
    _age(checkout / "latency_lab" / "engine" / "native" / ("_native" + SUFFIX), 5)
    assert _backend._stale() == []


def test_an_edited_source_is_stale_whatever_the_file_times(checkout: Path) -> None:
    header = checkout / "latency_lab" / "engine" / "native" / "tcp.hpp"
    header.write_text(header.read_text() + "// edited\n")
    _age(header, 5)  # older than the built module, and still an edit
    assert _backend._stale() == [NATIVE]


def test_sources_an_installed_copy_does_not_carry_are_not_compared(checkout: Path) -> None:
    # a wheel has no C++ sources
    for path in _backend.native_sources():
        path.unlink()
    assert _backend._stale() == []


def test_no_build_is_not_stale(checkout: Path) -> None:
    (checkout / "latency_lab" / "engine" / "native" / ("_native" + SUFFIX)).unlink()
    assert _backend._stale() == []  # the Python engine runs, quietly


def test_a_build_the_record_does_not_name_is_stale(checkout: Path) -> None:
    record = checkout / "latency_lab" / _backend.BUILD_RECORD
    record.write_text(json.dumps({}))
    assert _backend._stale() == [NATIVE]  # e.g. its compile failed this time, an older .so left beside it
    record.unlink()  # a build by a setup.py from before the record
    assert _backend._stale() == [NATIVE]


def test_a_new_source_is_stale(checkout: Path) -> None:
    record = checkout / "latency_lab" / _backend.BUILD_RECORD
    built_from = json.loads(record.read_text())
    del built_from[NATIVE]["latency_lab/engine/native/loss.cpp"]  # built before the engine had it
    record.write_text(json.dumps(built_from))
    assert _backend._stale() == [NATIVE]


def test_the_variable_chooses_and_native_runs_a_stale_build() -> None:
    assert _backend.choose("", []) == (True, None)
    assert _backend.choose("native", []) == (True, None)
    assert _backend.choose("python", []) == (False, None)
    assert _backend.choose("python", [NATIVE]) == (False, None)
    use, warning = _backend.choose("", [NATIVE])
    assert not use and warning is not None
    assert warning.startswith(_backend.STALE_WARNING) and NATIVE in warning and "running the Python engine" in warning
    use, warning = _backend.choose("native", [NATIVE])
    assert use and warning is not None
    assert warning.startswith(_backend.STALE_WARNING) and NATIVE in warning and "running it anyway" in warning


def test_compiled_modules_left_from_the_deleted_tier_are_named(checkout: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A checkout upgraded in place keeps the Cython-compiled tier's builds beside the sources, and Python would import
    them instead of the sources: ``import latency_lab`` names them in a warning (the native engine's own is not one)."""
    assert _backend.leftover_extensions() == []
    old = checkout / "latency_lab" / "analysis" / ("predict" + SUFFIX)
    old.parent.mkdir(parents=True)
    old.write_bytes(b"")
    assert _backend.leftover_extensions() == [old]
    monkeypatch.setattr(_backend, "_installed", False)
    monkeypatch.setattr(_backend, "native_ok", _backend.native_ok)
    monkeypatch.delenv(_backend.ENV, raising=False)
    with pytest.warns(
        UserWarning,
        match=re.escape(f"{_backend.LEFTOVER_WARNING} run instead of the sources: latency_lab/analysis/predict"),
    ):
        _backend.install()
