"""One-Hot BO (paper, sec. 2 and 5; GPyOpt's handling of categorical variables).

Each categorical variable with C levels becomes C columns in [0, 1] (a one-hot vector for the
data); one GP with a Matern-5/2 ARD kernel models y on [one-hot columns, x] (the native
MixedGP with no categorical column and lambda fixed at 1). The next point maximises UCB
(kappa 2) over the relaxed box [0, 1]^(sum C + d) with the shared maximiser, whose finalists
are rounded as GPyOpt rounds (each one-hot block to its largest entry) and re-scored.

Simplification: the hyperparameters are refitted every 10 trials (with 5 restarts, warm
started), as VPBO and CoCaBO do, where GPyOpt refits at every iteration.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from vpbo_benchmarks.baselines.hyperparameters import (
    COCABO_REFIT_INTERVAL,
    MATERN_ONLY,
    HyperparameterCache,
    ModelSettings,
    RefitSchedule,
)
from vpbo_benchmarks.baselines.strategy import PAPER_N_STARTUP_TRIALS, Observations, Point, RandomStartupStrategy
from vpbo_benchmarks.baselines.ucb import PAPER_UCB, Surrogate, UCBSettings, maximise_ucb


def one_hot(h: np.ndarray, n_levels: np.ndarray) -> np.ndarray:
    """Codes (n x k) -> one-hot columns (n x sum(n_levels)), one block per variable."""
    offsets = np.concatenate([[0], np.cumsum(n_levels)[:-1]]).astype(np.int64)
    out = np.zeros((len(h), int(np.sum(n_levels))))
    rows = np.arange(len(h))
    for j, offset in enumerate(offsets):
        out[rows, offset + h[:, j]] = 1.0
    return out


def round_one_hot(z: np.ndarray, n_levels: np.ndarray) -> np.ndarray:
    """Relaxed one-hot blocks (m x sum(n_levels)) -> codes (m x k): each block's argmax."""
    bounds = np.cumsum(np.concatenate([[0], n_levels])).astype(np.int64)
    codes = [np.argmax(z[:, bounds[j] : bounds[j + 1]], axis=1) for j in range(len(n_levels))]
    return np.column_stack(codes).astype(np.int32) if codes else np.zeros((len(z), 0), dtype=np.int32)


def one_hot_snap(
    n_levels: np.ndarray, snap_numeric: Callable[[np.ndarray], np.ndarray]
) -> Callable[[np.ndarray], np.ndarray]:
    """Moves relaxed points [one-hot part, x] to exact one-hot vectors and x onto its grids."""
    width = int(np.sum(n_levels))

    def snap(z: np.ndarray) -> np.ndarray:
        return np.hstack([one_hot(round_one_hot(z[:, :width], n_levels), n_levels), snap_numeric(z[:, width:])])

    return snap


class OneHotBO(RandomStartupStrategy):
    """One-Hot BO (see the module docstring); random initial points as the other baselines."""

    def __init__(
        self,
        *,
        n_startup_trials: int = PAPER_N_STARTUP_TRIALS,
        refit_interval: int = COCABO_REFIT_INTERVAL,
        ucb: UCBSettings = PAPER_UCB,
    ) -> None:
        super().__init__(n_startup_trials)
        schedule = RefitSchedule(first=n_startup_trials, interval=refit_interval)
        self.model = HyperparameterCache(ModelSettings(schedule, lam_bounds=MATERN_ONLY))
        self.ucb = ucb

    def next_point(self, data: Observations, rng: np.random.Generator) -> Point:
        width = int(np.sum(data.n_levels))
        z = np.hstack([one_hot(data.h, data.n_levels), data.x])
        no_categorical = np.zeros((data.n, 0), dtype=np.int32)
        hyperparameters = self.model.get(data.key, no_categorical, z, data.y, rng)
        gp = hyperparameters.make_gp(no_categorical, z, data.y)
        surrogate = Surrogate(gp, hyperparameters.noise, np.zeros(0, dtype=np.int32))
        snap = one_hot_snap(data.n_levels, data.snap)
        z_next = maximise_ucb(surrogate, width + data.n_numeric, rng, snap, self.ucb)
        return round_one_hot(z_next[None, :width], data.n_levels)[0], z_next[width:]
