#!/usr/bin/env bash
# Lint, type-check and test latency-lab: the one command CI runs (.ci/run).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

# The browser tests (tests/browser) drive Debian's chromium through Playwright (installed from
# requirements-dev.txt); Playwright's own browser download is not used. Installed once, as root.
CHROMIUM="${CHROMIUM:-/usr/bin/chromium}"
if [ ! -x "$CHROMIUM" ]; then
    if [ "$(id -u)" -ne 0 ]; then
        echo "error: $CHROMIUM is missing and installing it needs root: apt-get install chromium" >&2
        exit 1
    fi
    echo "== apt-get install chromium (for tests/browser)"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq --no-install-recommends chromium fonts-liberation >/dev/null
fi

# The real-stack guard (tests/validation/test_realstack_ci.py, issue 18) runs nginx, nghttp, tcpdump and openssl in two
# network namespaces (as root, as CI is); Debian's packages, installed once. Without them the guard fails.
missing=()
for tool in nginx:nginx-light nghttp:nghttp2-client tcpdump:tcpdump tc:iproute2 setpriv:util-linux openssl:openssl; do
    command -v "${tool%%:*}" >/dev/null || missing+=("${tool##*:}")
done
# ccache (optional: it only saves compiling the engine twice, scripts/venv.sh), installed with them where we are root.
if ! command -v ccache >/dev/null && [ "$(id -u)" -eq 0 ]; then
    missing+=(ccache)
