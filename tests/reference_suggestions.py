"""Seed-0 suggestions of a few studies, recorded once and compared exactly by
``tests/test_reference_suggestions.py``: a refactoring that changes no behaviour leaves them
identical.

Run ``python tests/reference_suggestions.py --write`` (from the repository root, with the package
installed) to record them anew, and say in the commit why they changed. They are recorded and
checked in ``KERNELS``: the baseline core, OpenBLAS's Nehalem kernels, one thread, and NumPy's
baseline loops. The kernels set the last bits of a sum or an exp and so, over 30 trials, the
suggestions: OpenBLAS picks them by CPU unless OPENBLAS_CORETYPE names them (SkylakeX on the
machines that recorded the first record; a machine whose environment sets Haswell differed from
trial 16 on), NumPy picks its SIMD loops by CPU unless NPY_DISABLE_CPU_FEATURES turns them off
(an AVX-512 machine's exp and log of float64 arrays are not an AVX2 machine's: the record made on
one differed on the other from trial 16 of the v2 studies), and every x86-64-v2 machine runs these.
"""

from __future__ import annotations

import json
import math
import os
import pathlib
import subprocess
import sys
from collections.abc import Callable
from typing import Any, Literal

import optuna

from optuna_vpbo import VPBOSampler

REFERENCE_FILE = pathlib.Path(__file__).with_name("data") / "reference_suggestions.json"
N_TRIALS = 30
# The environment of recording and checking: the numeric kernels fixed whatever the CPU.
# NumPy's dispatched features above its x86-64-v2 baseline (those a CPU lacks are ignored).
NUMPY_FEATURES_ABOVE_BASELINE = "X86_V3 X86_V4 AVX512_ICL AVX512_SPR"
KERNELS = {
    "VPBO_INSTRUCTION_SET": "baseline", "OPENBLAS_CORETYPE": "Nehalem", "OPENBLAS_NUM_THREADS": "1",
    "NPY_DISABLE_CPU_FEATURES": NUMPY_FEATURES_ABOVE_BASELINE,
}

# The settings behind each recorded sampler; a name's settings never change (a new default gets
# a new name).
SAMPLERS: dict[str, Callable[[], VPBOSampler]] = {
    # The defaults as they were recorded on 2026-12-03 (the lab's vpbo-v4: the search policy's turns
    # read from the stored moves): ``VPBOSampler()``'s settings must keep giving these suggestions
    # until a change of the defaults records them anew.
    "v4": lambda: VPBOSampler(seed=0),
    "paper": lambda: VPBOSampler(seed=0, preset="paper"),
}


def _flat(trial: optuna.Trial) -> float:
    kind = trial.suggest_categorical("kind", ["a", "b", "c"])
    flag = trial.suggest_categorical("flag", [True, False])
    x = trial.suggest_float("x", -2.0, 2.0)
    lr = trial.suggest_float("lr", 1e-4, 1e-1, log=True)
    n = trial.suggest_int("n", 1, 8)
    step = trial.suggest_float("step", 0.0, 1.0, step=0.25)
    offset = {"a": 0.0, "b": 0.5, "c": 1.0}[kind] + (0.25 if flag else 0.0)
    return (x - 0.3) ** 2 + (math.log10(lr) + 2.5) ** 2 + 0.1 * (n - 3) ** 2 + offset + (step - 0.5) ** 2


def _conditional(trial: optuna.Trial) -> float:
    model = trial.suggest_categorical("model", ["linear", "tree"])
    if model == "linear":
        alpha = trial.suggest_float("alpha", 1e-3, 10.0, log=True)
        return (math.log10(alpha) - 0.5) ** 2 + 0.2
    depth = trial.suggest_int("depth", 1, 10)
    criterion = trial.suggest_categorical("criterion", ["gini", "entropy"])
    lr = trial.suggest_float("tree_lr", 0.0, 1.0)
    return 0.05 * (depth - 6) ** 2 + (lr - 0.7) ** 2 + (0.0 if criterion == "gini" else 0.1)


