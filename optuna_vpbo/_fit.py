"""Hyperparameter fit of the mixed-kernel GP: multi-start L-BFGS-B on the log marginal likelihood.

As in the VPBO paper (sec. 5, following CoCaBO's code): the lengthscales, output variance, noise
variance and the kernel mix lambda maximise the log marginal likelihood, optimised in log space
(lambda as it is, in [0, 1]) by L-BFGS-B from several starts; the best start wins. The native
core computes the likelihood and its analytic gradient; SciPy's L-BFGS-B drives it.
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import scipy.optimize

from optuna_vpbo import _core
from optuna_vpbo._output_transforms import FittedTransform, OutputTransform

# Bounds on targets standardised to zero mean and unit variance, and x in [0, 1]^d.
LENGTHSCALE_BOUNDS = (1e-2, 20.0)
VARIANCE_BOUNDS = (1e-2, 20.0)
# The lower noise bound is the noise floor: the GP adds no jitter beyond it (native/gp.hpp).
NOISE_BOUNDS = (1e-6, 1.0)
LAMBDA_BOUNDS = (0.0, 1.0)
# Before the first fit, as in CoCaBO's code (lengthscale 0.2 on [-1, 1] is 0.1 on [0, 1]).
DEFAULT_LENGTHSCALE = 0.1
DEFAULT_VARIANCE = 1.0
DEFAULT_NOISE = 0.1
DEFAULT_LAMBDA = 0.5
MAX_LBFGS_ITERATIONS = 200


@dataclasses.dataclass(frozen=True)
class GPHyperparameters:
    lengthscales: np.ndarray
    variance: float
    noise: float
    lam: float

    @classmethod
    def default(cls, n_numeric: int) -> GPHyperparameters:
        return cls(np.full(n_numeric, DEFAULT_LENGTHSCALE), DEFAULT_VARIANCE, DEFAULT_NOISE, DEFAULT_LAMBDA)

    @classmethod
    def from_theta(cls, theta: np.ndarray) -> GPHyperparameters:
        d = len(theta) - 3
        lam = float(np.clip(theta[d + 2], *LAMBDA_BOUNDS))
        return cls(np.exp(theta[:d]), float(math.exp(theta[d])), float(math.exp(theta[d + 1])), lam)

    def to_theta(self) -> np.ndarray:
        return np.concatenate(
            [np.log(self.lengthscales), [math.log(self.variance), math.log(self.noise), self.lam]]
        )

    def make_gp(self, h: np.ndarray, x: np.ndarray, y: np.ndarray) -> _core.MixedGP:
        """The GP on (h, x, y), its training points grouped by the level of the categorical with
        the most levels: the posterior does not depend on their order, and the value proposals'
        triangular solves for that variable's levels then skip the rows above each level
        (``native/proposals.cpp``)."""
        order = _grouped_by_level(h)
        return _core.MixedGP(h[order], x[order], y[order], self.lengthscales, self.variance, self.lam, self.noise)


def _grouped_by_level(h: np.ndarray) -> np.ndarray:
    """Row order that sorts ``h`` by its column with the most levels (stable; identity if none)."""
    if h.shape[1] == 0 or len(h) == 0:
        return np.arange(len(h))
    return np.argsort(h[:, int(np.argmax(h.max(axis=0)))], kind="stable")


def theta_bounds(
    n_numeric: int,
    lam_bounds: tuple[float, float] = LAMBDA_BOUNDS,
    variance_bounds: tuple[float, float] = VARIANCE_BOUNDS,
) -> list[tuple[float, float]]:
    log_ls = (math.log(LENGTHSCALE_BOUNDS[0]), math.log(LENGTHSCALE_BOUNDS[1]))
    return [log_ls] * n_numeric + [
        (math.log(variance_bounds[0]), math.log(variance_bounds[1])),
        (math.log(NOISE_BOUNDS[0]), math.log(NOISE_BOUNDS[1])),
        lam_bounds,
    ]


def fit_hyperparameters(
    h: np.ndarray,
    x: np.ndarray,
    y: np.ndarray,
    *,
    rng: np.random.Generator,
    n_restarts: int,
    warm_start: GPHyperparameters | None = None,
    lam_bounds: tuple[float, float] = LAMBDA_BOUNDS,
    variance_bounds: tuple[float, float] = VARIANCE_BOUNDS,
) -> GPHyperparameters:
    """Maximum-likelihood hyperparameters from ``n_restarts`` L-BFGS-B runs.

    The first run starts from ``warm_start`` (the previous fit) or the defaults; the others from
    points drawn uniformly in the log-bounds. A start whose likelihood cannot be evaluated (a
    NumericalError) is skipped; if every start fails, the first start point is returned.
    ``lam_bounds`` (a sub-interval of [0, 1]) and ``variance_bounds`` bound lambda and the output
    variance; equal bounds fix them, as CoCaBO fixes the variance at 1 and optionally the mix at
    0.5; lambda = 1 with no categorical column gives a plain Matern GP.
    """
    n_numeric = x.shape[1]
    bounds = theta_bounds(n_numeric, lam_bounds, variance_bounds)
    lows, highs = np.array(bounds).T
    first = (warm_start or GPHyperparameters.default(n_numeric)).to_theta()
    starts = [np.clip(first, lows, highs)]
    starts += [rng.uniform(lows, highs) for _ in range(max(0, n_restarts - 1))]
    evaluator = _core.LikelihoodEvaluator(h, x, y)

    best_theta, best_value = starts[0], math.inf
    for start in starts:
        try:
            result = scipy.optimize.minimize(
                evaluator,
                start,
                jac=True,
                method="L-BFGS-B",
                bounds=bounds,
                options={"maxiter": MAX_LBFGS_ITERATIONS},
            )
        except _core.NumericalError:
            continue  # this start reached hyperparameters whose kernel matrix cannot be factorised
        if np.isfinite(result.fun) and result.fun < best_value:
            best_theta, best_value = result.x, float(result.fun)
    return GPHyperparameters.from_theta(np.clip(best_theta, lows, highs))


@dataclasses.dataclass(frozen=True)
class ModelFit:
    """One output's last fit: its size, hyperparameters and fitted output transform."""

    n_observations: int
    hyperparameters: GPHyperparameters
    transform: FittedTransform


