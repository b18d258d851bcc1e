# Sourced by run.sh and test.sh: use (and if needed create) the project's virtual environment in .venv,
# install the requirements file given as $1 into it, then install latency-lab itself in editable mode:
# that compiles the engine (setup.py: Cython and the machine's gcc; a few seconds when nothing changed)
# and adds the `latency-lab` command.
if [ ! -x .venv/bin/python ]; then
    python3 -m venv .venv
fi
export VIRTUAL_ENV="$PWD/.venv"
export PATH="$VIRTUAL_ENV/bin:$PATH"
python -m pip install --quiet --disable-pip-version-check -r "$1"
python -m pip install --quiet --disable-pip-version-check --no-build-isolation --no-deps -e .
