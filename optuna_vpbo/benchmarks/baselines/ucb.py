"""The UCB maximiser that every GP baseline uses to choose x for a fixed combination.

Paper, sec. 5: One-Hot BO, EXP3BO, Bandit-BO, RandomBO and CoCaBO use UCB with kappa = 2. As
in CoCaBO's code (``sample_then_minimize`` on ``UCB(gp, 2.0)``): ``mu + kappa sigma`` with the
predictive sigma (observation noise included), evaluated on 5000 uniform samples of x with h
fixed, then L-BFGS-B from the best 3. Here the local optima and the best samples are finally
snapped onto the parameters' grids (for One-Hot BO also onto exact one-hot vectors) and
re-scored, so that the chosen point is scored where it will be evaluated.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

import numpy as np
import scipy.optimize

from optuna_vpbo import _core

KAPPA = 2.0
N_UCB_SAMPLES = 5000
N_UCB_LOCAL = 3
MAX_LOCAL_ITERATIONS = 100


@dataclasses.dataclass(frozen=True)
class UCBSettings:
    kappa: float = KAPPA
    n_samples: int = N_UCB_SAMPLES
    n_local: int = N_UCB_LOCAL


@dataclasses.dataclass(frozen=True)
class Surrogate:
    """A GP, its noise variance, and the categorical codes ``h`` at which it is queried (an
    empty row for a GP on numeric inputs only)."""

    gp: _core.MixedGP
    noise: float
    h: np.ndarray

    def ucb(self, x: np.ndarray, kappa: float) -> np.ndarray:
        """``mu + kappa sqrt(var + noise)`` at the rows of ``x``."""
        h = np.repeat(self.h.reshape(1, -1).astype(np.int32), len(x), axis=0)
        mean, variance = self.gp.predict(h, x)
        return mean + kappa * np.sqrt(np.maximum(variance, 0.0) + self.noise)

    def negative_ucb_with_gradient(self, kappa: float) -> Callable[[np.ndarray], tuple[float, np.ndarray]]:
        h_row = self.h.reshape(1, -1).astype(np.int32)

        def negative(x: np.ndarray) -> tuple[float, np.ndarray]:
            mean, variance, mean_grad, variance_grad = self.gp.predict_with_gradient(h_row, x)
            sd = float(np.sqrt(max(variance, 0.0) + self.noise))
            return -(mean + kappa * sd), -(mean_grad + kappa * variance_grad / (2.0 * sd))

        return negative


def _local_maximum(negative: Callable[[np.ndarray], tuple[float, np.ndarray]], x0: np.ndarray) -> np.ndarray:
    try:
        result = scipy.optimize.minimize(
            negative,
            x0,
            jac=True,
            method="L-BFGS-B",
            bounds=[(0.0, 1.0)] * len(x0),
            options={"maxiter": MAX_LOCAL_ITERATIONS},
        )
    except (RuntimeError, ValueError):
        return x0
    return np.clip(result.x, 0.0, 1.0) if np.all(np.isfinite(result.x)) else x0


def maximise_ucb(
    surrogate: Surrogate,
    n_dims: int,
    rng: np.random.Generator,
    snap: Callable[[np.ndarray], np.ndarray],
    settings: UCBSettings = UCBSettings(),
) -> np.ndarray:
    """The x in [0, 1]^n_dims that maximises UCB (see the module docstring)."""
    if n_dims == 0:
        return np.zeros(0)
    samples = rng.random((settings.n_samples, n_dims))
    best = samples[np.argsort(-surrogate.ucb(samples, settings.kappa), kind="stable")[: settings.n_local]]
    negative = surrogate.negative_ucb_with_gradient(settings.kappa)
    finalists = snap(np.vstack([best, *(_local_maximum(negative, x0) for x0 in best)]))
    return finalists[int(np.argmax(surrogate.ucb(finalists, settings.kappa)))]
