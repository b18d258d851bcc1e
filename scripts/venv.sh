# Sourced by run.sh and test.sh: use (and if needed create) the project's virtual environment in .venv,
# install the requirements file given as $1 and the build's (requirements-build.txt: Cython, setuptools) into it,
# then install latency-lab itself in editable mode (without build isolation, with those build tools):
# that compiles the native engine (setup.py: C++ bound by Cython, the machine's g++) and adds the `latency-lab`
# command. The build is skipped while the build files and the native engine's sources are unchanged since the last
# one (a stamp in .venv: latency_lab/_backend.py build_stamp) and the engine is in place and built from the sources
# present (latency_lab/_backend.py built: the build's record, latency_lab/_build_hashes.json).
if [ ! -x .venv/bin/python ]; then
    python3 -m venv .venv
fi
export VIRTUAL_ENV="$PWD/.venv"
export PATH="$VIRTUAL_ENV/bin:$PATH"
python -m pip install --quiet --disable-pip-version-check -r "$1" -r requirements-build.txt
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
if [ "$(cat .venv/.latency-lab-build 2>/dev/null)" != "$_stamp" ] || ! python latency_lab/_backend.py built; then
    echo "== pip install -e . (compiling the engine)" >&2
    python -m pip install --quiet --disable-pip-version-check --no-build-isolation --no-deps -e .
    echo "$_stamp" > .venv/.latency-lab-build
fi
unset _stamp
