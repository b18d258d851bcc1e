"""latency_lab._backend: the compiled engine is built by the README's commands and chosen by default; the Python
reference is one environment variable away; ``--version`` says which runs; a build is stale when the sources
present differ from the ones it recorded (by content: an installed copy, whose ``.so`` pip writes before its
``.py``, is not stale; issue 30)."""

from __future__ import annotations

import importlib.machinery
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from latency_lab import _backend, engine_backend
from latency_lab.cli import version_text

ROOT = Path(__file__).resolve().parents[3]


def _backend_in_subprocess(**env: str) -> str:
    code = "import latency_lab; print(latency_lab.engine_backend())"
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, env={**os.environ, **env}, capture_output=True, text=True, check=True
    )
    return out.stdout.strip()


def test_the_readme_commands_build_the_compiled_engine() -> None:
    # scripts/test.sh (CI's command) runs `pip install -e .` first; a build that failed would leave "python"
    missing = [m for m in _backend.COMPILED if _backend.compiled_path(m) is None]
    assert missing == []
    # ... and recorded what it was built from (setup.py, in place): nothing stale
    assert (ROOT / "latency_lab" / _backend.BUILD_RECORD).is_file()
    assert _backend._stale() == []
    assert engine_backend() == "compiled"
    assert "engine: compiled: native C++" in version_text()


def test_the_python_reference_is_one_variable_away() -> None:
    assert _backend_in_subprocess(LATENCY_LAB_ENGINE="python") == "python"
    assert _backend_in_subprocess(LATENCY_LAB_ENGINE="compiled") == "compiled"


def test_every_compiled_module_has_its_source() -> None:
    for module in _backend.COMPILED:
        assert _backend.source_path(module).is_file(), module


SUFFIX = importlib.machinery.EXTENSION_SUFFIXES[0]
CORE = "latency_lab.engine.core"


@pytest.fixture
def checkout(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A checkout in ``tmp_path`` as setup.py leaves it: latency_lab.engine.core's source and ``.pxd`` and the native
    engine's sources (their real text), each with a built module beside it (its contents do not matter to the
    check, only that it is there) and the record of what they were built from; the check looks there."""
    monkeypatch.setattr(_backend, "_ROOT", tmp_path)
    for module in (CORE, _backend.NATIVE):
        for path in _backend.build_inputs(module):
            real = ROOT / path.relative_to(tmp_path)
            if real.is_file():
                path.parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(real, path)
    (tmp_path / "latency_lab" / "engine" / ("core" + SUFFIX)).write_bytes(b"")
    (tmp_path / "latency_lab" / "engine" / "native" / ("_native" + SUFFIX)).write_bytes(b"")
    record = {m: _backend.source_hashes(m) for m in (CORE, _backend.NATIVE)}
    (tmp_path / "latency_lab" / _backend.BUILD_RECORD).write_text(json.dumps(record))
    return tmp_path


def _age(path: Path, seconds: float) -> None:
    t = path.stat().st_mtime - seconds
    os.utime(path, (t, t))


def test_a_build_from_these_sources_is_fresh_whatever_the_file_times(checkout: Path) -> None:
    assert _backend._stale() == []
    # pip writes an installed copy's .so a few ms before its .py: the times do not matter, the contents do
    _age(checkout / "latency_lab" / "engine" / ("core" + SUFFIX), 5)
    _age(checkout / "latency_lab" / "engine" / "native" / ("_native" + SUFFIX), 5)
    assert _backend._stale() == []


def test_an_edited_source_is_stale_whatever_the_file_times(checkout: Path) -> None:
    src = _backend.source_path(CORE)
    src.write_text(src.read_text() + "# edited\n")
    _age(src, 5)  # older than the built module, and still an edit
    assert _backend._stale() == [CORE]
    header = checkout / "latency_lab" / "engine" / "native" / "tcp.hpp"
    header.write_text(header.read_text() + "// edited\n")
    assert _backend._stale() == [CORE, _backend.NATIVE]


def test_an_edited_pxd_is_stale(checkout: Path) -> None:
    pxd = _backend.source_path(CORE).with_suffix(".pxd")
    pxd.write_text(pxd.read_text() + "# edited\n")
    assert _backend._stale() == [CORE]


def test_build_inputs_an_installed_copy_does_not_carry_are_not_compared(checkout: Path) -> None:
    # a wheel has the .py sources (the Python engine runs from them) but no .pxd nor C++ sources
    _backend.source_path(CORE).with_suffix(".pxd").unlink()
    for path in _backend.native_sources():
        path.unlink()
    assert _backend._stale() == []


def test_a_build_the_record_does_not_name_is_stale(checkout: Path) -> None:
    record = checkout / "latency_lab" / _backend.BUILD_RECORD
    record.write_text(json.dumps({CORE: _backend.source_hashes(CORE)}))
    assert _backend._stale() == [_backend.NATIVE]  # e.g. its compile failed this time, an older .so left beside it
    record.unlink()  # a build by a setup.py from before the record
    assert _backend._stale() == [CORE, _backend.NATIVE]


def test_a_new_build_input_is_stale(checkout: Path) -> None:
    record = checkout / "latency_lab" / _backend.BUILD_RECORD
    built_from = json.loads(record.read_text())
    del built_from[CORE]["latency_lab/engine/core.pxd"]  # built before the module had a .pxd
    record.write_text(json.dumps(built_from))
    assert _backend._stale() == [CORE]


def test_the_variable_chooses_and_compiled_runs_a_stale_build() -> None:
    assert _backend.choose("", []) == (True, None)
    assert _backend.choose("compiled", []) == (True, None)
    assert _backend.choose("python", []) == (False, None)
    assert _backend.choose("python", [CORE]) == (False, None)
    use, warning = _backend.choose("", [CORE])
    assert not use and warning is not None
    assert warning.startswith(_backend.STALE_WARNING) and CORE in warning and "running the Python engine" in warning
    use, warning = _backend.choose("compiled", [CORE])
    assert use and warning is not None
    assert warning.startswith(_backend.STALE_WARNING) and CORE in warning and "running it anyway" in warning
