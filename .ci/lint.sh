#!/usr/bin/env bash
# CI, linters: ruff and mypy as configured in pyproject.toml (strict mypy on the package, the
# benchmarks relaxed). Needs the `test` extra installed (ruff, mypy, and the libraries whose types
# mypy reads). Usage: .ci/lint.sh
set -euo pipefail
cd "$(dirname "$0")/.."
# The package, and the tests that were written to these rules (the rest of tests/ is not yet).
ruff --version && ruff check optuna_vpbo benchmarks/vpbo_benchmarks benchmarks/tests/test_cli.py tests/test_optuna_compat.py
mypy --version && mypy
