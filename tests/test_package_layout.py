"""The sampler package holds the sampler: importing it imports nothing of the benchmark lab
(``vpbo_benchmarks``, the distribution in ``benchmarks/``), and the installed package has no
benchmark module in it."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import optuna_vpbo


def test_import_optuna_vpbo_imports_nothing_of_the_lab(tmp_path: Path) -> None:
    # A fresh interpreter: this test session may have imported the lab already.
    code = (
        "import json, sys; import optuna_vpbo, optuna_vpbo.gp, optuna_vpbo.visualization; "
        "print(json.dumps(sorted(m for m in sys.modules if m.split('.')[0] == 'vpbo_benchmarks')))"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=tmp_path, timeout=120)
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout) == []


def test_the_installed_package_has_no_benchmark_module() -> None:
    assert importlib.util.find_spec("optuna_vpbo.benchmarks") is None
    package = Path(optuna_vpbo.__file__).parent
    assert not (package / "benchmarks").exists()
    assert not list(package.rglob("*.jsonl.xz")) and not list(package.rglob("*.pt"))
