"""Hyperparameter priors (``_priors``) against independent references: SciPy's densities and
central finite differences; and what a prior does to a fit on a few points."""

from __future__ import annotations

import math

import numpy as np
import pytest
import scipy.stats

from optuna_vpbo._fit import fit_hyperparameters
from optuna_vpbo._hyperparameters import hyperparameter_layout
from optuna_vpbo._priors import PRIORS, negative_log_prior


def _theta(d: int, rng: np.random.Generator) -> np.ndarray:
    return np.concatenate([rng.uniform(-3, 2, d), [rng.uniform(-2, 2), rng.uniform(-10, 0), rng.uniform(0, 1)]])


@pytest.mark.parametrize("name", PRIORS)
def test_gradient_matches_central_differences(name: str) -> None:
    rng = np.random.default_rng(1)
    prior = negative_log_prior(name)
    for d in (1, 4):
        theta, layout = _theta(d, rng), hyperparameter_layout(d)
        _, gradient = prior(theta, layout)
        step = 1e-6
        numeric = [
            (prior(theta + step * e, layout)[0] - prior(theta - step * e, layout)[0]) / (2 * step) for e in np.eye(len(theta))
        ]
        np.testing.assert_allclose(gradient, numeric, rtol=1e-6, atol=1e-6)
        assert gradient[d + 2] == 0.0  # no prior on lambda


def test_dimension_scaled_prior_is_scipys_lognormal_up_to_a_constant() -> None:
    d = 3
    prior = negative_log_prior("dimension-scaled")
    mu, sigma = math.sqrt(2) + 0.5 * math.log(d), math.sqrt(3)

    def reference(theta: np.ndarray) -> float:
        lengthscales, noise = np.exp(theta[:d]), math.exp(theta[d + 1])
        lengthscale_density = scipy.stats.lognorm.logpdf(lengthscales, s=sigma, scale=math.exp(mu)).sum()
        return -float(lengthscale_density + scipy.stats.lognorm.logpdf(noise, s=1.0, scale=math.exp(-4.0)))

    rng = np.random.default_rng(2)
    a, b = _theta(d, rng), _theta(d, rng)
    layout = hyperparameter_layout(d)
    assert prior(a, layout)[0] - prior(b, layout)[0] == pytest.approx(reference(a) - reference(b), rel=1e-9)


def test_unknown_prior_is_a_clear_error() -> None:
    with pytest.raises(ValueError, match="hyperparameter_prior must be one of"):
        negative_log_prior("flat")


def test_a_prior_keeps_a_few_points_from_degenerate_lengthscales() -> None:
    """Eight points of a smooth function of x1 alone in 4 dimensions: maximum likelihood sends
    lengthscales to their bounds; the dimension-scaled prior keeps every one within [0.05, 10]."""
    rng = np.random.default_rng(0)
    x = rng.random((8, 4))
    y = np.sin(3 * x[:, 0]) + 0.1 * x[:, 1]
    y = (y - y.mean()) / y.std()
    h = np.zeros((8, 0), dtype=np.int32)
    rng = np.random.default_rng(0)  # one generator for both fits, drawn from in turn
    plain = fit_hyperparameters(h, x, y, rng=rng, n_restarts=3, lam_bounds=(1.0, 1.0))
    with_prior = fit_hyperparameters(h, x, y, prior="dimension-scaled", rng=rng, n_restarts=3, lam_bounds=(1.0, 1.0))
    assert plain.lengthscales.max() > 10 or plain.lengthscales.min() < 0.05
    assert 0.05 <= with_prior.lengthscales.min() and with_prior.lengthscales.max() <= 10
