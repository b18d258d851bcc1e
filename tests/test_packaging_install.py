"""The wheel, installed and run as a researcher would (issue 30), no mocks: built from the checkout (``pip wheel``
without build isolation: this environment's Cython and setuptools, nothing downloaded), installed into a fresh
virtual environment outside the repository, and run from a directory outside it: ``import latency_lab`` on the native
engine with no stale warning, the ``latency-lab`` command, and the web app under gunicorn serving every page and its
static files. Before, every import of an installed copy warned "compiled engine older than its source" (pip wrote
the compiled modules' ``.so`` before their ``.py``) and ran the Python engine, and the app 500'd on ``/`` (no templates) and 404'd
``/static/style.css``.

Slow (``slow``: left out of scripts/check.sh, run by scripts/test.sh and CI): the build compiles the native engine
(until issue 29, 2026-11-29, the Python engine's ~30 modules by Cython too), a few minutes on 2 cores; it runs niced, beside the other tests of the parallel phase. Under the README's
test command gcc runs through ccache (scripts/venv.sh), so the compiles the editable build made are reused: the same
sources and flags give the same objects (146 -> 35 s for this file on 2 cores, 2026-11-29).

The fresh environment gets its dependencies (flask, pydantic, gunicorn, ...) from this one through a ``.pth`` file
naming this environment's site-packages: ``python -m venv --system-site-packages`` run from a virtual environment (as
the README's ``.venv``) would give the base interpreter's packages, not this environment's. Paths in a ``.pth`` file
are added after the new environment's own site-packages, and the ``.pth`` files in them are not run (so this
environment's editable install of the checkout is not): ``latency_lab`` and ``latency_lab_web`` come from the wheel.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import sysconfig
import time
import tomllib
import urllib.request
import zipfile
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

import pytest

from latency_lab import _backend

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[1]
VERSION = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["version"]
#: What the build reads from the checkout (setup.py, pyproject.toml and MANIFEST.in name nothing else).
BUILD_INPUTS = (
    "setup.py",
    "pyproject.toml",
    "MANIFEST.in",
    "README.md",
    "requirements.txt",
    "requirements-studies.txt",
    "requirements-build.txt",
    "latency_lab",
    "latency_lab_web",
)
#: What a build or a run leaves in the checkout (git-ignored): not copied, so the wheel is built from the sources.
LEFT_BY_BUILDS = shutil.ignore_patterns("__pycache__", "*.pyc", "*.so", "*.c", "_native.cpp", _backend.BUILD_RECORD)
#: Variables of this process that would change what the installed copy runs.
CLEARED = ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV", _backend.ENV, "LATENCY_LAB_NATIVE")
#: The pages and files the installed app must serve.
PAGES = (
    "/",
    "/compare",
    "/experiments/",
    "/static/style.css",
    "/static/vendor/plotly-basic-4.1.1.min.js",
    "/healthz",
    "/exercises/",
    "/exercises/static/exercises.css",
    "/api/docs",
)
NICE = ["nice", "-n", "10"] if shutil.which("nice") else []


@dataclass(frozen=True)
class Installed:
    wheel: Path
    venv: Path
    python: Path
    elsewhere: Path  # a working directory outside the repository
    env: dict[str, str]

    def run(self, cmd: Sequence[str], env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
        """``cmd`` in the fresh environment, from outside the repository; it must succeed."""
        return _run(cmd, cwd=self.elsewhere, env={**self.env, **(env or {})})


def _run(cmd: Sequence[str], cwd: Path, env: dict[str, str], timeout: float = 300) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout, check=False)
    assert done.returncode == 0, f"{' '.join(map(str, cmd))} exited {done.returncode}:\n{done.stdout}\n{done.stderr}"
    return done


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Installed:
    base = tmp_path_factory.mktemp("install").resolve()
    assert not base.is_relative_to(ROOT)
    env = {k: v for k, v in os.environ.items() if k not in CLEARED}
    env |= {"PIP_DISABLE_PIP_VERSION_CHECK": "1", "PYTHONNOUSERSITE": "1"}

    src = base / "src"
    src.mkdir()
    for name in BUILD_INPUTS:
        if (ROOT / name).is_dir():
            shutil.copytree(ROOT / name, src / name, ignore=LEFT_BY_BUILDS)
        else:
            shutil.copy2(ROOT / name, src / name)
    start = time.monotonic()
    wheel_cmd = [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "--no-index"]
    _run([*NICE, *wheel_cmd, "--wheel-dir", str(base / "dist"), str(src)], cwd=base, env=env, timeout=1800)
    print(f"\nwheel built in {time.monotonic() - start:.0f} s")  # shown with -s, and in the report of a failure
    (wheel,) = (base / "dist").glob("latency_lab-*.whl")

    venv = base / "venv"
    _run([sys.executable, "-m", "venv", str(venv)], cwd=base, env=env)  # with pip (ensurepip's own: no download)
    python = venv / "bin" / "python"
    site = _run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"], cwd=base, env=env)
    here = dict.fromkeys(sysconfig.get_paths()[key] for key in ("purelib", "platlib"))
    (Path(site.stdout.strip()) / "_dependencies_from_the_test.pth").write_text("".join(f"{p}\n" for p in here))
    _run([str(python), "-m", "pip", "install", "--no-deps", "--no-index", str(wheel)], cwd=base, env=env)
    print(f"installed in {time.monotonic() - start:.0f} s")

    elsewhere = base / "elsewhere"
    elsewhere.mkdir()
    return Installed(wheel, venv, python, elsewhere, env | {"PATH": f"{venv / 'bin'}{os.pathsep}{env['PATH']}"})


def test_the_wheel_carries_what_runs_and_not_the_build(installed: Installed) -> None:
    with zipfile.ZipFile(installed.wheel) as wheel:
        names = set(wheel.namelist())
        (metadata,) = (n for n in names if n.endswith(".dist-info/METADATA"))
        requires = [line for line in wheel.read(metadata).decode().splitlines() if line.startswith("Requires-Dist:")]
        record = json.loads(wheel.read(f"latency_lab/{_backend.BUILD_RECORD}"))
    for name in (
        "latency_lab/py.typed",
        "latency_lab_web/py.typed",
        "latency_lab/engine/native/_native.pyi",
        "latency_lab_web/templates/base.html",
        "latency_lab_web/static/style.css",
        "latency_lab_web/static/vendor/plotly-basic-4.1.1.min.js",
        "latency_lab_web/static/vendor/plotly.LICENSE",
        "latency_lab_web/exercises/static/exercises.css",
        "latency_lab_web/exercises/schemas/qti12_numeric.xsd",
        "latency_lab_web/calculator/templates/calculator/index.html",
    ):
        assert name in names, name
    # the native engine, built, and nothing else compiled (the Python engine is its sources; issue 29)
    stem = _backend.NATIVE.replace(".", "/") + "."
    assert [n for n in names if n.endswith(".so")] == [n for n in names if n.startswith(stem) and n.endswith(".so")]
    assert any(n.startswith(stem) and n.endswith(".so") for n in names), "the native engine is not in the wheel"
    assert list(record) == [_backend.NATIVE]
    # neither Cython's generated C nor the build's inputs; no build tool among the dependencies
    assert sorted(n for n in names if n.endswith((".c", ".cpp", ".hpp", ".pyx", ".pxd"))) == []
    assert requires and not [r for r in requires if r.split()[1].lower().startswith(("cython", "setuptools"))]


def test_import_runs_the_native_engine_from_elsewhere(installed: Installed) -> None:
    code = (
        "import json, latency_lab, latency_lab_web; from latency_lab.analysis import native; "
        "print(json.dumps([latency_lab.__version__, latency_lab.__file__, latency_lab_web.__file__, latency_lab.engine_backend(), native.available()]))"
    )
    done = installed.run([str(installed.python), "-c", code])
    assert done.stderr == ""  # no stale warning, nor any other
    version, model_file, app_file, backend, native = json.loads(done.stdout)
    assert version == VERSION
    assert Path(model_file).is_relative_to(installed.venv) and Path(app_file).is_relative_to(installed.venv)
    assert (backend, native) == ("native", True)


def test_imports_beside_a_users_own_model_and_app(installed: Installed) -> None:
    # issue 30: the packages were named `model` and `app`, which a user's own model.py or app.py shadowed
    mine = installed.elsewhere / "users_project"
    mine.mkdir(exist_ok=True)
    (mine / "model.py").write_text("WHOSE = 'the user'\n", encoding="utf-8")
    (mine / "app.py").write_text("WHOSE = 'the user'\n", encoding="utf-8")
    code = (
        "import json, model, app; from latency_lab import Scenario, predict; import latency_lab_web; "
        "r = predict(Scenario()); print(json.dumps([model.WHOSE, app.WHOSE, r['results'][0]['page_load_ms'] > 0]))"
    )
    done = _run([str(installed.python), "-c", code], cwd=mine, env=installed.env)
    assert json.loads(done.stdout) == ["the user", "the user", True]
    done = _run([str(installed.python), "-m", "latency_lab", "--version"], cwd=mine, env=installed.env)
    assert done.stdout.startswith(f"latency-lab {VERSION} "), done.stdout


def test_the_command_predicts_on_the_native_engine(installed: Installed) -> None:
    done = installed.run(["latency-lab", "--version"])
    assert f"latency-lab {VERSION} " in done.stdout and "engine: native: C++" in done.stdout, done.stdout
    done = installed.run(["latency-lab", "predict", "--preset", "h96-lan"])
    assert done.stderr == ""
    from latency_lab import predict, preset

    expected = {r["protocol"]: r["page_load_ms"] for r in predict(preset("h96-lan"))["results"]}
    got = {r["protocol"]: r["page_load_ms"] for r in json.loads(done.stdout)["results"]}
    assert got == pytest.approx(expected, rel=1e-9)  # the checkout's answer


@pytest.fixture
def server(installed: Installed) -> Iterator[tuple[str, subprocess.Popen[str]]]:
    """The installed app under gunicorn (one sync worker) on a port the system picks, from outside the repository."""
    cmd = [
        str(installed.python),
        "-m",
        "gunicorn",
        "--bind",
        "127.0.0.1:0",
        "--workers",
        "1",
        "latency_lab_web:create_app()",
    ]
    proc = subprocess.Popen(
        cmd, cwd=installed.elsewhere, env=installed.env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True
    )
    try:
        assert proc.stderr is not None
        lines = []
        while "Listening at: " not in (line := proc.stderr.readline()):
            lines.append(line)
            assert line, f"gunicorn exited {proc.wait()}: {''.join(lines)}"
        yield line.split("Listening at: ", 1)[1].split()[0], proc
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def test_every_page_is_served(installed: Installed, server: tuple[str, subprocess.Popen[str]]) -> None:
    url, proc = server
    bodies = {}
    for path in PAGES:
        with urllib.request.urlopen(url + path, timeout=120) as response:
            assert response.status == 200, path
            bodies[path] = response.read()
    assert b"<html" in bodies["/"] and b"/static/style.css?v=" in bodies["/"]
    assert bodies["/static/style.css"] == (ROOT / "latency_lab_web" / "static" / "style.css").read_bytes()
    assert (
        bodies["/exercises/static/exercises.css"]
        == (ROOT / "latency_lab_web/exercises/static/exercises.css").read_bytes()
    )
    assert json.loads(bodies["/healthz"]) == {"status": "ok"}
    proc.terminate()
    assert proc.stderr is not None
    log = proc.stderr.read()
    assert _backend.STALE_WARNING not in log and "Traceback" not in log, log


def test_an_edited_installed_python_module_leaves_the_native_build_fresh(installed: Installed) -> None:
    """The check compares the native engine's sources only (a wheel carries none): an edit of an installed Python
    module (last: it restores the file) runs from its source and keeps the native engine; ``LATENCY_LAB_ENGINE=python``
    turns it off."""
    code = "import latency_lab; print(latency_lab.engine_backend())"
    where = installed.run([str(installed.python), "-c", "import latency_lab; print(latency_lab.__file__)"])
    core = Path(where.stdout.strip()).parent / "engine" / "core.py"
    text = core.read_text(encoding="utf-8")
    try:
        core.write_text(text + "# edited\n", encoding="utf-8")
        done = installed.run([str(installed.python), "-c", code])
        assert done.stdout.strip() == "native" and done.stderr == ""
        done = installed.run([str(installed.python), "-c", code], env={_backend.ENV: "python"})
        assert done.stdout.strip() == "python" and done.stderr == ""
    finally:
        core.write_text(text, encoding="utf-8")
    assert installed.run([str(installed.python), "-c", code]).stdout.strip() == "native"