fi
if [ ${#missing[@]} -gt 0 ]; then
    if [ "$(id -u)" -ne 0 ]; then
        echo "error: ${missing[*]} missing and installing needs root: apt-get install ${missing[*]}" >&2
        exit 1
    fi
    echo "== apt-get install ${missing[*]} (for tests/validation/test_realstack_ci.py; ccache for the engine's builds)"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# ns3's cppyy has three packages with no wheel for this Python on the registries (requirements-validation.txt): pip
# builds them from source, about 140 s of one core. Built here in the background, into a folder of our own (never into
# .venv, where the foreground installs), while the engine compiles on the other core; the install below finds them
# there. Should this build fail, that install builds them itself (slower, the same result) and its log is shown.
# (Skipped where .venv has them already.)
cppyy_wheels=$(mktemp -d)
if [ -x .venv/bin/python ] && .venv/bin/python -c "import importlib.metadata as m; [m.version(p) for p in ('CPyCppyy', 'cppyy-backend', 'cppyy')]" 2>/dev/null; then
    true &
else
    python3 -m pip wheel --quiet --disable-pip-version-check --no-deps -w "$cppyy_wheels" \
        $(grep -iE '^(cppyy|cpycppyy|cppyy-backend)==' requirements-validation.txt) > "$cppyy_wheels/log" 2>&1 &
fi
cppyy_build=$!
trap 'kill "$cppyy_build" 2>/dev/null || true; rm -rf "$cppyy_wheels"' EXIT

source scripts/venv.sh requirements-dev.txt
# the packet-level simulator the model is validated against (tests/validation run it)
if ! wait "$cppyy_build"; then
    echo "warning: building cppyy's wheels in the background failed; pip builds them now" >&2
    cat "$cppyy_wheels/log" >&2
fi
python -m pip install --quiet --disable-pip-version-check --find-links "$cppyy_wheels" -r requirements-validation.txt
rm -rf "$cppyy_wheels"

# Compiled modules are kept (issue 26). Where PYTHONDONTWRITEBYTECODE is set (this machine's image sets it) every pytest
# process compiled the project's sources again and rewrote the asserts of every test module and of every pytest plugin's
# package from source (274 modules rewritten to run one test module of tests/latency_lab_web): collecting the parallel
# phase's tests took 21.9 s of CPU in each of the two xdist workers, 10.5 s with the compiled modules kept (a fresh
# clone, 2026-11-30 01:55 UTC, load 7). __pycache__ is in .gitignore. One collection warms them, in the background on
# the core that the lint below leaves idle (mypy runs on one, 18 s of CPU in a fresh clone); the workers, the serial
# phase and the tests' own Python subprocesses then read them. Its output is not judged: the parallel phase collects the
# same tests and reports any error there.
unset PYTHONDONTWRITEBYTECODE
warm_log=$(mktemp)
python -m pytest --collect-only -q -p no:cacheprovider -m "not serial" > "$warm_log" 2>&1 &
warm=$!
trap 'kill "$warm" 2>/dev/null || true; rm -f "$warm_log"' EXIT

# Lint only the source folders that exist and hold Python files (bench/ may be empty for now).
paths=()
for dir in latency_lab latency_lab_web tests bench validation; do
    if [ -d "$dir" ] && [ -n "$(find "$dir" -name '*.py' -print -quit)" ]; then
        paths+=("$dir")
    fi
done

echo "== ruff check ${paths[*]} ($(date -u +%T) UTC)"
ruff check "${paths[@]}"
echo "== ruff format --check ${paths[*]}"
ruff format --check "${paths[@]}"
echo "== mypy latency_lab latency_lab_web validation"
mypy latency_lab latency_lab_web validation
echo "== import contracts (lint-imports)"
lint-imports --no-cache
wait "$warm" || true  # the compiled modules are there (or not: the workers compile them, as before)
rm -f "$warm_log"
# Two phases (issue 26): every test but the serial ones over all cores with pytest-xdist (each test file on one
# worker, so a module's shared fixture, e.g. an ns-3 grid run, is computed once; the files that share page states on
# one worker together, and the longest units first: tests/conftest.py's scheduler), then the serial tests alone:
# the real-stack guard and the tests that time a live server (marked in tests/conftest.py), which a build or a
# browser on the other core would make flaky. Both phases always run; the gate fails if either does.
results=$(mktemp -d)
trap 'rm -rf "$results"' EXIT
status=0
echo "== pytest, parallel phase (pytest-xdist, ${PYTEST_WORKERS:-auto} workers): all tests but the serial ones ($(date -u +%T) UTC)"
python -m pytest -n "${PYTEST_WORKERS:-auto}" --dist loadfile -m "not serial" --durations=15 \
    --junitxml="$results/parallel.xml" || status=1
echo "== pytest, serial phase: the real-stack guard and the tests that time a live server ($(date -u +%T) UTC)"
# Only the serial files are collected (tests/conftest.py SERIAL_FILES, which marks them): collecting the whole suite
# again to deselect all but these 54 tests took about 18 s of CPU on the phase's critical path (issue 26).
mapfile -t serial_files < <(python -c 'from tests.conftest import SERIAL_FILES; print("\n".join(sorted(SERIAL_FILES)))')
python -m pytest -p no:xdist -m serial --durations=5 --junitxml="$results/serial.xml" "${serial_files[@]}" || status=1
echo "== pytest done ($(date -u +%T) UTC)"
python - "$results"/parallel.xml "$results"/serial.xml <<'PY'
import sys
import xml.etree.ElementTree as ET

# one verdict per test id (JUnit may hold a test twice: a failing call and its teardown's error, or subtests)
outcome: dict[tuple[str, str], int] = {}  # 0 passed, 1 skipped, 2 failed
by_module: dict[str, float] = {}  # seconds of test time (set-up, call and teardown) a test module took, both phases
missing = 0
for path in sys.argv[1:]:
    try:
        for case in ET.parse(path).getroot().iter("testcase"):
            key = (case.get("classname", ""), case.get("name", ""))
            module = ".".join(p for p in key[0].split(".") if not p[:1].isupper())  # without a test class's name
            by_module[module] = by_module.get(module, 0.0) + float(case.get("time") or 0)
            tags = {child.tag for child in case}
            verdict = 2 if tags & {"failure", "error"} else 1 if "skipped" in tags else 0
            outcome[key] = max(outcome.get(key, 0), verdict)
    except (OSError, ET.ParseError) as e:  # a phase that crashed before writing its report
        print(f"no report from {path}: {e}")
        missing += 1
counts = [sum(1 for v in outcome.values() if v == k) for k in (0, 1, 2)]
# where the gate's time goes (issue 26): the test modules that took longest, summed over their tests
total = sum(by_module.values())
print(f"test time {total:,.0f} s in all; the slowest modules:")
for module, seconds in sorted(by_module.items(), key=lambda kv: -kv[1])[:20]:
    print(f"  {seconds:7.1f} s {100 * seconds / max(total, 1e-9):5.1f} %  {module}")
print(f"gate: {counts[0]} passed, {counts[2] + missing} failed, {counts[1]} skipped")
PY
exit $status
