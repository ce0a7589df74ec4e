"""Helpers shared by the lab's tests.

The lab's tests have no ``conftest.py``: run from the repository root beside the sampler's tests,
whose helpers are imported as the module ``conftest``, a second one would take its place in
``sys.modules``. This module's name is the lab's own.
"""

from __future__ import annotations

import os
import signal
import subprocess
from typing import TypeVar

import pytest
from optuna.trial import BaseTrial, FrozenTrial

from vpbo_benchmarks.problem import NOISELESS_ATTR
from vpbo_benchmarks.specs import SuiteSpec

T = TypeVar("T")


def _never_run(trial: BaseTrial) -> float:
    raise AssertionError("a toy spec's objective is never run")


# A suite spec of one categorical parameter "c", for the reports' tests: only its keys are read.
TOY_SPEC = SuiteSpec("toy", "toy", lambda: _never_run, ("c",), "", "")


def present(value: T | None) -> T:
    """``value``, which must not be None (an optional field of a spec that the test needs)."""
    assert value is not None
    return value


def value_of(trial: FrozenTrial) -> float:
    """The value of a complete trial of a single-objective study (None for the others)."""
    assert trial.value is not None, trial
    return trial.value


def noiseless_value(trial: FrozenTrial) -> float:
    """A complete trial's noiseless value: the user attribute of a noisy problem, else the value."""
    value: float | None = trial.user_attrs.get(NOISELESS_ATTR, trial.value)
    assert value is not None, trial
    return value


def run_bounded(
    command: list[str], timeout: float, cwd: str | os.PathLike[str] | None = None
) -> subprocess.CompletedProcess[str]:
    """Run a command in its own process group; on timeout kill the whole group and fail."""
    process = subprocess.Popen(
        command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True, cwd=cwd
    )
    try:
        stdout, stderr = process.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.communicate()
        pytest.fail(f"{command[0]} did not finish within {timeout:.0f} s", pytrace=False)
    return subprocess.CompletedProcess(command, process.returncode, stdout, stderr)
