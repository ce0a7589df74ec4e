#!/usr/bin/env bash
# CI, clients: the examples of the tools that call VPBOSampler for their users (Ray Tune, Hydra's
# optuna sweeper, OptunaSearchCV, MLflowCallback; docs/other-tools.md), each against the real client
# in a fresh environment of its own, installed with the install lines that the docs page gives, then
# tests/test_clients.py (pytest -m clients). A client that cannot be imported fails the step
# (VPBO_REQUIRE_CLIENTS=1) rather than skipping its test, and so does a run in which no test ran.
# Usage: .ci/clients.sh [WHEEL_DIR] (WHEEL_DIR: where .ci/wheels.sh put its wheels, default dist/:
# the wheel of this Python is installed, no compiler needed; without one, `pip install .` compiles
# the package, reusing build/<wheel tag> when an earlier build left it).
set -euo pipefail
cd "$(dirname "$0")/.."
root="$PWD"
wheels="$(realpath -m "${1:-dist}")"
python="${PYTHON:-python3}"

work="$(mktemp -d /tmp/optuna-vpbo-clients.XXXXXX)"
trap 'rm -rf "$work"' EXIT
"$python" -m venv "$work/venv"
pip() { "$work/venv/bin/python" -m pip --disable-pip-version-check "$@"; }
pip install --quiet --upgrade pip

# The package: this Python's wheel from WHEEL_DIR, else the source.
tag="$("$work/venv/bin/python" -c 'import sys; print(f"cp{sys.version_info[0]}{sys.version_info[1]}")')"
wheel="$(ls "$wheels"/optuna_vpbo-*-"$tag"-"$tag"-*.whl 2>/dev/null | sort | tail -n 1 || true)"
start=$SECONDS
if [ -n "$wheel" ]; then
    pip install --quiet --only-binary optuna-vpbo "$wheel" "pytest>=7"
    echo "clients: installed $(basename "$wheel") in $((SECONDS - start)) s"
else
    pip install --quiet . "pytest>=7"
    echo "clients: no $tag wheel in $wheels: installed the package from source in $((SECONDS - start)) s"
fi

# The install lines of docs/other-tools.md, one per client. Hydra's plugin pins optuna<3 (it would
# downgrade Optuna below what optuna-vpbo needs): installed without its dependencies, after
# hydra-core.
start=$SECONDS
pip install --quiet "ray[tune]"
pip install --quiet hydra-core && pip install --quiet --no-deps hydra-optuna-sweeper
pip install --quiet optuna-integration scikit-learn
pip install --quiet optuna-integration mlflow scikit-learn
pip check || echo "clients: pip check reports the hydra-optuna-sweeper pin above; expected"
echo "clients: installed the clients in $((SECONDS - start)) s"
"$work/venv/bin/python" -c '
import importlib.metadata as m
names = ["optuna-vpbo", "optuna", "ray", "hydra-core", "hydra-optuna-sweeper", "optuna-integration", "scikit-learn", "mlflow"]
print("clients:", ", ".join(f"{n} {m.version(n)}" for n in names))
'

# `pytest` (the console script) from the checkout: the installed package is tested, not the source
# folder. Exit status 5 (no test collected) fails too.
status=0
VPBO_REQUIRE_CLIENTS=1 "$work/venv/bin/pytest" -q -p no:cacheprovider -m clients "$root/tests/test_clients.py" || status=$?
if [ "$status" -eq 5 ]; then
    echo "clients: no test ran (pytest -m clients collected nothing)" >&2
fi
exit "$status"
