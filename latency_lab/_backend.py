"""Which engine runs the numbers: the native one (C++, built by ``setup.py``) where it is built from the sources present,
else the Python engine.

Two engines: the native engine (``latency_lab/engine/native``, bound by Cython in ``_native.pyx``) runs every numeric
prediction; the Python engine (:mod:`latency_lab.engine`, :mod:`latency_lab.protocols`, ...) is the readable reference
and runs the traced (symbolic) runs the formulas come from, and everything where the native engine is not built.
``tests/latency_lab/engine/test_engine_backends.py`` proves they compute the same numbers. ``LATENCY_LAB_ENGINE=python``
asks for the Python engine even where the native one is built (the reference side of the differential test and of
``bench/bench_predict.py``).

A native build made from other sources than the ones present (a ``.cpp`` edited since the last build) is not used
either: the Python engine then runs, with a warning to rebuild. The build records what it was made from: ``setup.py``
writes the SHA-256 of the native engine's sources into :data:`BUILD_RECORD` beside this file (into the wheel, or into
the checkout by ``pip install -e .``), and :func:`_stale` compares it with the files present, by content, not by file
time (issue 30). A source that is not there (a wheel carries no C++ sources: nobody edits them in site-packages) is not
compared; a build the record does not name (a build from before the record, or one whose compile failed this time,
leaving an older ``.so``) counts as stale. ``LATENCY_LAB_ENGINE=native`` runs the build even where it is stale (with a
warning: the answers are then the build's, not the sources').

Imported by :mod:`latency_lab` before any other module, so it must import nothing of the model's own.
"""

from __future__ import annotations

import hashlib
import importlib.machinery
import json
import os
import sys
import warnings
from collections.abc import Sequence
from pathlib import Path

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
#: the native engine's sources (:func:`native_sources`) as they were when it was built, paths from the folder that
#: holds ``latency_lab/``.
BUILD_RECORD = "_build_hashes.json"
#: The start of the warning when the build is stale (bench/bench_grid.py looks for it).
STALE_WARNING = "native engine built from other sources than these"

_ROOT = Path(__file__).resolve().parent.parent
ENV = "LATENCY_LAB_ENGINE"
#: Whether this process may run the native engine: not asked for the Python one, nothing stale (set by install()).
native_ok = False


def native_sources() -> list[Path]:
    """The native engine's source files (its binding, C++ sources and headers)."""
    return [_ROOT / "latency_lab" / "engine" / "native" / name for name in NATIVE_SOURCES]


def native_built() -> Path | None:
    """The native engine's extension, if built."""
    folder = _ROOT / "latency_lab" / "engine" / "native"
    for suffix in importlib.machinery.EXTENSION_SUFFIXES:
        candidate = folder / ("_native" + suffix)
        if candidate.exists():
            return candidate
    return None


def source_hashes(module: str = NATIVE) -> dict[str, str]:
    """``{path: sha256}`` of the native engine's sources that exist (paths from the folder that holds
    ``latency_lab/``, with ``/``): what setup.py records at build time and :func:`_stale` checks at import."""
    assert module == NATIVE, module
    return {
        path.relative_to(_ROOT).as_posix(): hashlib.sha256(path.read_bytes()).hexdigest()
        for path in native_sources()
        if path.is_file()
    }


#: The start of the warning when compiled modules of the deleted Cython tier are left beside the sources.
LEFTOVER_WARNING = "compiled modules from before the Cython tier's removal (2026-11-29)"


def leftover_extensions() -> list[Path]:
    """Extension modules under ``latency_lab/`` other than the native engine's: the Cython-compiled tier's builds,
    left by a checkout upgraded in place. Python imports an extension before the source of the same name, so they
    would run instead of the sources."""
    suffixes = tuple(importlib.machinery.EXTENSION_SUFFIXES)
    out = []
    for folder, _, files in os.walk(_ROOT / "latency_lab"):
        out += [Path(folder) / f for f in files if f.endswith(suffixes) and not f.startswith("_native.")]
    return sorted(out)


def _stale() -> list[str]:
    """``[NATIVE]`` if the native engine is built and its sources present here differ from the ones recorded when it
    was built (:data:`BUILD_RECORD`), or the record does not name it; else ``[]``."""
    if native_built() is None:
        return []
    try:
        record = json.loads((_ROOT / "latency_lab" / BUILD_RECORD).read_text(encoding="utf-8"))
    except (OSError, ValueError):  # no record: a build from before it, or none
        record = {}
    built_from = record.get(NATIVE) if isinstance(record, dict) else None
    if not isinstance(built_from, dict) or any(built_from.get(name) != sha for name, sha in source_hashes().items()):
        return [NATIVE]
    return []


def choose(wanted: str, stale: Sequence[str]) -> tuple[bool, str | None]:
    """Whether the native build may run (where built) for ``LATENCY_LAB_ENGINE=wanted`` and the ``stale`` modules,
    and the warning to give, if any: ``python`` never runs it; ``native`` runs it even stale; the default runs it
    unless stale."""
    if wanted == "python":
        return False, None
    if not stale:
        return True, None
    names = ", ".join(stale)
    if wanted == "native":
        return (
            True,
            f"{STALE_WARNING} ({names}): running it anyway, as {ENV}=native asks (its answers are the build's)",
        )
    return False, (
        f"{STALE_WARNING} ({names}): running the Python engine; rebuild with 'pip install -e .' (or run the README's "
        f"commands), or set {ENV}=native to run the build as it is"
    )


_installed = False


def install() -> None:
    """Choose the engine for this process (called once, by ``import latency_lab``)."""
    global native_ok, _installed
    if _installed:
        return
    _installed = True
    wanted = os.environ.get(ENV, "").strip().lower()
    if wanted not in ("", "python", "native"):
        warnings.warn(f"{ENV}={wanted!r} is neither 'python' nor 'native': using the default", stacklevel=2)
    native_ok, warning = choose(wanted, _stale() if wanted != "python" else [])
    if warning is not None:
        warnings.warn(warning, stacklevel=2)
    if leftovers := leftover_extensions():
        names = ", ".join(path.relative_to(_ROOT).as_posix() for path in leftovers[:3])
        more = f" and {len(leftovers) - 3} more" if len(leftovers) > 3 else ""
        warnings.warn(
            f"{LEFTOVER_WARNING} run instead of the sources: {names}{more}; delete them "
            "(find latency_lab -name '*.so' ! -name '_native.*' -delete) or clone afresh",
            stacklevel=2,
        )


def build_stamp() -> str:
    """A hash of what the build is made from: the build files and the native engine's sources (``scripts/venv.sh``
    rebuilds when it changes)."""
    digest = hashlib.sha256()
    for path in [_ROOT / "setup.py", _ROOT / "pyproject.toml", *native_sources()]:
        digest.update(path.name.encode())
        digest.update(path.read_bytes() if path.exists() else b"-")
    return digest.hexdigest()


def engine_backend() -> str:
    """``"native"`` if the native engine runs this process's numeric predictions, else ``"python"`` (the Python engine
    runs the formulas either way)."""
    from latency_lab.analysis import native  # here, not at the top: after install() has chosen

    return "native" if native.available() else "python"


if __name__ == "__main__":  # scripts/venv.sh: ``stamp`` prints build_stamp(); ``built`` exits 1 if the native engine
    # is missing or stale (built from other sources, or by a setup.py that kept no record)
    if sys.argv[1:] == ["stamp"]:
        print(build_stamp())
    elif sys.argv[1:] == ["built"]:
        sys.exit(native_built() is None or bool(_stale()))
    else:
        sys.exit("usage: python latency_lab/_backend.py stamp|built")
