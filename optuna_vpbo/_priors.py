"""Priors on the GP's hyperparameters: the fit maximises the posterior (likelihood times prior)
instead of the likelihood alone.

With a few dozen points, plain maximum likelihood (the VPBO paper, following CoCaBO) often puts
lengthscales at their bounds and the noise at its floor, and the value proposals then follow a
degenerate model (docs/decisions.md, "The hyperparameter prior"). The prior, on the named blocks of the
fit's coordinates theta (``_hyperparameters``: log lengthscales, log variance, log noise,
lambda), x in [0, 1]^d and standardised targets:

- ``"dimension-scaled"``: Hvarfner, Hellsten and Nardi (2024), "Vanilla Bayesian optimization
  performs great in high dimensions" (BoTorch's default): LogNormal(sqrt(2) + log(d) / 2, sqrt(3))
  on each lengthscale, LogNormal(-4, 1) on the noise variance, none on the variance.

It returns -log p(theta) up to a constant and its gradient in theta; lambda has no prior.
``"none"`` is plain maximum likelihood (the paper's). Optuna GPSampler's priors were measured
and not adopted (docs/decisions.md, "Experiments that did not ship").
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

from optuna_vpbo._hyperparameters import HyperparameterLayout

PRIORS = ("none", "dimension-scaled")
# Bumped with any change of a prior's density: stored fits of another version are refitted.
PRIORS_VERSION = 1

# (-log p, gradient) of a theta of the given layout.
NegativeLogPrior = Callable[[np.ndarray, HyperparameterLayout], tuple[float, np.ndarray]]


def _log_normal_on_log(u: np.ndarray, mu: float, sigma: float) -> tuple[float, np.ndarray]:
    """LogNormal(mu, sigma) on l = exp(u), as a function of u: -log p = (u - mu)^2 / (2 sigma^2)
    + u (up to a constant) and its derivative in u."""
    return float(((u - mu) ** 2 / (2.0 * sigma**2) + u).sum()), (u - mu) / sigma**2 + 1.0


def _dimension_scaled(theta: np.ndarray, layout: HyperparameterLayout) -> tuple[float, np.ndarray]:
    gradient = np.zeros_like(theta)
    value = 0.0
    lengthscale_mu = math.sqrt(2.0) + 0.5 * math.log(max(layout.n_numeric, 1))
    # The noise's block as a slice of one entry: the same arithmetic as the lengthscales'.
    noise = slice(layout.log_noise, layout.log_noise + 1)
    for block, mu, sigma in ((layout.log_lengthscales, lengthscale_mu, math.sqrt(3.0)), (noise, -4.0, 1.0)):
        block_value, gradient[block] = _log_normal_on_log(theta[block], mu, sigma)
        value += block_value
    return value, gradient


def _none(theta: np.ndarray, layout: HyperparameterLayout) -> tuple[float, np.ndarray]:
    return 0.0, np.zeros_like(theta)


_BY_NAME: dict[str, NegativeLogPrior] = {"none": _none, "dimension-scaled": _dimension_scaled}


def negative_log_prior(name: str) -> NegativeLogPrior:
    """The prior called ``name`` (one of ``PRIORS``)."""
    if name not in _BY_NAME:
        raise ValueError(f"hyperparameter_prior must be one of {PRIORS}, got {name!r}.")
    return _BY_NAME[name]
