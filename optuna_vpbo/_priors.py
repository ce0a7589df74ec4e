"""Priors on the GP's hyperparameters: the fit maximises the posterior (likelihood times prior)
instead of the likelihood alone.

With a few dozen points, plain maximum likelihood (the VPBO paper, following CoCaBO) often puts
lengthscales at their bounds and the noise at its floor, and the value proposals then follow a
degenerate model (docs/decisions.md, "Hyperparameter priors"). Two priors, on the fit's
coordinates theta = (log lengthscales (d), log variance, log noise, lambda, ...), x in [0, 1]^d and
standardised targets:

- ``"gpsampler"``: the priors of Optuna's GPSampler (``optuna/_gp/prior.py``): on each inverse
  squared lengthscale t = 1 / l^2 the density exp(-(0.1 / t + 0.1 t)) (mode at l = 1, heavy
  penalties at both ends), Gamma(2, 1) on the variance, Gamma(1.1, 30) on the noise variance.
- ``"dimension-scaled"``: Hvarfner, Hellsten and Nardi (2024), "Vanilla Bayesian optimization
  performs great in high dimensions" (BoTorch's default): LogNormal(sqrt(2) + log(d) / 2, sqrt(3))
  on each lengthscale, LogNormal(-4, 1) on the noise variance, none on the variance.

Each returns -log p(theta) up to a constant and its gradient in theta; lambda has no prior.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

PRIORS = ("none", "gpsampler", "dimension-scaled")

# (-log p, gradient) of theta for a model with d numeric dimensions.
NegativeLogPrior = Callable[[np.ndarray, int], tuple[float, np.ndarray]]


def _gpsampler(theta: np.ndarray, d: int) -> tuple[float, np.ndarray]:
    gradient = np.zeros_like(theta)
    up, down = np.exp(2.0 * theta[:d]), np.exp(-2.0 * theta[:d])  # l^2 and 1 / l^2
    value = float(0.1 * (up + down).sum())
    gradient[:d] = 0.2 * (up - down)
    # Gamma(a, b) on v = exp(w): -log p = -(a - 1) w + b exp(w).
    for index, (shape, rate) in ((d, (2.0, 1.0)), (d + 1, (1.1, 30.0))):
        value += -(shape - 1.0) * theta[index] + rate * math.exp(theta[index])
        gradient[index] = -(shape - 1.0) + rate * math.exp(theta[index])
    return value, gradient


def _dimension_scaled(theta: np.ndarray, d: int) -> tuple[float, np.ndarray]:
    gradient = np.zeros_like(theta)
    # LogNormal(mu, sigma) on l = exp(u): -log p = (u - mu)^2 / (2 sigma^2) + u.
    value = 0.0
    lengthscale_prior = (slice(0, d), math.sqrt(2.0) + 0.5 * math.log(max(d, 1)), math.sqrt(3.0))
    for index, mu, sigma in (lengthscale_prior, (slice(d + 1, d + 2), -4.0, 1.0)):
        u = theta[index]
        value += float(((u - mu) ** 2 / (2.0 * sigma**2) + u).sum())
        gradient[index] = (u - mu) / sigma**2 + 1.0
    return value, gradient


def _none(theta: np.ndarray, d: int) -> tuple[float, np.ndarray]:
    return 0.0, np.zeros_like(theta)


_BY_NAME: dict[str, NegativeLogPrior] = {"none": _none, "gpsampler": _gpsampler, "dimension-scaled": _dimension_scaled}


def negative_log_prior(name: str) -> NegativeLogPrior:
    """The prior called ``name`` (one of ``PRIORS``)."""
    if name not in _BY_NAME:
        raise ValueError(f"hyperparameter_prior must be one of {PRIORS}, got {name!r}.")
    return _BY_NAME[name]
