"""The one hyperparameter layout (``native/hyperparameter_layout.hpp``, ``_hyperparameters``): the
Python view is the native one, every reader of theta (likelihood, fit, priors) agrees on it, and
theta <-> GPHyperparameters round-trips."""

from __future__ import annotations

import math

import numpy as np
import pytest

from optuna_vpbo import _core
from optuna_vpbo._fit import LAMBDA_BOUNDS, NOISE_BOUNDS, GPHyperparameters, theta_bounds
from optuna_vpbo._hyperparameters import hyperparameter_layout
from optuna_vpbo._priors import PRIORS, negative_log_prior

DIMENSIONS = [0, 1, 3, 5]
PYTHON_FIELDS = {
    "log_lengthscales": "log_lengthscales", "log_variance": "log_variance", "log_noise": "log_noise", "lambda": "lam",
}


def entries(index: int | slice) -> list[int]:
    return [index] if isinstance(index, int) else list(range(index.start, index.stop))


@pytest.mark.parametrize("d", DIMENSIONS)
def test_the_python_layout_is_the_native_one(d: int) -> None:
    native = _core.HyperparameterLayout(d)
    layout = hyperparameter_layout(d)
    assert (layout.n_numeric, layout.size) == (d, native.size)
    blocks = native.blocks()
    assert [b.name for b in blocks] == list(PYTHON_FIELDS)
    covered = []
    for block in blocks:
        index = getattr(layout, PYTHON_FIELDS[block.name])
        assert entries(index) == list(range(block.offset, block.offset + block.size))
        assert isinstance(index, int) == block.scalar
        covered += entries(index)
    assert covered == list(range(native.size))  # the blocks tile theta in order, no gap, no overlap


@pytest.mark.parametrize("d", DIMENSIONS)
def test_the_documented_layout(d: int) -> None:
    """An independent statement of the layout: [log l (d), log variance, log noise, lambda]."""
    layout = hyperparameter_layout(d)
    assert layout.size == d + 3
    assert entries(layout.log_lengthscales) == list(range(d))
    assert (layout.log_variance, layout.log_noise, layout.lam) == (d, d + 1, d + 2)


def test_a_negative_count_is_a_clear_error() -> None:
    with pytest.raises(ValueError, match="non-negative"):
        hyperparameter_layout(-1)
    with pytest.raises(ValueError, match="non-negative"):
        _core.HyperparameterLayout(-2)


@pytest.mark.parametrize("d", DIMENSIONS)
def test_theta_round_trips_through_the_named_hyperparameters(d: int) -> None:
    rng = np.random.default_rng(d)
    hyperparameters = GPHyperparameters(rng.uniform(0.05, 3, d), 1.7, 2e-3, 0.3)
    layout = hyperparameters.layout
    assert layout == hyperparameter_layout(d)
    theta = hyperparameters.to_theta()
    np.testing.assert_allclose(np.exp(theta[layout.log_lengthscales]), hyperparameters.lengthscales, rtol=1e-15)
    assert math.exp(theta[layout.log_variance]) == pytest.approx(1.7, rel=1e-15)
    assert math.exp(theta[layout.log_noise]) == pytest.approx(2e-3, rel=1e-15)
    assert theta[layout.lam] == 0.3
    back = GPHyperparameters.from_theta(theta, layout)
    np.testing.assert_array_equal(back.to_theta(), theta)
    random_theta = rng.uniform(-3, 1, layout.size)
    random_theta[layout.lam] = rng.uniform(*LAMBDA_BOUNDS)
    round_trip = GPHyperparameters.from_theta(random_theta, layout).to_theta()
    np.testing.assert_allclose(round_trip, random_theta, rtol=1e-14, atol=1e-15)


def test_from_theta_rejects_another_layouts_vector() -> None:
    with pytest.raises(ValueError, match="theta must have 5 entries"):
        GPHyperparameters.from_theta(np.zeros(6), hyperparameter_layout(2))


def numpy_negative_log_likelihood(h: np.ndarray, x: np.ndarray, y: np.ndarray, hyperparameters: GPHyperparameters) -> float:
    """-log N(y; 0, K + noise I) written out in NumPy from the named hyperparameters."""
    k_h = (h[:, None, :] == h[None, :, :]).mean(-1)
    r = np.sqrt((((x[:, None, :] - x[None, :, :]) / hyperparameters.lengthscales) ** 2).sum(-1))
    k_x = (1 + math.sqrt(5) * r + 5 * r**2 / 3) * np.exp(-math.sqrt(5) * r)
    lam, variance = hyperparameters.lam, hyperparameters.variance
    k = variance * ((1 - lam) / 2 * (k_h + k_x) + lam * k_h * k_x) + hyperparameters.noise * np.eye(len(y))
    sign, log_det = np.linalg.slogdet(k)
    assert sign > 0
    return 0.5 * y @ np.linalg.solve(k, y) + 0.5 * log_det + 0.5 * len(y) * math.log(2 * math.pi)


def test_the_native_likelihood_reads_the_blocks_python_writes() -> None:
    """Distinct values in every block: a likelihood that read any block at another offset would
    differ from the NumPy reference built from the named fields."""
    rng = np.random.default_rng(4)
    n, d, n_levels = 20, 3, [3, 2]
    h = rng.integers(0, n_levels, size=(n, 2)).astype(np.int32)
    x, y = rng.random((n, d)), rng.standard_normal(n)
    hyperparameters = GPHyperparameters(np.array([0.2, 0.7, 1.9]), 1.6, 0.03, 0.35)
    evaluator = _core.LikelihoodEvaluator(h, x, y)
    assert evaluator.n_params == evaluator.layout.size == hyperparameters.layout.size
    value, gradient = evaluator(hyperparameters.to_theta())
    assert value == pytest.approx(numpy_negative_log_likelihood(h, x, y, hyperparameters), rel=1e-10)
    # The noise's entry of the gradient is d nll / d log noise, by a central difference in the noise alone.
    layout, step = hyperparameters.layout, 1e-6
    noisier = [GPHyperparameters(hyperparameters.lengthscales, 1.6, 0.03 * math.exp(s), 0.35) for s in (step, -step)]
    up, down = (numpy_negative_log_likelihood(h, x, y, noisy) for noisy in noisier)
    numeric = (up - down) / (2 * step)
    assert gradient[layout.log_noise] == pytest.approx(numeric, rel=1e-6)


@pytest.mark.parametrize("d", [0, 2, 3])
def test_the_bounds_are_per_named_block(d: int) -> None:
    layout = hyperparameter_layout(d)
    bounds = np.array(theta_bounds(layout, lam_bounds=(0.5, 0.5), variance_bounds=(1.0, 1.0)))
    assert bounds.shape == (layout.size, 2)
    assert tuple(bounds[layout.lam]) == (0.5, 0.5) and tuple(bounds[layout.log_variance]) == (0.0, 0.0)
    np.testing.assert_allclose(bounds[layout.log_noise], np.log(NOISE_BOUNDS))


@pytest.mark.parametrize("name", PRIORS)
def test_the_priors_leave_lambda_alone(name: str) -> None:
    """Only the lengthscales, variance and noise have priors: moving lambda changes no prior."""
    layout = hyperparameter_layout(3)
    rng = np.random.default_rng(5)
    theta = rng.uniform(-2, 1, layout.size)
    prior = negative_log_prior(name)
    value, gradient = prior(theta, layout)
    assert gradient.shape == theta.shape
    assert gradient[layout.lam] == 0.0
    moved = theta.copy()
    moved[layout.lam] += 0.3
    assert prior(moved, layout)[0] == value
