"""Which engine runs: the modules compiled by Cython from their own ``.py`` sources, or the sources.

``pip install -e .`` (the README's commands run it) compiles the modules in :data:`COMPILED` with
Cython and the machine's C compiler (``setup.py``): the same Python source, given C layouts and types
by the ``.pxd`` file beside each one, so both builds compute the same numbers in the same order
(``tests/latency_lab/engine/test_engine_backends.py`` proves it). Where a compiled module is missing, the Python
source is used quietly. ``LATENCY_LAB_ENGINE=python`` asks for the sources even where the compiled
modules exist (the reference side of the differential test and of ``bench/bench_predict.py``).

A compiled module built from other sources than the ones present (a ``.py`` edited since the last build) is not
used either: every module then runs from source, with a warning to rebuild. The build records what it was made
from: ``setup.py`` writes the SHA-256 of each compiled module's ``.py`` and ``.pxd`` and of the native engine's
sources into :data:`BUILD_RECORD` beside them (into the wheel, or into the checkout by ``pip install -e .``), and
:func:`_stale` compares it with the files present, by content, not by file time: pip writes an installed copy's
``.so`` before its ``.py``, which a comparison of times took for an edit (issue 30). A build input that is not
there (a wheel carries no ``.pxd`` nor C++ sources: nobody edits them in site-packages) is not compared; a built
module the record does not name (a build from before the record, or one whose compile failed this time, leaving
an older ``.so``) counts as stale. ``LATENCY_LAB_ENGINE=compiled`` runs the build even where it is stale (with a
warning naming the stale modules: the answers are then the build's, not the sources'); where a module was never
built, its source runs whatever the variable says.

Imported by :mod:`latency_lab` before any other module, so it must import nothing of the model's own.
"""

from __future__ import annotations

import hashlib
import importlib.abc
import importlib.machinery
import importlib.util
import json
import os
import sys
import warnings
from collections.abc import Sequence
from pathlib import Path
from types import ModuleType

#: The modules the build compiles (``setup.py`` reads this list), the engine's hot path first.
COMPILED: tuple[str, ...] = (
    "latency_lab.engine.core",
    "latency_lab.engine.tcp",
    "latency_lab.protocols.base",
    "latency_lab.protocols.http10",
    "latency_lab.protocols.http10_parallel",
    "latency_lab.protocols.persistent_parallel",
    "latency_lab.protocols.persistent",
    "latency_lab.protocols.pipelined",
    "latency_lab.protocols.getall",
    "latency_lab.protocols.h2",
    "latency_lab.protocols.h3",
    "latency_lab.protocols.multiplex",
    "latency_lab.protocols.secure_setup",
    "latency_lab.protocols.proxy",
    "latency_lab.mechanisms.slow_start",
    "latency_lab.mechanisms.delayed_ack",
    "latency_lab.mechanisms.nagle",
    "latency_lab.mechanisms.connection_setup",
    "latency_lab.mechanisms.quic",
    "latency_lab.mechanisms.tls",
    "latency_lab.mechanisms.rto",
    "latency_lab.engine.lin",
    "latency_lab.mechanisms.loss",
    "latency_lab.mechanisms.loss_recovery",
    "latency_lab.analysis.critical_path",
    "latency_lab.analysis.expected_loss",
    "latency_lab.analysis.document",
    "latency_lab.analysis.predict",
    "latency_lab.analysis.native",
    "latency_lab.engine.words",
)

#: The native engine (C++, latency_lab/engine/native/; setup.py builds it): its binding module and its sources.
NATIVE = "latency_lab.engine.native._native"
NATIVE_SOURCES: tuple[str, ...] = (
    "_native.pyx",
    "tcp.cpp",
    "session.cpp",
    "secure.cpp",
    "streams.cpp",
    "proxy.cpp",
    "walk.cpp",
    "loss.cpp",
    "periods.cpp",
    "loss_recovery.cpp",
    "engine.hpp",
    "params.hpp",
    "tcp.hpp",
    "session.hpp",
    "loss.hpp",
    "periods.hpp",
    "loss_recovery.hpp",
    "api.hpp",
)

#: The build's record beside this file (setup.py writes it; git-ignored in a checkout): ``{module: {path: sha256}}``,
#: each compiled module's build inputs (:func:`build_inputs`) as they were when it was built, paths from the folder
#: that holds ``latency_lab/``.
BUILD_RECORD = "_build_hashes.json"
#: The start of the warning when the build is stale (bench/bench_grid.py looks for it).
STALE_WARNING = "compiled engine built from other sources than these"

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
    return [_ROOT / "latency_lab" / "engine" / "native" / name for name in NATIVE_SOURCES]


