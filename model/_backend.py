"""Which engine runs: the modules compiled by Cython from their own ``.py`` sources, or the sources.

``pip install -e .`` (the README's commands run it) compiles the modules in :data:`COMPILED` with
Cython and the machine's C compiler (``setup.py``): the same Python source, given C layouts and types
by the ``.pxd`` file beside each one, so both builds compute the same numbers in the same order
(``tests/model/engine/test_engine_backends.py`` proves it). Where a compiled module is missing, the Python
source is used quietly. ``LATENCY_LAB_ENGINE=python`` asks for the sources even where the compiled
modules exist (the reference side of the differential test and of ``bench/bench_predict.py``). A
compiled module older than its source (edited since the last build) is not used either: every module
then runs from source, with a warning to rebuild.

Imported by :mod:`model` before any other module, so it must import nothing of the model's own.
"""

from __future__ import annotations

import hashlib
import importlib.abc
import importlib.machinery
import importlib.util
import os
import sys
import warnings
from collections.abc import Sequence
from pathlib import Path
from types import ModuleType

#: The modules the build compiles (``setup.py`` reads this list), the engine's hot path first.
COMPILED: tuple[str, ...] = (
    "model.engine.core",
    "model.engine.tcp",
    "model.protocols.base",
    "model.protocols.http10",
    "model.protocols.http10_parallel",
    "model.protocols.persistent_parallel",
    "model.protocols.persistent",
    "model.protocols.pipelined",
    "model.protocols.getall",
    "model.protocols.h2",
    "model.protocols.h3",
    "model.protocols.multiplex",
    "model.protocols.secure_setup",
    "model.protocols.proxy",
    "model.mechanisms.slow_start",
    "model.mechanisms.delayed_ack",
    "model.mechanisms.nagle",
    "model.mechanisms.connection_setup",
    "model.mechanisms.quic",
    "model.mechanisms.tls",
    "model.mechanisms.rto",
    "model.engine.lin",
    "model.mechanisms.loss",
    "model.mechanisms.loss_recovery",
    "model.analysis.critical_path",
    "model.analysis.expected_loss",
    "model.analysis.predict",
    "model.analysis.native",
    "model.engine.words",
)

#: The native engine (C++, model/engine/native/; setup.py builds it): its binding module and its sources.
NATIVE = "model.engine.native._native"
NATIVE_SOURCES: tuple[str, ...] = (
    "_native.pyx",
    "tcp.cpp",
    "session.cpp",
    "secure.cpp",
    "streams.cpp",
    "walk.cpp",
    "loss.cpp",
    "periods.cpp",
    "engine.hpp",
    "params.hpp",
    "tcp.hpp",
    "session.hpp",
    "loss.hpp",
    "periods.hpp",
    "api.hpp",
)

_ROOT = Path(__file__).resolve().parent.parent
ENV = "LATENCY_LAB_ENGINE"
#: Whether this process may run the native engine: not asked for the Python one, nothing stale (set by install()).
native_ok = False


def source_path(module: str) -> Path:
    """The ``.py`` source of one of the :data:`COMPILED` modules."""
    return _ROOT.joinpath(*module.split(".")).with_suffix(".py")


def compiled_path(module: str) -> Path | None:
    """The compiled extension of ``module`` beside its source, if built."""
    src = source_path(module)
    for suffix in importlib.machinery.EXTENSION_SUFFIXES:
        candidate = src.with_suffix(suffix)
        if candidate.exists():
            return candidate
    return None


class _SourceFirst(importlib.abc.MetaPathFinder):
    """Import the :data:`COMPILED` modules from their ``.py`` sources, never from an extension."""

    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        if fullname not in COMPILED:
            return None
        return importlib.util.spec_from_file_location(fullname, source_path(fullname))


def native_sources() -> list[Path]:
    """The native engine's source files (its binding, C++ sources and headers)."""
    return [_ROOT / "model" / "engine" / "native" / name for name in NATIVE_SOURCES]


def _native_built() -> Path | None:
    folder = _ROOT / "model" / "engine" / "native"
    for suffix in importlib.machinery.EXTENSION_SUFFIXES:
        candidate = folder / ("_native" + suffix)
        if candidate.exists():
            return candidate
    return None


def _stale() -> list[str]:
    out = []
    for module in COMPILED:
        built = compiled_path(module)
        if built is not None and built.stat().st_mtime < source_path(module).stat().st_mtime:
            out.append(module)
    native = _native_built()
    if native is not None and native.stat().st_mtime < max(src.stat().st_mtime for src in native_sources()):
        out.append(NATIVE)
    return out


def install() -> None:
    """Choose the engine for this process (called once, by ``import model``)."""
    if any(isinstance(f, _SourceFirst) for f in sys.meta_path):
        return
    wanted = os.environ.get(ENV, "").strip().lower()
    if wanted not in ("", "python", "compiled"):
        warnings.warn(f"{ENV}={wanted!r} is neither 'python' nor 'compiled': using the default", stacklevel=2)
    stale = _stale() if wanted != "python" else []
    if stale:
        warnings.warn(
            f"compiled engine older than its source ({', '.join(stale)}): running the Python engine; "
            "rebuild with 'pip install -e .' (or run the README's commands)",
            stacklevel=2,
        )
    global native_ok
    native_ok = not (wanted == "python" or stale)
    if wanted == "python" or stale:
        sys.meta_path.insert(0, _SourceFirst())


def build_stamp() -> str:
    """A hash of what the compiled build is made from: the build files and each compiled module's source and
    ``.pxd`` (``scripts/venv.sh`` rebuilds when it changes)."""
    digest = hashlib.sha256()
    files = [_ROOT / "setup.py", _ROOT / "pyproject.toml"]
    for module in COMPILED:
        src = source_path(module)
        files += [src, src.with_suffix(".pxd")]
    files += native_sources()
    for path in files:
        digest.update(path.name.encode())
        digest.update(path.read_bytes() if path.exists() else b"-")
    return digest.hexdigest()


def engine_backend() -> str:
    """``"compiled"`` if the engine's modules run compiled in this process, else ``"python"``."""
    import model.engine.core as engine  # here, not at the top: after install() has chosen

    origin = getattr(engine, "__file__", "") or ""
    return "compiled" if origin.endswith(tuple(importlib.machinery.EXTENSION_SUFFIXES)) else "python"


if __name__ == "__main__":  # scripts/venv.sh: ``stamp`` prints build_stamp(); ``built`` exits 1 if a module is missing
    if sys.argv[1:] == ["stamp"]:
        print(build_stamp())
    elif sys.argv[1:] == ["built"]:
        sys.exit(any(compiled_path(m) is None for m in COMPILED) or _native_built() is None)
    else:
        sys.exit("usage: python model/_backend.py stamp|built")
