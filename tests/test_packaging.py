"""What an installed copy needs, checked on the checkout (quick; tests/test_packaging_install.py builds the wheel and
runs it): every file the app reads from its package folder is package-data, the build's tools are the build's only
(issue 30: Cython and setuptools were runtime dependencies; the installed app had no templates nor static files)."""

from __future__ import annotations

import ast
import json
import re
import subprocess
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
#: What a build leaves beside the sources (git-ignored), never package-data.
BUILT = re.compile(r"(\.(so|c|pyc)|_native\.cpp|_build_hashes\.json)$")
BUILD_TOOLS = {"cython", "setuptools"}


def _requirements(name: str) -> list[str]:
    """The requirements of a requirements file, as written (no comments, no ``-r`` lines)."""
    out = []
    for line in (ROOT / name).read_text(encoding="utf-8").splitlines():
        line = line.split("#", 1)[0].strip()
        if line and not line.startswith("-"):
            out.append(line)
    return out


def _name(requirement: str) -> str:
    return re.split(r"[<>=!~\[ ;]", requirement, maxsplit=1)[0].lower()


def _packaged(package: str) -> set[Path]:
    """The files package-data puts into the wheel for ``package`` (setuptools' globs, recursive)."""
    folder = ROOT / package
    return {
        path for pattern in PYPROJECT["tool"]["setuptools"]["package-data"][package] for path in folder.glob(pattern)
    }


def _data_files(package: str) -> set[Path]:
    """The files of ``package``'s folder that are not Python modules nor build products."""
    return {
        path
        for path in (ROOT / package).rglob("*")
        if path.is_file() and path.suffix != ".py" and "__pycache__" not in path.parts and not BUILT.search(path.name)
    }


def test_every_file_of_the_app_folder_is_package_data() -> None:
    # templates (shared and each blueprint's), static files (shared and each blueprint's), the exercises' XSDs
    assert _data_files("latency_lab_web") - _packaged("latency_lab_web") == set()
    assert (ROOT / "latency_lab_web" / "templates" / "base.html") in _packaged("latency_lab_web")
    assert (ROOT / "latency_lab_web" / "static" / "style.css") in _packaged("latency_lab_web")


def test_the_model_ships_its_types_and_not_its_build_inputs() -> None:
    build_inputs = {".pyx", ".cpp", ".hpp"}
    unpackaged = {p.relative_to(ROOT).as_posix() for p in _data_files("latency_lab") - _packaged("latency_lab")}
    assert {name for name in unpackaged if Path(name).suffix not in build_inputs} == set()
    assert {p.relative_to(ROOT).as_posix() for p in _packaged("latency_lab")} == {
        "latency_lab/py.typed",
        "latency_lab/engine/native/_native.pyi",
    }
    assert PYPROJECT["tool"]["setuptools"]["include-package-data"] is False  # no manifest-driven extras (.c files)


def test_the_app_serves_from_its_own_package_folder() -> None:
    import latency_lab_web as package
    from latency_lab_web import create_app

    folder = Path(package.__file__).resolve().parent
    flask_app = create_app({"TESTING": True})
    assert flask_app.static_folder is not None and flask_app.template_folder is not None
    assert Path(flask_app.static_folder).resolve() == folder / "static"
    assert Path(flask_app.root_path, flask_app.template_folder).resolve() == folder / "templates"


def test_the_build_tools_are_the_builds_only() -> None:
    runtime = {_name(r) for r in _requirements("requirements.txt")}
    assert runtime & BUILD_TOOLS == set()
    assert sorted(_requirements("requirements-build.txt")) == sorted(PYPROJECT["build-system"]["requires"])
    assert {_name(r) for r in _requirements("requirements-build.txt")} == BUILD_TOOLS
    assert PYPROJECT["project"]["dynamic"] == ["dependencies", "optional-dependencies"]
    assert PYPROJECT["tool"]["setuptools"]["dynamic"]["dependencies"] == {"file": ["requirements.txt"]}
    studies = {"file": ["requirements-studies.txt"]}
    assert PYPROJECT["tool"]["setuptools"]["dynamic"]["optional-dependencies"] == {"studies": studies}
    assert {_name(r) for r in _requirements("requirements-studies.txt")} & (runtime | BUILD_TOOLS) == set()


def test_nothing_imports_the_build_tools_at_run_time() -> None:
    found = []
    for path in [*(ROOT / "latency_lab").rglob("*.py"), *(ROOT / "latency_lab_web").rglob("*.py")]:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = (
                [a.name for a in node.names]
                if isinstance(node, ast.Import)
                else [node.module or ""]
                if isinstance(node, ast.ImportFrom)
                else []
            )
            found += [f"{path.relative_to(ROOT)}: {n}" for n in names if n.split(".")[0].lower() in BUILD_TOOLS]
    assert found == []


def test_the_app_and_a_prediction_need_no_studies_extra() -> None:
    """scripts/run.sh installs requirements.txt only: the app, a prediction with loss and the command line's predict
    import none of the extra latency-lab[studies] (requirements-studies.txt)."""
    extra = sorted(_name(r).lower() for r in _requirements("requirements-studies.txt"))
    code = (
        "import sys, json\n"
        "from latency_lab_web import create_app\n"
        "from latency_lab.cli import main\n"
        "client = create_app({'TESTING': True}).test_client()\n"
        "assert client.get('/?preset=n97-wan&network.loss_rate=0.01').status_code == 200\n"
        "assert client.post('/api/v1/predict', json={'network': {'loss_rate': 0.01}}).status_code == 200\n"
        "main(['presets'])\n"
        "print(json.dumps(sorted(m.split('.')[0].lower() for m in sys.modules)))"
    )
    proc = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    imported = set(json.loads(proc.stdout.splitlines()[-1]))
    assert extra == ["pandas", "pyarrow", "salib", "tqdm"]
    assert imported & set(extra) == set()
