"""The UCB maximiser that every GP baseline uses to choose x for a fixed combination.

Paper, sec. 5: One-Hot BO, EXP3BO, Bandit-BO, RandomBO and CoCaBO use UCB with kappa = 2. As
in CoCaBO's code (``sample_then_minimize`` on ``UCB(gp, 2.0)``): ``mu + kappa sigma`` with the
predictive sigma (observation noise included), evaluated on 5000 uniform samples of x with h
fixed, then L-BFGS-B from the best 3 (``optuna_vpbo.gp.refine``, which takes any
acquisition with ``value_with_gradient``). The samples and local optima are finally snapped onto the
parameters' grids (for One-Hot BO also onto exact one-hot vectors) and re-scored, so that the
chosen point is scored where it will be evaluated.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

import numpy as np

from optuna_vpbo.gp import MixedGP, refine

KAPPA = 2.0
N_UCB_SAMPLES = 5000
N_UCB_LOCAL = 3


@dataclasses.dataclass(frozen=True)
class UCBSettings:
    kappa: float = KAPPA
    n_samples: int = N_UCB_SAMPLES
    n_local: int = N_UCB_LOCAL


# The paper's settings (CoCaBO's code).
PAPER_UCB = UCBSettings()


@dataclasses.dataclass(frozen=True)
class Surrogate:
    """A GP, its noise variance, and the categorical codes ``h`` at which it is queried (an
    empty row for a GP on numeric inputs only)."""

    gp: MixedGP
    noise: float
    h: np.ndarray


@dataclasses.dataclass(frozen=True)
class UpperConfidenceBound:
    """``mu + kappa sqrt(var + noise)`` of a surrogate at its combination."""

    surrogate: Surrogate
    kappa: float

    def values(self, x: np.ndarray) -> np.ndarray:
        """UCB at the rows of ``x``."""
        h = np.repeat(self.surrogate.h.reshape(1, -1).astype(np.int32), len(x), axis=0)
        mean, variance = self.surrogate.gp.predict(h, x)
        return mean + self.kappa * np.sqrt(np.maximum(variance, 0.0) + self.surrogate.noise)

    def value_with_gradient(self, h_row: np.ndarray, x: np.ndarray) -> tuple[float, np.ndarray]:
        """UCB at one point and its gradient w.r.t. x (the interface ``refine`` maximises)."""
        mean, variance, mean_grad, variance_grad = self.surrogate.gp.predict_with_gradient(h_row, x)
        sd = float(np.sqrt(max(variance, 0.0) + self.surrogate.noise))
        return mean + self.kappa * sd, mean_grad + self.kappa * variance_grad / (2.0 * sd)


def maximise_ucb(
    surrogate: Surrogate,
    n_dims: int,
    rng: np.random.Generator,
    snap: Callable[[np.ndarray], np.ndarray],
    settings: UCBSettings = PAPER_UCB,
) -> np.ndarray:
    """The x in [0, 1]^n_dims that maximises UCB (see the module docstring)."""
    if n_dims == 0:
        return np.zeros(0)
    ucb = UpperConfidenceBound(surrogate, settings.kappa)
    samples = rng.random((settings.n_samples, n_dims))
    best = samples[np.argsort(-ucb.values(samples), kind="stable")[: settings.n_local]]
    every_dimension = np.arange(n_dims)
    local = [refine(ucb, surrogate.h, x0, every_dimension, lambda p, _: snap(p))[0] for x0 in best]  # type: ignore[arg-type]
    finalists = snap(np.vstack([best, *local]))
    return finalists[int(np.argmax(ucb.values(finalists)))]
