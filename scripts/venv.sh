# Sourced by run.sh and test.sh: use (and if needed create) the project's virtual environment in .venv, install the
# build's tools (requirements-build.txt: Cython, setuptools) and the requirements file given as $1 into it, and
# latency-lab itself in editable mode (the `latency-lab` command), with the native engine (setup.py: C++ bound by
# Cython, the machine's g++) compiled in place, beside its sources.
# The compile (about 45 s of one core, most of it the binding Cython writes) runs in the background while pip installs
# $1 (issue 29: a fresh clone served after 117 s when pip installed everything first and `pip install -e .` then
# compiled; `pip install -e .` compiles nothing here: LATENCY_LAB_BUILT_IN_PLACE=1, setup.py). Both are skipped while
# the build files and the engine's sources are unchanged since the last build (a stamp in .venv:
# latency_lab/_backend.py build_stamp) and the engine in place is built from the sources present
# (latency_lab/_backend.py built: the build's record, latency_lab/_build_hashes.json).
if [ ! -x .venv/bin/python ]; then
    python3 -m venv .venv
fi
export VIRTUAL_ENV="$PWD/.venv"
export PATH="$VIRTUAL_ENV/bin:$PATH"
python -m pip install --quiet --disable-pip-version-check -r requirements-build.txt
# ccache (Debian's, where it is installed; scripts/test.sh installs it): the engine's C++ compiles are cached by
# their content, so a second build of the same sources (the wheel tests/test_packaging_install.py builds from a copy of
# the checkout, or a rebuild after switching branches) reuses the objects gcc made the first time instead of compiling
# them again (issue 26: that test 146 -> 35 s on 2 cores). Python's CFLAGS carry -g, and ccache would then hash the
# build's folder: CCACHE_NOHASHDIR lets a build in another folder hit. LATENCY_LAB_NO_CCACHE=1 compiles as before.
if [ -d /usr/lib/ccache ] && [ -z "${LATENCY_LAB_NO_CCACHE:-}" ]; then
    case ":$PATH:" in *:/usr/lib/ccache:*) ;; *) export PATH="/usr/lib/ccache:$PATH" ;; esac
    export CCACHE_NOHASHDIR=1
fi
_stamp=$(python latency_lab/_backend.py stamp)
_build=
if [ "$(cat .venv/.latency-lab-build 2>/dev/null)" != "$_stamp" ] || ! python latency_lab/_backend.py built; then
    echo "== compiling the engine (setup.py build_ext --inplace) while pip installs $1" >&2
    _build_log=$(mktemp)
    python setup.py --quiet build_ext --inplace > "$_build_log" 2>&1 &
    _build=$!
fi
python -m pip install --quiet --disable-pip-version-check -r "$1"
if [ -n "$_build" ]; then
    # The extension is optional (setup.py): where it does not build, the Python engine runs and the log says why.
    if ! wait "$_build" || ! python latency_lab/_backend.py built; then
        echo "warning: the native engine did not build; the Python engine will run. The build's log:" >&2
        cat "$_build_log" >&2
    fi
    rm -f "$_build_log"
    echo "== pip install -e . (the checkout and the latency-lab command; the engine is built)" >&2
    LATENCY_LAB_BUILT_IN_PLACE=1 python -m pip install --quiet --disable-pip-version-check --no-build-isolation --no-deps -e .
    echo "$_stamp" > .venv/.latency-lab-build
fi
unset _stamp _build _build_log
