"""Build of latency-lab's compiled engine: Cython compiles the engine's own ``.py`` modules.

The list of modules is :data:`model._backend.COMPILED` (read without importing the package); each
module's ``.pxd`` beside it gives its classes C layouts. A module that fails to compile is left out
(``optional``): the Python source then runs, and ``model.engine_backend()`` says so.
"""

from __future__ import annotations

import ast
import os
from pathlib import Path

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

ROOT = Path(__file__).resolve().parent


def _backend_list(name: str) -> tuple[str, ...]:
    """A tuple declared in model/_backend.py (read without importing the package)."""
    tree = ast.parse((ROOT / "model" / "_backend.py").read_text(encoding="utf-8"))
    for node in tree.body:
        if isinstance(node, ast.AnnAssign) and getattr(node.target, "id", "") == name:
            return tuple(ast.literal_eval(node.value))  # type: ignore[arg-type]
    raise RuntimeError(f"model/_backend.py has no {name} list")


def compiled_modules() -> tuple[str, ...]:
    return _backend_list("COMPILED")


#: The native engine (C++, model/engine/native/): its binding and its sources (model._backend.NATIVE_SOURCES, which
#: lists its headers too, for the stale-build check: declared once, there).
NATIVE = "model.engine.native._native"
NATIVE_SOURCES = tuple(name for name in _backend_list("NATIVE_SOURCES") if name.endswith((".pyx", ".cpp")))


def extensions() -> list[Extension]:
    try:
        from Cython.Build import cythonize
    except ImportError:  # no Cython: the pure-Python engine only
        return []
    exts = [
        Extension(name, [name.replace(".", "/") + ".py"], optional=True, extra_compile_args=["-O2"])
        for name in compiled_modules()
    ]
    native = ROOT / "model" / "engine" / "native"
    exts.append(
        Extension(
            NATIVE,
            [str((native / name).relative_to(ROOT)) for name in NATIVE_SOURCES],
            include_dirs=[str(native.relative_to(ROOT))],
            language="c++",
            optional=True,
            # -ffp-contract=off: no fused multiply-add, so every sum rounds as the Python engine's does
            extra_compile_args=["-O2", "-std=c++17", "-ffp-contract=off"],
        )
    )
    return cythonize(
        exts,
        compiler_directives={"language_level": 3, "binding": True, "annotation_typing": False},
        nthreads=os.cpu_count() or 1,
        quiet=True,
    )


class BuildExt(build_ext):
    """build_ext that replaces a compiled module by a new file instead of writing over the old one: a process
    that has the old one loaded keeps its mapping (writing in place can crash it with SIGBUS)."""

    def copy_file(self, infile, outfile, *args, **kwargs):  # type: ignore[no-untyped-def, override]
        if os.path.isfile(outfile) and str(outfile).endswith(".so"):
            os.unlink(outfile)
        return super().copy_file(infile, outfile, *args, **kwargs)


# build_ext compiles the C files on every core (the Cython step above is parallel too)
setup(
    ext_modules=extensions(),
    cmdclass={"build_ext": BuildExt},
    options={"build_ext": {"parallel": os.cpu_count() or 1}},
)
