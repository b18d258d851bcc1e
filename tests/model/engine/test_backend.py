"""model._backend: the compiled engine is built by the README's commands and chosen by default; the Python
reference is one environment variable away; ``--version`` says which runs."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from model import _backend, engine_backend
from model.cli import version_text

ROOT = Path(__file__).resolve().parents[3]


def _backend_in_subprocess(**env: str) -> str:
    code = "import model; print(model.engine_backend())"
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, env={**os.environ, **env}, capture_output=True, text=True, check=True
    )
    return out.stdout.strip()


def test_the_readme_commands_build_the_compiled_engine() -> None:
    # scripts/test.sh (CI's command) runs `pip install -e .` first; a build that failed would leave "python"
    missing = [m for m in _backend.COMPILED if _backend.compiled_path(m) is None]
    assert missing == []
    assert engine_backend() == "compiled"
    assert "engine: compiled: native C++" in version_text()


def test_the_python_reference_is_one_variable_away() -> None:
    assert _backend_in_subprocess(LATENCY_LAB_ENGINE="python") == "python"
    assert _backend_in_subprocess(LATENCY_LAB_ENGINE="compiled") == "compiled"


def test_every_compiled_module_has_its_source() -> None:
    for module in _backend.COMPILED:
        assert _backend.source_path(module).is_file(), module
