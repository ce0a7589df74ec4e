"""Numeric and int spaces (group ``numeric``): where a space has no categoricals,
VPBO is a GP with log EI like GPSampler, and should be at least as good there.

- ``hartmann6``: the six-dimensional Hartmann function (Surjanovic & Bingham's Virtual Library of
  Simulation Experiments), six floats in [0, 1], known minimum; defined here.
- Scikit-learn tasks with Bayesmark's published search ranges (``bayesmark/sklearn_funcs.py``:
  kNN, SVM, DT, and "linear", an L2 logistic regression), scored as Bayesmark scores them: the
  mean 5-fold cross-validation loss on 80 % of a data set shipped with scikit-learn. Built by
  :func:`.numeric_tasks.build` (heavy: scikit-learn), reached through :mod:`.lazy`; no known
  optimum (the best value of any stored run is the reference).

Every objective is deterministic: the same configuration always gives the same value, so a
repeated configuration teaches nothing ("no wasted repeats").
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

import numpy as np
from optuna.trial import BaseTrial

from vpbo_benchmarks.lazy import deferred
from vpbo_benchmarks.problem import MINIMIZE, Problem

HARTMANN6_ALPHA = np.array([1.0, 1.2, 3.0, 3.2])
HARTMANN6_A = np.array([
    [10, 3, 17, 3.5, 1.7, 8],
    [0.05, 10, 17, 0.1, 8, 14],
    [3, 3.5, 1.7, 10, 17, 8],
    [17, 8, 0.05, 10, 0.1, 14],
])
HARTMANN6_P = 1e-4 * np.array([
    [1312, 1696, 5569, 124, 8283, 5886],
    [2329, 4135, 8307, 3736, 1004, 9991],
    [2348, 1451, 3522, 2883, 3047, 6650],
    [4047, 8828, 8732, 5743, 1091, 381],
])
# The global minimiser (the Virtual Library's, to 8 digits) and the minimum polished from it by
# Nelder-Mead to round-off (the tests check both by multi-start L-BFGS-B).
HARTMANN6_ARGMIN = (0.20168952, 0.15001069, 0.47687398, 0.27533243, 0.31165162, 0.65730054)
HARTMANN6_MINIMUM = -3.322368011415515

# The scikit-learn tasks of numeric_tasks.py, in the order of the group.
SKLEARN_TASK_NAMES: tuple[str, ...] = ("knn_breast", "knn_wine", "svm_breast", "dt_digits", "linear_breast")
TASKS_MODULE = "vpbo_benchmarks.numeric_tasks"


def hartmann6(x: np.ndarray) -> float:
    """The Hartmann function of six variables in [0, 1]: -sum_i alpha_i exp(-sum_j A_ij (x_j - P_ij)^2)."""
    inner = np.sum(HARTMANN6_A * (np.asarray(x, dtype=float) - HARTMANN6_P) ** 2, axis=1)
    return float(-np.sum(HARTMANN6_ALPHA * np.exp(-inner)))


def hartmann6_objective(trial: BaseTrial) -> float:
    return hartmann6(np.array([trial.suggest_float(f"x{i}", 0.0, 1.0) for i in range(6)]))


def hartmann6_problem() -> Problem:
    return Problem(
        name="hartmann6", directions=(MINIMIZE,), optimum=HARTMANN6_MINIMUM, n_combinations=0,
        objective=hartmann6_objective,
        description="[numeric] Hartmann6 (Surjanovic & Bingham): six floats x0-x5 in [0, 1], no categoricals; "
        f"minimum {HARTMANN6_MINIMUM:.6f} at {HARTMANN6_ARGMIN} (6 local minima)",
    )


PROBLEMS: Mapping[str, Callable[[], Problem]] = {
    "hartmann6": hartmann6_problem,
    **{name: deferred(TASKS_MODULE, "build", name=name) for name in SKLEARN_TASK_NAMES},
}
NUMERIC: tuple[str, ...] = tuple(PROBLEMS)