class ModelCache:
    """The last fit of every output model (objectives and constraints), by key: a fit is reused
    while fewer than ``refit_interval`` observations came since it, else refitted warm-started
    from it (VPBO paper, sec. 5: refits every 10 trials)."""

    def __init__(self, refit_interval: int, n_restarts: int) -> None:
        self._refit_interval = refit_interval
        self._n_restarts = n_restarts
        self._fits: dict[tuple[str, ...], ModelFit] = {}

    def fit_or_reuse(
        self,
        key: tuple[str, ...],
        h: np.ndarray,
        x: np.ndarray,
        values: np.ndarray,
        transform: OutputTransform,
        rng: np.random.Generator,
    ) -> tuple[np.ndarray, GPHyperparameters, FittedTransform]:
        """The targets of ``values``, the hyperparameters and the fitted output transform of the
        model ``key``."""
        cached = self._fits.get(key)
        if cached is not None and 0 <= len(h) - cached.n_observations < self._refit_interval:
            return cached.transform(values), cached.hyperparameters, cached.transform
        fitted_transform = transform.fit(values)
        y = fitted_transform(values)
        warm_start = cached.hyperparameters if cached is not None else None
        fitted = fit_hyperparameters(h, x, y, rng=rng, n_restarts=self._n_restarts, warm_start=warm_start)
        self._fits[key] = ModelFit(len(h), fitted, fitted_transform)
        return y, fitted, fitted_transform
