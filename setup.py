"""Build of latency-lab's native engine: Cython binds it (``_native.pyx``), the machine's C++ compiler compiles it.

The engine's sources are :data:`latency_lab._backend.NATIVE_SOURCES` (``latency_lab/_backend.py`` loaded on its own,
without importing the package). The extension is ``optional``: where it fails to build, the Python engine runs, and
``latency_lab.engine_backend()`` says so.

The build records what the engine was built from (:data:`latency_lab._backend.BUILD_RECORD`, the SHA-256 of its
sources, :func:`latency_lab._backend.source_hashes`) beside the package: in the wheel, and in the checkout when built in
place (``pip install -e .``, ``setup.py build_ext --inplace``). ``import latency_lab`` compares it with the sources present
and runs the Python engine where they differ (``latency_lab._backend._stale``).
"""

from __future__ import annotations

import importlib.util
import json
import os
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from types import ModuleType

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

ROOT = Path(__file__).resolve().parent


def _load_backend() -> ModuleType:
    """latency_lab/_backend.py on its own (it imports nothing of the model's; the package is not imported)."""
    spec = importlib.util.spec_from_file_location("_latency_lab_build_backend", ROOT / "latency_lab" / "_backend.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


BACKEND = _load_backend()


#: The native engine (C++, latency_lab/engine/native/): its binding and its sources (latency_lab._backend.NATIVE_SOURCES, which
#: lists its headers too, for the stale-build check: declared once, there).
NATIVE: str = BACKEND.NATIVE
NATIVE_SOURCES = tuple(name for name in BACKEND.NATIVE_SOURCES if name.endswith((".pyx", ".cpp")))
#: What each extension is built from, hashed before Cython reads it (latency_lab._backend.source_hashes); BuildExt records
#: it for the extensions that build.
BUILT_FROM: dict[str, dict[str, str]] = {}


def extensions() -> list[Extension]:
    if os.environ.get("LATENCY_LAB_BUILT_IN_PLACE") == "1":  # scripts/venv.sh: built beside the sources already
        return []
    try:
        from Cython.Build import cythonize
    except ImportError:  # no Cython: the Python engine only
        return []
    BUILT_FROM[NATIVE] = BACKEND.source_hashes(NATIVE)
    native = ROOT / "latency_lab" / "engine" / "native"
    exts = [
        Extension(
            NATIVE,
            [str((native / name).relative_to(ROOT)) for name in NATIVE_SOURCES],
            include_dirs=[str(native.relative_to(ROOT))],
            language="c++",
            optional=True,
            # -ffp-contract=off: no fused multiply-add, so every sum rounds as the Python engine's does
            extra_compile_args=["-O2", "-std=c++17", "-ffp-contract=off"],
        )
    ]
    return cythonize(
        exts,
        compiler_directives={"language_level": 3, "binding": True, "annotation_typing": False},
        nthreads=os.cpu_count() or 1,
        quiet=True,
    )


def _parallel_compile(  # type: ignore[no-untyped-def]
    self,
    sources,
    output_dir=None,
    macros=None,
    include_dirs=None,
    debug=0,
    extra_preargs=None,
    extra_postargs=None,
    depends=None,
):
    """``CCompiler.compile`` with the sources compiled side by side, one per core (the largest, Cython's
    ``_native.cpp``, is listed first so it starts first); the same steps as distutils' own, in threads."""
    macros, objects, extra_postargs, pp_opts, build = self._setup_compile(
        output_dir, macros, include_dirs, sources, depends, extra_postargs
    )
    cc_args = self._get_cc_args(pp_opts, debug, extra_preargs)

    def one(obj: str) -> None:
        if obj in build:  # not up to date
            src, ext = build[obj]
            self._compile(obj, src, ext, cc_args, extra_postargs, pp_opts)

    with ThreadPoolExecutor(max_workers=os.cpu_count() or 1) as pool:
        list(pool.map(one, objects))  # list(): a compile error is raised here
    return objects


class BuildExt(build_ext):
    """build_ext that records what each extension was built from (:data:`BUILT_FROM`, for those that built) in
    latency_lab/_build_hashes.json, in the build folder (so in the wheel) and, built in place, beside the sources; and
    that replaces an extension by a new file instead of writing over the old one: a process that has the old
    one loaded keeps its mapping (writing in place can crash it with SIGBUS)."""

    def run(self) -> None:
        self._recorded: dict[str, dict[str, str]] = {}
        super().run()  # builds into build_lib, then (in place) copies the modules beside their sources
        text = json.dumps(self._recorded, indent=1, sort_keys=True) + "\n"
        folders = [os.path.join(self.build_lib, "latency_lab")]
        if self.inplace:
            folders.append(self.get_finalized_command("build_py").get_package_dir("latency_lab"))
        for folder in folders:
            os.makedirs(folder, exist_ok=True)
            with open(os.path.join(folder, BACKEND.BUILD_RECORD), "w", encoding="utf-8") as f:
                f.write(text)

    def build_extension(self, ext: Extension) -> None:
        # The engine is one extension of 11 sources, and setuptools compiles an extension's sources one after the
        # other (its `parallel` option builds extensions side by side): compiled side by side on every core instead.
        self.compiler.compile = _parallel_compile.__get__(self.compiler)  # type: ignore[method-assign]
        try:
            super().build_extension(ext)  # raises where it fails (an optional extension is then left out, unrecorded)
        finally:
            del self.compiler.compile
        self._recorded[ext.name] = BUILT_FROM[ext.name]

    def copy_file(self, infile, outfile, *args, **kwargs):  # type: ignore[no-untyped-def, override]
        if os.path.isfile(outfile) and str(outfile).endswith(".so"):
            os.unlink(outfile)
        return super().copy_file(infile, outfile, *args, **kwargs)


setup(
    ext_modules=extensions(),
    cmdclass={"build_ext": BuildExt},
    options={"build_ext": {"parallel": os.cpu_count() or 1}},
)
