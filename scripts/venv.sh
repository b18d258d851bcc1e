# Sourced by run.sh and test.sh: use (and if needed create) the project's virtual environment in .venv
# and install the requirements file given as $1 into it.
if [ ! -x .venv/bin/python ]; then
    python3 -m venv .venv
fi
export VIRTUAL_ENV="$PWD/.venv"
export PATH="$VIRTUAL_ENV/bin:$PATH"
python -m pip install --quiet --disable-pip-version-check -r "$1"