def _native_built() -> Path | None:
    folder = _ROOT / "latency_lab" / "engine" / "native"
    for suffix in importlib.machinery.EXTENSION_SUFFIXES:
        candidate = folder / ("_native" + suffix)
        if candidate.exists():
            return candidate
    return None


def build_inputs(module: str) -> list[Path]:
    """The files the build of ``module`` (one of :data:`COMPILED`, or :data:`NATIVE`) is made from: a compiled
    module's ``.py`` and ``.pxd``, the native engine's sources; some may not exist (not every module has a
    ``.pxd``, an installed copy has no ``.pxd`` nor C++ sources)."""
    if module == NATIVE:
        return native_sources()
    src = source_path(module)
    return [src, src.with_suffix(".pxd")]


def source_hashes(module: str) -> dict[str, str]:
    """``{path: sha256}`` of the :func:`build_inputs` of ``module`` that exist (paths from the folder that holds
    ``latency_lab/``, with ``/``): what setup.py records at build time and :func:`_stale` checks at import."""
    return {
        path.relative_to(_ROOT).as_posix(): hashlib.sha256(path.read_bytes()).hexdigest()
        for path in build_inputs(module)
        if path.is_file()
    }


def _built(module: str) -> Path | None:
    return _native_built() if module == NATIVE else compiled_path(module)


def _stale() -> list[str]:
    """The built modules (compiled ones and the native engine) whose build inputs present here differ from the
    ones recorded when they were built (:data:`BUILD_RECORD`), or that the record does not name."""
    try:
        record = json.loads((_ROOT / "latency_lab" / BUILD_RECORD).read_text(encoding="utf-8"))
    except (OSError, ValueError):  # no record: a build from before it, or none
        record = {}
    if not isinstance(record, dict):
        record = {}
    out = []
    for module in (*COMPILED, NATIVE):
        if _built(module) is None:
            continue
        built_from = record.get(module)
        if not isinstance(built_from, dict) or any(
            built_from.get(name) != sha for name, sha in source_hashes(module).items()
        ):
            out.append(module)
    return out


def choose(wanted: str, stale: Sequence[str]) -> tuple[bool, str | None]:
    """Whether the compiled build runs (where built) for ``LATENCY_LAB_ENGINE=wanted`` and the ``stale`` modules,
    and the warning to give, if any: ``python`` never runs it; ``compiled`` runs it even stale; the default runs it
    unless stale."""
    if wanted == "python":
        return False, None
    if not stale:
        return True, None
    names = ", ".join(stale)
    if wanted == "compiled":
        return (
            True,
            f"{STALE_WARNING} ({names}): running it anyway, as {ENV}=compiled asks (its answers are the build's)",
        )
    return False, (
        f"{STALE_WARNING} ({names}): running the Python engine; rebuild with 'pip install -e .' (or run the README's "
        f"commands), or set {ENV}=compiled to run the build as it is"
    )


def install() -> None:
    """Choose the engine for this process (called once, by ``import latency_lab``)."""
    if any(isinstance(f, _SourceFirst) for f in sys.meta_path):
        return
    wanted = os.environ.get(ENV, "").strip().lower()
    if wanted not in ("", "python", "compiled"):
        warnings.warn(f"{ENV}={wanted!r} is neither 'python' nor 'compiled': using the default", stacklevel=2)
    use_build, warning = choose(wanted, _stale() if wanted != "python" else [])
    if warning is not None:
        warnings.warn(warning, stacklevel=2)
    global native_ok
    native_ok = use_build
    if not use_build:
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
    import latency_lab.engine.core as engine  # here, not at the top: after install() has chosen

    origin = getattr(engine, "__file__", "") or ""
    return "compiled" if origin.endswith(tuple(importlib.machinery.EXTENSION_SUFFIXES)) else "python"


if __name__ == "__main__":  # scripts/venv.sh: ``stamp`` prints build_stamp(); ``built`` exits 1 if a module is
    # missing or stale (built from other sources, or by a setup.py that kept no record)
    if sys.argv[1:] == ["stamp"]:
        print(build_stamp())
    elif sys.argv[1:] == ["built"]:
        sys.exit(any(_built(m) is None for m in (*COMPILED, NATIVE)) or bool(_stale()))
    else:
        sys.exit("usage: python latency_lab/_backend.py stamp|built")
