#!/usr/bin/env bash
# CI, linters: ruff and strict mypy over the whole repository as configured in pyproject.toml, and
# the native core's stub. Needs the package and its `test` extra installed (ruff, mypy,
# pybind11-stubgen, and the libraries whose types mypy reads).
# Usage: .ci/lint.sh
set -euo pipefail
cd "$(dirname "$0")/.."
root="$(pwd)"
# The whole repository but build outputs and stored run records (extend-exclude in pyproject.toml).
ruff --version && ruff check .
# Strict mypy over the files of [tool.mypy] in pyproject.toml: the package, the lab and both test
# suites, the examples, and the scripts of docs/ and native/.
mypy --version && mypy
# optuna_vpbo/_core.pyi: what pybind11-stubgen generates from the compiled core (names,
# signatures, docstrings), and the module the package imports (_core.py with its variant's names)
# as the stub says (mypy.stubtest, run from tests/: the repository root's source folder would
# shadow the installed package; MYPYPATH points mypy at the repository's stub).
python native/generate_stub.py --check
(cd tests && MYPYPATH="$root" python -m mypy.stubtest optuna_vpbo._core \
    --mypy-config-file "$root/pyproject.toml" --allowlist "$root/native/stubtest_allowlist.txt")
