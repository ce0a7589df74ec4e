"""Per-observation extra noise of the native GP and likelihood (K + noise I + diag(extra)), against
NumPy and finite differences; none or zeros change no bit."""

from __future__ import annotations

import math

import numpy as np
import pytest

from optuna_vpbo import _core
from test_native_numerics import SHAPES, along, five_point_derivative, numpy_kernel, random_data


def numpy_posterior_with_extra(
    h: np.ndarray, x: np.ndarray, y: np.ndarray, hq: np.ndarray, xq: np.ndarray, ls: np.ndarray, variance: float, lam: float,
    noise: float, extra: np.ndarray,
) -> tuple[np.ndarray, np.ndarray]:
    k = numpy_kernel(h, x, h, x, ls, variance, lam) + np.diag(noise + extra)
    cross = numpy_kernel(h, x, hq, xq, ls, variance, lam)
    mean = cross.T @ np.linalg.solve(k, y)
    var = variance - np.einsum("ij,ij->j", cross, np.linalg.solve(k, cross))
    return mean, var


def extra_noise(rng: np.random.Generator, n: int) -> np.ndarray:
    """Zero for half the points (complete trials), up to 2 for the others."""
    return np.where(rng.random(n) < 0.5, 0.0, rng.uniform(0.0, 2.0, n))


@pytest.mark.parametrize("n_levels,d", SHAPES)
def test_posterior_with_extra_noise_matches_numpy(n_levels: list[int], d: int) -> None:
    rng = np.random.default_rng(11)
    h, x, y = random_data(rng, 30, n_levels, d)
    hq, xq, _ = random_data(rng, 12, n_levels, d)
    ls, variance, lam, noise = rng.uniform(0.1, 1, d), 0.8, 0.6, 1e-3
    extra = extra_noise(rng, len(y))
    mean, var = _core.MixedGP(h, x, y, ls, variance, lam, noise, extra).predict(hq, xq)
    ref_mean, ref_var = numpy_posterior_with_extra(h, x, y, hq, xq, ls, variance, lam, noise, extra)
    np.testing.assert_allclose(mean, ref_mean, atol=1e-9)
    np.testing.assert_allclose(var, ref_var, atol=1e-9)


def test_extra_noise_weakens_an_observation() -> None:
    """A point with a large extra noise pulls the mean at its location less than an exact one."""
    rng = np.random.default_rng(12)
    h, x, y = random_data(rng, 15, [3], 2)
    y[0] = 5.0
    args = (np.array([0.3, 0.3]), 1.0, 0.5, 1e-4)
    exact = _core.MixedGP(h, x, y, *args).predict(h[:1], x[:1])[0][0]
    weak = _core.MixedGP(h, x, y, *args, np.r_[10.0, np.zeros(14)]).predict(h[:1], x[:1])[0][0]
    assert exact == pytest.approx(5.0, abs=0.01)
    assert abs(weak) < 2.0


@pytest.mark.parametrize("n_levels,d", SHAPES)
def test_no_or_zero_extra_noise_changes_no_bit(n_levels: list[int], d: int) -> None:
    rng = np.random.default_rng(13)
    h, x, y = random_data(rng, 25, n_levels, d)
    hq, xq, _ = random_data(rng, 9, n_levels, d)
    args = (rng.uniform(0.1, 1, d), 1.1, 0.4, 1e-3)
    plain = _core.MixedGP(h, x, y, *args)
    assert plain.extra_noise is None
    for other in (_core.MixedGP(h, x, y, *args, None), _core.MixedGP(h, x, y, *args, np.zeros(len(y)))):
        for a, b in zip(plain.predict(hq, xq), other.predict(hq, xq)):
            assert np.array_equal(a, b)
    theta = np.concatenate([np.log(args[0]), [math.log(1.1), math.log(1e-3), 0.4]])
    value, gradient = _core.LikelihoodEvaluator(h, x, y)(theta)
    for extra in (None, np.zeros(len(y))):
        other_value, other_gradient = _core.LikelihoodEvaluator(h, x, y, extra)(theta)
        assert value == other_value and np.array_equal(gradient, other_gradient)


@pytest.mark.parametrize("n_levels,d", SHAPES)
def test_likelihood_with_extra_noise_matches_numpy_and_its_gradient_finite_differences(n_levels: list[int], d: int) -> None:
    rng = np.random.default_rng(14)
    h, x, y = random_data(rng, 20, n_levels, d)
    extra = extra_noise(rng, len(y))
    evaluator = _core.LikelihoodEvaluator(h, x, y, extra)
    ls, variance, noise, lam = rng.uniform(0.1, 1, d), 1.3, 0.05, 0.3
    theta = np.concatenate([np.log(ls), [math.log(variance), math.log(noise), lam]])
    k = numpy_kernel(h, x, h, x, ls, variance, lam) + np.diag(noise + extra)
    sign, logdet = np.linalg.slogdet(k)
    assert sign > 0
    expected = 0.5 * y @ np.linalg.solve(k, y) + 0.5 * logdet + 0.5 * len(y) * math.log(2 * math.pi)
    assert evaluator(theta)[0] == pytest.approx(expected, rel=1e-10)
    for _ in range(3):
        theta = np.concatenate([rng.uniform(-2, 0.5, d), [rng.uniform(-1, 1), rng.uniform(-6, -1), rng.uniform(0.05, 0.95)]])
        _, gradient = evaluator(theta)
        numeric = [five_point_derivative(along(lambda th: evaluator(th)[0], theta, e)) for e in np.eye(len(theta))]
        np.testing.assert_allclose(gradient, numeric, rtol=1e-6, atol=1e-7)


def test_extended_carries_extra_noise() -> None:
    """A GP grown by new points equals the GP built on all of them, extra noise on either side."""
    rng = np.random.default_rng(15)
    h, x, y = random_data(rng, 40, [3, 2], 2)
    hq, xq, _ = random_data(rng, 7, [3, 2], 2)
    args = (np.array([0.4, 0.6]), 1.0, 0.5, 1e-3)
    extra = extra_noise(rng, 40)
    cases = [(extra[:30], extra[30:], extra), (None, extra[30:], np.r_[np.zeros(30), extra[30:]]),
             (extra[:30], None, np.r_[extra[:30], np.zeros(10)])]
    for old, new, whole in cases:
        grown = _core.MixedGP(h[:30], x[:30], y[:30], *args, old).extended(h[30:], x[30:], y, new)
        reference = _core.MixedGP(h, x, y, *args, whole)
        assert grown.extra_noise is not None
        np.testing.assert_allclose(grown.extra_noise, whole)
        for a, b in zip(grown.predict(hq, xq), reference.predict(hq, xq)):
            np.testing.assert_allclose(a, b, atol=1e-10)
    assert _core.MixedGP(h[:30], x[:30], y[:30], *args).extended(h[30:], x[30:], y).extra_noise is None


def test_bad_extra_noise_is_a_clear_error() -> None:
    rng = np.random.default_rng(16)
    h, x, y = random_data(rng, 10, [2], 2)
    args = (np.ones(2), 1.0, 0.5, 1e-3)
    for bad in (np.zeros(9), np.full(10, -1.0), np.full(10, np.nan)):
        with pytest.raises(ValueError, match="extra_noise"):
            _core.MixedGP(h, x, y, *args, bad)
        with pytest.raises(ValueError, match="extra_noise"):
            _core.LikelihoodEvaluator(h, x, y, bad)
    with pytest.raises(ValueError, match="extra_noise"):
        _core.MixedGP(h[:5], x[:5], y[:5], *args).extended(h[5:], x[5:], y, np.zeros(4))
