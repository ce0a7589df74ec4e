"""Dispatch of the native core between its instruction-set variants (optuna_vpbo/_core.py)."""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from optuna_vpbo import _core

# Prints the variant imported and a GP posterior (mean, variance) with a value proposal, as JSON.
POSTERIOR_SCRIPT = """
import json
import numpy as np
import optuna_vpbo
from optuna_vpbo import _core
rng = np.random.default_rng(7)
n, d = 40, 3
h = rng.integers(0, 3, size=(n, 2)).astype(np.int32)
x = rng.uniform(size=(n, d))
y = np.sin(6 * x[:, 0]) + x[:, 1] ** 2 - 0.5 * h[:, 0] + 0.1 * rng.normal(size=n)
hq = rng.integers(0, 3, size=(25, 2)).astype(np.int32)
xq = rng.uniform(size=(25, d))
gp = _core.MixedGP(h, x, y, np.array([0.3, 0.5, 0.8]), 1.3, 0.4, 1e-3)
mean, var = gp.predict(hq, xq)
log_ei = _core.log_expected_improvement(mean, np.sqrt(var), float(np.min(y)))
variants = {"variant": _core.INSTRUCTION_SET, "public": optuna_vpbo.INSTRUCTION_SET}
print(json.dumps({**variants, "mean": mean.tolist(), "var": var.tolist(), "log_ei": log_ei.tolist()}))
"""


def _run_posterior(variant: str | None) -> dict[str, Any]:
    env = {k: v for k, v in os.environ.items() if k != _core.ENVIRONMENT_VARIABLE}
    if variant is not None:
        env[_core.ENVIRONMENT_VARIABLE] = variant
    # -P (Python >= 3.11) keeps the working folder, possibly the source checkout, off sys.path
    flags = ["-P"] if sys.version_info >= (3, 11) else []
    out = subprocess.run(
        [sys.executable, *flags, "-c", POSTERIOR_SCRIPT], env=env, cwd=Path.home(), capture_output=True, text=True, check=True
    )
    return json.loads(out.stdout)


@pytest.mark.skipif(
    importlib.util.find_spec("optuna_vpbo._core_baseline") is None, reason="a VPBO_NATIVE_ARCH=ON build has no baseline"
)
def test_forcing_the_baseline_gives_the_default_variants_numbers() -> None:
    default, baseline = _run_posterior(None), _run_posterior("baseline")
    assert default["variant"] == _core.INSTRUCTION_SET
    assert baseline["variant"] == baseline["public"] == "baseline"  # the public name says which core runs
    for key in ("mean", "var", "log_ei"):
        np.testing.assert_allclose(baseline[key], default[key], rtol=1e-12, atol=1e-14)


def test_the_fastest_variant_the_cpu_runs_is_chosen() -> None:
    supported = _core.supported_variants(_core.cpu_flags())
    built = [v for v in _core.REQUIRED_CPU_FLAGS if importlib.util.find_spec(f"optuna_vpbo._core_{v}") is not None]
    if _core.ENVIRONMENT_VARIABLE not in os.environ:
        assert _core.INSTRUCTION_SET == next(v for v in supported if v in built)


def test_cpu_flags_and_the_variants_they_allow(tmp_path: Path) -> None:
    cpuinfo = tmp_path / "cpuinfo"
    cpuinfo.write_text("processor\t: 0\nflags\t\t: fpu sse2 avx avx2 fma bmi1 bmi2 f16c popcnt sse4_2\n\n")
    flags = _core.cpu_flags(cpuinfo)
    assert "avx2" in flags and "avx512f" not in flags
    assert _core.supported_variants(flags, "x86_64") == ["native", "avx2", "baseline"]
    assert _core.supported_variants(flags | {"avx512f", "avx512cd", "avx512dq", "avx512bw", "avx512vl"}, "x86_64")[1] == "avx512"
    assert _core.supported_variants(frozenset({"sse2"}), "x86_64") == ["native", "baseline"]
    assert _core.supported_variants(flags, "aarch64") == ["native", "baseline"]  # x86 flags mean nothing there
    assert _core.cpu_flags(tmp_path / "missing") == frozenset()


def test_a_bad_forced_variant_is_a_clear_import_error() -> None:
    env = {**os.environ, _core.ENVIRONMENT_VARIABLE: "sse9"}
    out = subprocess.run([sys.executable, "-c", "import optuna_vpbo"], env=env, cwd=Path.home(), capture_output=True, text=True)
    assert out.returncode != 0
    assert "VPBO_INSTRUCTION_SET='sse9': expected one of native, avx512, avx2, baseline" in out.stderr


def test_importing_from_the_source_checkout_says_what_to_do(tmp_path: Path) -> None:
    # A copy of the package folder without compiled modules, next to a pyproject.toml and native/.
    source = Path(_core.__file__).resolve().parent
    checkout = tmp_path / "checkout"
    (checkout / "native").mkdir(parents=True)
    (checkout / "pyproject.toml").write_text("[project]\nname = 'optuna-vpbo'\n")
    package = checkout / "optuna_vpbo"
    package.mkdir()
    for path in source.glob("*.py"):
        (package / path.name).write_text(path.read_text())
    out = subprocess.run([sys.executable, "-c", "import optuna_vpbo"], cwd=checkout, capture_output=True, text=True)
    assert out.returncode != 0
    assert "source checkout" in out.stderr and "pip install -e ." in out.stderr and "python -P" in out.stderr
