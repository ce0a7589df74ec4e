#!/usr/bin/env bash
# CI, source distribution: build the sdist, check its size and metadata, then install it into a
# fresh virtual environment, compiled from source as pip does on a platform without a wheel (the
# default build: every instruction-set variant), and smoke-test it there: the import and the
# quickstart. Usage: .ci/sdist.sh [OUT_DIR] (default dist/).
set -euo pipefail
cd "$(dirname "$0")/.."
root="$PWD"
out="$(realpath -m "${1:-dist}")"
# The limit: 1 MB (the lab, a distribution of its own, is not in it).
max_sdist_bytes=$((1024 * 1024))
mkdir -p "$out"
rm -f "$out"/optuna_vpbo-*.tar.gz

work="$(mktemp -d /tmp/optuna-vpbo-sdist.XXXXXX)"
trap 'rm -rf "$work"' EXIT
python3 -m venv "$work/tools"
"$work/tools/bin/python" -m pip install --quiet build twine

"$work/tools/bin/python" -m build --sdist --outdir "$out" .
sdist="$(ls "$out"/optuna_vpbo-*.tar.gz)"
sdist_bytes=$(stat -c %s "$sdist")
echo "sdist: $sdist ($sdist_bytes bytes)"
if [ "$sdist_bytes" -gt "$max_sdist_bytes" ]; then
    echo "sdist: larger than $max_sdist_bytes bytes" >&2
    exit 1
fi
"$work/tools/bin/twine" check --strict "$sdist"

venv="$work/venv"
python3 -m venv "$venv"
"$venv/bin/python" -m pip install --no-binary optuna-vpbo "$sdist"
cd "$work"
"$venv/bin/python" -c "import optuna_vpbo, optuna_vpbo._core as c; print('sdist:', optuna_vpbo.__file__, c.INSTRUCTION_SET)"
"$venv/bin/python" "$root/examples/quickstart.py" --storage "sqlite:///$work/quickstart.db"
