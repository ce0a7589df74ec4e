"""Hyperparameter priors (``_priors``) against independent references: SciPy's densities and
central finite differences; and what a prior does to a fit on a few points."""

from __future__ import annotations

import math

import numpy as np
import pytest
import scipy.stats

from optuna_vpbo import _core
from optuna_vpbo._fit import _posterior_objective, fit_hyperparameters, prior_weight
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


def test_prior_weight_is_full_up_to_full_weight_then_falls_as_one_over_n() -> None:
    assert [prior_weight(30, n) for n in (1, 30, 60, 300)] == [1.0, 1.0, 0.5, 0.1]
    assert prior_weight(0, 10_000) == 1.0  # 0: the full weight always


def _smooth_data(n: int, d: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(3)
    x = rng.random((n, d))
    y = np.sin(3 * x[:, 0]) + 0.1 * x[:, 1]
    return np.zeros((n, 0), dtype=np.int32), x, (y - y.mean()) / y.std()


def test_a_weighted_prior_interpolates_between_maximum_likelihood_and_the_posterior() -> None:
    """A weight of 0 is maximum likelihood, 1 the plain posterior (the same fits from the same
    starts), and the objective in between is the likelihood plus the weighted prior, checked
    against the two evaluated apart."""
    h, x, y = _smooth_data(8, 4)

    def fit(prior: str, weight: float) -> np.ndarray:
        rng = np.random.default_rng(5)
        return fit_hyperparameters(h, x, y, rng=rng, n_restarts=3, prior=prior, prior_weight=weight).to_theta()

    np.testing.assert_allclose(fit("dimension-scaled", 0.0), fit("none", 1.0), rtol=1e-9, atol=1e-12)
    weighted = fit("dimension-scaled", 0.25)
    assert not np.allclose(weighted, fit("dimension-scaled", 1.0))
    layout, prior = hyperparameter_layout(4), negative_log_prior("dimension-scaled")
    likelihood = _core.LikelihoodEvaluator(h, x, y)
    objective = _posterior_objective(likelihood, prior, layout, 0.25)
    theta = weighted.copy()
    theta[layout.lam] = 0.5  # inside lambda's bounds, where central differences are defined
    value, gradient = objective(theta)
    assert value == pytest.approx(likelihood(theta)[0] + 0.25 * prior(theta, layout)[0], rel=1e-12)
    step = 1e-6
    numeric = [(objective(theta + step * e)[0] - objective(theta - step * e)[0]) / (2 * step) for e in np.eye(len(theta))]
    np.testing.assert_allclose(gradient, numeric, rtol=1e-5, atol=1e-5)