def _plateau(trial: optuna.Trial) -> float:
    """A flat space whose best value is reached early and never beaten: the study stalls, so its
    later trials exercise how a stalled study searches (least observed rows, a perturbed incumbent)."""
    kind = trial.suggest_categorical("kind", ["a", "b", "c", "d"])
    x = trial.suggest_float("x", 0.0, 1.0)
    n = trial.suggest_int("n", 0, 6)
    return float(int(4.0 * (x - 0.4) ** 2 + 0.2 * abs(n - 2))) + {"a": 1.0, "b": 0.0, "c": 1.0, "d": 2.0}[kind]


def _conditional_plateau(trial: optuna.Trial) -> float:
    """A conditional space that stalls in one branch and is refined there by tiny steps."""
    branch = trial.suggest_categorical("branch", ["flat", "well"])
    if branch == "flat":
        u = trial.suggest_float("u", 0.0, 1.0)
        return 1.0 + 1e-9 * u
    v = trial.suggest_float("v", -1.0, 1.0)
    c = trial.suggest_categorical("c", ["p", "q", "r"])
    return 1.0 - (0.5 if abs(v - 0.61) < 0.02 and c == "r" else 0.0) + 0.1 * v**2


def _two_objectives(trial: optuna.Trial) -> tuple[float, float]:
    kind = trial.suggest_categorical("kind", ["a", "b"])
    x = trial.suggest_float("x", 0.0, 1.0)
    y = trial.suggest_float("y", 0.0, 1.0)
    shift = 0.0 if kind == "a" else 0.2
    return x**2 + y + shift, (1.0 - x) ** 2 + (1.0 - y) + shift


def _pruned_and_failed(trial: optuna.Trial) -> float:
    kind = trial.suggest_categorical("kind", ["sgd", "adam", "broken"])
    lr = trial.suggest_float("lr", 1e-4, 1.0, log=True)
    width = trial.suggest_int("width", 4, 64, log=True)
    if kind == "broken" and lr > 0.1:
        raise RuntimeError("an invalid combination")
    target = 1e-2 if kind == "adam" else 1e-1
    final = (math.log10(lr) - math.log10(target)) ** 2 + 0.01 * abs(width - 32) ** 0.5
    for step in range(1, 9):
        trial.report(final + 1.0 / step, step)
        if trial.should_prune():
            raise optuna.TrialPruned()
    return final


Direction = Literal["minimize", "maximize"]
# name: (objective, directions, pruner)
STUDIES: dict[str, tuple[Callable[[optuna.Trial], Any], list[Direction], optuna.pruners.BasePruner | None]] = {
    "flat": (_flat, ["minimize"], None),
    "conditional": (_conditional, ["minimize"], None),
    "two_objectives": (_two_objectives, ["minimize", "minimize"], None),
    "pruned_and_failed": (_pruned_and_failed, ["minimize"], optuna.pruners.MedianPruner(n_startup_trials=3)),
    "plateau": (_plateau, ["minimize"], None),
    "conditional_plateau": (_conditional_plateau, ["minimize"], None),
}


def run_study(study_name: str, sampler_name: str) -> list[dict[str, Any]]:
    """The parameters of every trial of one study (floats as their exact repr)."""
    objective, directions, pruner = STUDIES[study_name]
    study = optuna.create_study(directions=directions, sampler=SAMPLERS[sampler_name](), pruner=pruner)
    study.optimize(objective, n_trials=N_TRIALS, catch=(RuntimeError,))
    return [{name: repr(value) for name, value in sorted(t.params.items())} for t in study.trials]


def record() -> dict[str, Any]:
    return {f"{study}/{sampler}": run_study(study, sampler) for study in STUDIES for sampler in SAMPLERS}


if __name__ == "__main__":
    optuna.logging.set_verbosity(optuna.logging.ERROR)
    if sys.argv[1:] != ["--write"]:
        sys.exit("usage: python tests/reference_suggestions.py --write")
    if any(os.environ.get(name) != value for name, value in KERNELS.items()):
        # The kernels are chosen when the libraries load: run again in their environment.
        sys.exit(subprocess.run([sys.executable, *sys.argv], env={**os.environ, **KERNELS}, check=False).returncode)
    REFERENCE_FILE.parent.mkdir(exist_ok=True)
    REFERENCE_FILE.write_text(json.dumps(record(), indent=1, sort_keys=True) + "\n")
    print(f"wrote {REFERENCE_FILE}")
