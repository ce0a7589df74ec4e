"""The native core against independent references: finite differences, NumPy, scikit-learn, mpmath."""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable

import mpmath
import numpy as np
import pytest
import scipy.special
import scipy.stats

from optuna_vpbo import _core

SQRT5 = math.sqrt(5.0)


def random_data(rng: np.random.Generator, n: int, n_levels: list[int], d: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    h = rng.integers(0, np.array(n_levels, dtype=np.int64), size=(n, len(n_levels))).astype(np.int32)
    x = rng.random((n, d))
    y = rng.standard_normal(n)
    return h, x, y


def numpy_kernel(
    h1: np.ndarray, x1: np.ndarray, h2: np.ndarray, x2: np.ndarray, lengthscales: np.ndarray, variance: float, lam: float
) -> np.ndarray:
    """The mixed kernel written out directly in NumPy."""
    k_h = (h1[:, None, :] == h2[None, :, :]).mean(-1) if h1.shape[1] else np.ones((len(h1), len(h2)))
    r = np.sqrt((((x1[:, None, :] - x2[None, :, :]) / lengthscales) ** 2).sum(-1))
    k_x = (1 + SQRT5 * r + 5 * r**2 / 3) * np.exp(-SQRT5 * r)
    return variance * ((1 - lam) / 2 * (k_h + k_x) + lam * k_h * k_x)


def numpy_posterior(
    h: np.ndarray,
    x: np.ndarray,
    y: np.ndarray,
    hq: np.ndarray,
    xq: np.ndarray,
    lengthscales: np.ndarray,
    variance: float,
    lam: float,
    noise: float,
) -> tuple[np.ndarray, np.ndarray]:
    k = numpy_kernel(h, x, h, x, lengthscales, variance, lam) + noise * np.eye(len(y))
    cross = numpy_kernel(h, x, hq, xq, lengthscales, variance, lam)
    mean = cross.T @ np.linalg.solve(k, y)
    var = variance - np.einsum("ij,ij->j", cross, np.linalg.solve(k, cross))
    return mean, var


def five_point_derivative(f: Callable[[float], float], eps: float = 1e-4) -> float:
    """Central finite difference of f at 0 with O(eps^4) truncation error."""
    return (-f(2 * eps) + 8 * f(eps) - 8 * f(-eps) + f(-2 * eps)) / (12 * eps)


def along(f: Callable[[np.ndarray], float], x: np.ndarray, direction: np.ndarray) -> Callable[[float], float]:
    """t -> f(x + t * direction): f on the line through x along direction (x and direction bound here,
    not read from a loop's variables later)."""
    return lambda t: f(x + t * direction)


def acquisition_value(acquisition: _core.Acquisition, h: np.ndarray) -> Callable[[np.ndarray], float]:
    """x -> the acquisition's value at the point (h, x)."""
    return lambda x: acquisition.value_with_gradient(h, x)[0]


SHAPES = [([3, 2], 3), ([4], 1), ([], 2), ([2, 2, 3], 0), ([5], 4)]


@pytest.mark.parametrize("n_levels,d", SHAPES)
def test_likelihood_gradient_matches_finite_differences(n_levels: list[int], d: int) -> None:
    rng = np.random.default_rng(1)
    h, x, y = random_data(rng, 25, n_levels, d)
    evaluator = _core.LikelihoodEvaluator(h, x, y)
    for _ in range(3):
        theta = np.concatenate([rng.uniform(-2, 0.5, d), [rng.uniform(-1, 1), rng.uniform(-6, -1), rng.uniform(0.05, 0.95)]])
        _, gradient = evaluator(theta)
        numeric = [five_point_derivative(along(lambda th: evaluator(th)[0], theta, e)) for e in np.eye(len(theta))]
        np.testing.assert_allclose(gradient, numeric, rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize("n_levels,d", SHAPES)
def test_likelihood_value_matches_numpy(n_levels: list[int], d: int) -> None:
    rng = np.random.default_rng(2)
    h, x, y = random_data(rng, 20, n_levels, d)
    ls, variance, noise, lam = rng.uniform(0.1, 1, d), 1.3, 0.05, 0.3
    theta = np.concatenate([np.log(ls), [math.log(variance), math.log(noise), lam]])
    k = numpy_kernel(h, x, h, x, ls, variance, lam) + noise * np.eye(len(y))
    sign, logdet = np.linalg.slogdet(k)
    expected = 0.5 * y @ np.linalg.solve(k, y) + 0.5 * logdet + 0.5 * len(y) * math.log(2 * math.pi)
    assert sign > 0
    assert _core.LikelihoodEvaluator(h, x, y)(theta)[0] == pytest.approx(expected, rel=1e-10)


@pytest.mark.parametrize("n_levels,d", SHAPES)
def test_posterior_matches_numpy(n_levels: list[int], d: int) -> None:
    rng = np.random.default_rng(3)
    h, x, y = random_data(rng, 30, n_levels, d)
    hq, xq, _ = random_data(rng, 12, n_levels, d)
    ls, variance, lam, noise = rng.uniform(0.1, 1, d), 0.8, 0.6, 1e-3
    gp = _core.MixedGP(h, x, y, ls, variance, lam, noise)
    mean, var = gp.predict(hq, xq)
    ref_mean, ref_var = numpy_posterior(h, x, y, hq, xq, ls, variance, lam, noise)
    np.testing.assert_allclose(mean, ref_mean, atol=1e-9)
    np.testing.assert_allclose(var, ref_var, atol=1e-9)


def test_posterior_matches_scikit_learn_on_numeric_space() -> None:
    gpr_module = pytest.importorskip("sklearn.gaussian_process")
    kernels = pytest.importorskip("sklearn.gaussian_process.kernels")
    rng = np.random.default_rng(4)
    h, x, y = random_data(rng, 40, [], 3)
    hq, xq, _ = random_data(rng, 15, [], 3)
    ls, variance, lam, noise = np.array([0.3, 0.5, 0.8]), 1.5, 0.4, 1e-4
    # With no categorical variable k_h = 1: k = variance [(1 - lam)/2 + (1 + lam)/2 k_x].
    kernel = kernels.ConstantKernel(variance * (1 - lam) / 2, "fixed") + kernels.ConstantKernel(
        variance * (1 + lam) / 2, "fixed"
    ) * kernels.Matern(length_scale=ls, length_scale_bounds="fixed", nu=2.5)
    reference = gpr_module.GaussianProcessRegressor(kernel, alpha=noise, optimizer=None, normalize_y=False).fit(x, y)
    ref_mean, ref_std = reference.predict(xq, return_std=True)
    mean, var = _core.MixedGP(h, x, y, ls, variance, lam, noise).predict(hq, xq)
    np.testing.assert_allclose(mean, ref_mean, atol=1e-8)
    np.testing.assert_allclose(np.sqrt(var), ref_std, atol=1e-7)


def mp_log_h(u: float) -> float:
    with mpmath.workdps(60):
        u = mpmath.mpf(u)
        return float(mpmath.log(mpmath.npdf(u) + u * mpmath.ncdf(u)))


@pytest.mark.parametrize(
    "u", [30.0, 5.0, 1.0, 0.0, -0.5, -0.999, -1.0, -1.001, -3.0, -10.0, -25.0, -26.5, -38.0, -40.0, -100.0, -1e3, -1e4]
)
def test_log_h_matches_mpmath(u: float) -> None:
    assert _core.log_h(u) == pytest.approx(mp_log_h(u), rel=1e-9)


def test_log_h_finite_and_increasing_far_into_the_tail() -> None:
    u = -np.logspace(-3, 10, 2000)[::-1]  # from -1e10 up to -1e-3
    values = _core.log_h(u)
    assert np.all(np.isfinite(values))
    assert np.all(np.diff(values) > 0)
    # the asymptotic branch joins the erfcx branch continuously at u = -1e6
    assert _core.log_h(-1e6 * (1 + 1e-12)) == pytest.approx(_core.log_h(-1e6 * (1 - 1e-12)), rel=1e-9)


def test_log_expected_improvement_matches_closed_form() -> None:
    rng = np.random.default_rng(5)
    mean, sd, best = rng.normal(size=50), rng.uniform(0.1, 2, 50), 0.3
    z = (mean - best) / sd
    ei = sd * (scipy.special.ndtr(z) * z + np.exp(-0.5 * z**2) / math.sqrt(2 * math.pi))
    np.testing.assert_allclose(_core.log_expected_improvement(mean, sd, best), np.log(ei), rtol=1e-10)


@pytest.mark.parametrize("x", [-5.0, -1.0, 0.0, 0.5, 3.0, 25.9, 26.0, 26.1, 40.0, 1e3, 1e8])
def test_erfcx_matches_mpmath(x: float) -> None:
    with mpmath.workdps(50):
        expected = float(mpmath.exp(mpmath.mpf(x) ** 2) * mpmath.erfc(x))
    assert _core.erfcx(x) == pytest.approx(expected, rel=1e-12)


def test_log_ndtr_matches_scipy() -> None:
    z = np.concatenate([np.linspace(-1e3, -30, 50), np.linspace(-30, 30, 301), [40.0, 1e3]])
    np.testing.assert_allclose(_core.log_ndtr(z), scipy.special.log_ndtr(z), rtol=1e-12, atol=1e-300)


def test_log_ei_gradient_matches_finite_differences() -> None:
    rng = np.random.default_rng(6)
    h, x, y = random_data(rng, 30, [3, 2], 3)
    gp = _core.MixedGP(h, x, y, np.array([0.3, 0.4, 0.6]), 1.0, 0.5, 1e-4)
    for best in (y.max(), y.max() + 3.0):  # the second puts z deep in the tail
        for _ in range(5):
            hq, xq = h[:1] * 0 + rng.integers(0, 2, (1, 2)).astype(np.int32), rng.uniform(0.1, 0.9, 3)
            acquisition = _core.LogExpectedImprovement(gp, best)
            _, gradient = acquisition.value_with_gradient(hq, xq)
            eps = 1e-6
            numeric = [
                (acquisition.value_with_gradient(hq, xq + eps * e)[0] - acquisition.value_with_gradient(hq, xq - eps * e)[0])
                / (2 * eps)
                for e in np.eye(3)
            ]
            np.testing.assert_allclose(gradient, numeric, rtol=1e-4, atol=1e-6)


@pytest.mark.parametrize("n_levels,d", SHAPES)
def test_value_proposals_match_brute_force(n_levels: list[int], d: int) -> None:
    rng = np.random.default_rng(7)
    h, x, y = random_data(rng, 40, n_levels, d)
    gp = _core.MixedGP(h, x, y, rng.uniform(0.2, 1, d), 1.2, 0.35, 1e-3)
    combos = (
        np.array(list(itertools.product(*[range(m) for m in n_levels])), dtype=np.int32).reshape(-1, len(n_levels))
        if n_levels
        else np.zeros((1, 0), np.int32)
    )
    candidates = rng.random((64, d)) if d else np.zeros((1, 0))
    # A tiny block budget forces several candidate blocks.
    acquisition = _core.LogExpectedImprovement(gp, float(y.max()))
    index, value = _core.value_proposals(acquisition, combos, candidates, max_block_bytes=2e4)
    for c, combo in enumerate(combos):
        mean, var = gp.predict(np.repeat(combo[None], len(candidates), 0).astype(np.int32), candidates)
        log_ei = _core.log_expected_improvement(mean, np.sqrt(var), float(y.max()))
        assert index[c] == int(np.argmax(log_ei))
        assert value[c] == pytest.approx(log_ei.max(), rel=1e-10)


@pytest.mark.parametrize("grouped", [False, True])
@pytest.mark.parametrize(
    "data_levels,combination_levels",
    [
        ([3, 5], [3, 5]),  # every level in data and combinations: one level per variable derived
        ([3, 4], [4, 4]),  # a combination level without data: its piece is zero
        ([3, 4], [2, 4]),  # a data level without combinations: that variable derives nothing
        ([6, 2, 3], [6, 2, 3]),
        ([5, 4, 4], [5, 4, 4]),  # 80 combinations: the variances from the pieces' Gram matrices
    ],
)
def test_value_proposals_match_numpy_posterior(data_levels: list[int], combination_levels: list[int], grouped: bool) -> None:
    """The pieces (derived levels, solves that start at a level's first row, tiles of candidates)
    against the posterior written out in NumPy, with the training points in random order or
    grouped by level as GPHyperparameters.make_gp orders them."""
    rng = np.random.default_rng(21)
    h, x, y = random_data(rng, 60, data_levels, 2)
    if grouped:
        order = np.argsort(h[:, int(np.argmax(data_levels))], kind="stable")
        h, x, y = np.ascontiguousarray(h[order]), x[order], y[order]
    ls, variance, lam, noise = np.array([0.3, 0.5]), 1.3, 0.4, 1e-5
    gp = _core.MixedGP(h, x, y, ls, variance, lam, noise)
    combos = np.array(list(itertools.product(*[range(m) for m in combination_levels])), dtype=np.int32)
    candidates = rng.random((300, 2))
    best = float(y.max())
    # A small block budget gives several candidate blocks with several tiles each.
    index, value = _core.value_proposals(_core.LogExpectedImprovement(gp, best), combos, candidates, max_block_bytes=4e5)
    for c, combo in enumerate(combos):
        mean, var = numpy_posterior(h, x, y, np.repeat(combo[None], len(candidates), 0), candidates, ls, variance, lam, noise)
        z = (mean - best) / np.sqrt(var)
        with np.errstate(divide="ignore"):  # EI underflows to 0 far below the incumbent: -inf
            log_ei = np.log(np.sqrt(var) * (z * scipy.special.ndtr(z) + np.exp(-0.5 * z**2) / math.sqrt(2 * math.pi)))
        assert index[c] == int(np.argmax(log_ei))
        assert value[c] == pytest.approx(log_ei.max(), rel=1e-9)


@pytest.mark.parametrize("n_levels", [[3, 2], [5, 4, 4]])  # 80 combinations: the Gram matrices
@pytest.mark.parametrize("above", [0.0, 3.0, 40.0])
def test_value_proposals_match_brute_force_far_below_the_incumbent(n_levels: list[int], above: float) -> None:
    """Candidates far below the incumbent (standardised improvement below -1) are ruled out by a
    bound of log EI before its value is computed: the proposals are still the brute force's."""
    rng = np.random.default_rng(5)
    h, x, y = random_data(rng, 50, n_levels, 2)
    gp = _core.MixedGP(h, x, y, np.array([0.3, 0.6]), 1.0, 0.5, 1e-4)
    best = float(y.max()) + above * float(y.std())
    combos = np.array(list(itertools.product(*[range(m) for m in n_levels])), dtype=np.int32)
    candidates = rng.random((200, 2))
    index, value = _core.value_proposals(_core.LogExpectedImprovement(gp, best), combos, candidates, max_block_bytes=3e5)
    far = 0
    for c, combo in enumerate(combos):
        mean, var = gp.predict(np.repeat(combo[None], len(candidates), 0).astype(np.int32), candidates)
        far += int(np.sum((mean - best) / np.sqrt(var) < -1.0))
        log_ei = _core.log_expected_improvement(mean, np.sqrt(var), best)
        assert index[c] == int(np.argmax(log_ei))
        assert value[c] == pytest.approx(log_ei.max(), rel=1e-10)
    if above > 0.0:
        assert far > len(combos) * len(candidates) // 2  # the bound had candidates to rule out


def test_value_proposals_pick_the_obviously_best_combination() -> None:
    rng = np.random.default_rng(8)
    n_levels = [3, 4]
    h, x, _ = random_data(rng, 60, n_levels, 2)
    # additive effects: h1 = 2 and h2 = 1 are each better by 3 than any other level
    y = 3.0 * (h[:, 0] == 2) + 3.0 * (h[:, 1] == 1) - np.sum((x - 0.5) ** 2, axis=1)
    gp = _core.MixedGP(h, x, y, np.array([0.5, 0.5]), 2.0, 0.8, 1e-4)
    combos = np.array([[a, b] for a in range(3) for b in range(4)], dtype=np.int32)
    _, value = _core.value_proposals(_core.LogExpectedImprovement(gp, float(y.max())), combos, rng.random((128, 2)))
    assert tuple(combos[int(np.argmax(value))]) == (2, 1)


def test_mes_matches_numpy_formula() -> None:
    rng = np.random.default_rng(9)
    mean, sd = rng.normal(size=30), rng.uniform(0.1, 1.5, 30)
    max_values = np.array([1.5, 2.0, 3.0])
    gamma = (max_values[None, :] - mean[:, None]) / sd[:, None]
    expected = np.mean(
        gamma * scipy.stats.norm.pdf(gamma) / (2 * scipy.stats.norm.cdf(gamma)) - scipy.stats.norm.logcdf(gamma), axis=1
    )
    np.testing.assert_allclose(_core.max_value_entropy_search(mean, sd, max_values), expected, rtol=1e-8, atol=1e-15)


def test_gumbel_samples_follow_the_max_value_distribution() -> None:
    rng = np.random.default_rng(10)
    mean, sd = rng.normal(size=200), rng.uniform(0.2, 1.0, 200)
    samples = _core.sample_max_values_gumbel(mean, sd, rng.random(4000), -10.0)
    # The Gumbel fit matches the quartiles of F(y) = prod Phi((y - mean) / sd).
    def cdf(v: float) -> float:
        return np.exp(np.sum(scipy.stats.norm.logcdf((v - mean) / sd)))

    for q in (0.25, 0.5, 0.75):
        assert cdf(np.quantile(samples, q)) == pytest.approx(q, abs=0.03)
    # Floor: every sample is above the best observation.
    assert np.all(_core.sample_max_values_gumbel(mean, sd, rng.random(50), 1e3) >= 1e3)


def test_bad_inputs_raise_clear_errors() -> None:
    rng = np.random.default_rng(11)
    h, x, y = random_data(rng, 10, [2], 2)
    with pytest.raises(ValueError, match="NaN or inf"):
        _core.MixedGP(h, np.where(x > 0.5, np.nan, x), y, np.ones(2), 1.0, 0.5, 1e-3)
    with pytest.raises(ValueError, match="NaN or inf"):
        _core.MixedGP(h, x, np.full(10, np.inf), np.ones(2), 1.0, 0.5, 1e-3)
    with pytest.raises(ValueError, match="lengthscales"):
        _core.MixedGP(h, x, y, np.ones(3), 1.0, 0.5, 1e-3)
    with pytest.raises(ValueError, match="lambda"):
        _core.MixedGP(h, x, y, np.ones(2), 1.0, 1.5, 1e-3)
    with pytest.raises(ValueError, match=">= 0"):
        _core.MixedGP(-h - 1, x, y, np.ones(2), 1.0, 0.5, 1e-3)
    with pytest.raises(ValueError, match="different numbers of rows"):
        _core.MixedGP(h[:5], x, y, np.ones(2), 1.0, 0.5, 1e-3)
    with pytest.raises(ValueError, match="at least one"):
        _core.LikelihoodEvaluator(h[:0], x[:0], y[:0])
    with pytest.raises(ValueError, match="theta"):
        _core.LikelihoodEvaluator(h, x, y)(np.zeros(2))
    gp = _core.MixedGP(h, x, y, np.ones(2), 1.0, 0.5, 1e-3)
    acquisition = _core.LogExpectedImprovement(gp, 0.0)
    with pytest.raises(ValueError, match="no combinations"):
        _core.value_proposals(acquisition, np.zeros((0, 1), np.int32), x)
    with pytest.raises(ValueError, match="NaN or inf"):
        _core.value_proposals(acquisition, np.zeros((1, 1), np.int32), np.full((3, 2), np.nan))
    with pytest.raises(ValueError, match="wrong number of categorical"):
        _core.value_proposals(acquisition, np.zeros((1, 2), np.int32), x)
    with pytest.raises(ValueError, match="incumbent must be finite"):
        _core.LogExpectedImprovement(gp, math.inf)
    with pytest.raises(ValueError, match="threshold must be finite"):
        _core.LogProbabilityOfFeasibility(gp, math.nan)
    with pytest.raises(ValueError, match="different shapes"):
        one_dimensional = _core.MixedGP(h, x[:, :1], y, np.ones(1), 1.0, 0.5, 1e-3)
        _core.SumOfAcquisitions([acquisition, _core.LogExpectedImprovement(one_dimensional, 0.0)])
    with pytest.raises(ValueError, match="at least one model"):
        _core.SumOfAcquisitions([])
    with pytest.raises(ValueError, match="one set of edges"):
        _core.LogExpectedHypervolumeImprovement(
            [gp, gp], [np.array([0.0, np.inf])], [np.array([[0, 1]], np.int32)], np.zeros((1, 2), np.int32)
        )
    with pytest.raises(ValueError, match="outside the edges"):
        _core.LogExpectedHypervolumeImprovement(
            [gp], [np.array([0.0, np.inf])], [np.array([[0, 2]], np.int32)], np.zeros((1, 1), np.int32)
        )


def test_a_matrix_that_cannot_be_factorised_raises_numerical_error() -> None:
    """Duplicate points without noise: no jitter is added behind the caller's back; the model
    says what it cannot do with the NumericalError the sampler falls back on."""
    h = np.zeros((5, 1), np.int32)
    x = np.tile([[0.3, 0.6]], (5, 1))
    with pytest.raises(_core.NumericalError, match="not positive definite"):
        _core.MixedGP(h, x, np.zeros(5), np.array([0.1, 0.1]), 1.0, 0.5, 0.0)
    with pytest.raises(_core.NumericalError):
        _core.LikelihoodEvaluator(h, x, np.zeros(5))(np.array([-2.0, -2.0, 0.0, -800.0, 0.5]))
    assert issubclass(_core.NumericalError, ArithmeticError)
    gp = _core.MixedGP(h, x, np.zeros(5), np.array([0.1, 0.1]), 1.0, 0.5, 1e-6)
    assert gp.noise == 1e-6


def test_degenerate_data_stays_finite() -> None:
    rng = np.random.default_rng(12)
    # duplicate points with a constant objective at the noise floor (the fit's lower bound)
    h = np.zeros((20, 1), np.int32)
    x = np.tile(rng.random((1, 2)), (20, 1))
    y = np.zeros(20)
    gp = _core.MixedGP(h, x, y, np.array([0.1, 0.1]), 1.0, 0.5, 1e-6)
    mean, var = gp.predict(h[:2], rng.random((2, 2)))
    assert np.all(np.isfinite(mean)) and np.all(var > 0)
    value, gradient = _core.LikelihoodEvaluator(h, x, y)(np.array([-2.0, -2.0, 0.0, math.log(1e-6), 0.5]))
    assert math.isfinite(value) and np.all(np.isfinite(gradient))
    # a single observation and a single category
    gp1 = _core.MixedGP(h[:1], x[:1], np.array([1.0]), np.array([0.3, 0.3]), 1.0, 0.5, 1e-6)
    index, values = _core.value_proposals(_core.LogExpectedImprovement(gp1, 1.0), np.zeros((1, 1), np.int32), rng.random((16, 2)))
    assert np.isfinite(values[0])


def test_mean_and_variance_gradients_match_finite_differences() -> None:
    rng = np.random.default_rng(13)
    h, x, y = random_data(rng, 25, [3], 2)
    gp = _core.MixedGP(h, x, y, np.array([0.4, 0.7]), 1.1, 0.3, 1e-3)
    hq, xq = np.array([[1]], np.int32), rng.uniform(0.1, 0.9, 2)
    _, _, mean_grad, var_grad = gp.predict_with_gradient(hq, xq)
    for i, e in enumerate(np.eye(2)):
        mean_numeric = five_point_derivative(along(lambda z: gp.predict_with_gradient(hq, z)[0], xq, e))
        var_numeric = five_point_derivative(along(lambda z: gp.predict_with_gradient(hq, z)[1], xq, e))
        assert mean_grad[i] == pytest.approx(mean_numeric, rel=1e-6)
        assert var_grad[i] == pytest.approx(var_numeric, rel=1e-5, abs=1e-9)


def test_constrained_value_proposals_match_brute_force() -> None:
    rng = np.random.default_rng(14)
    h, x, y = random_data(rng, 30, [3, 2], 2)
    g = x[:, 0] + 0.3 * h[:, 0] - 0.8  # a constraint value, feasible where <= threshold
    objective = _core.MixedGP(h, x, y, np.array([0.4, 0.6]), 1.0, 0.4, 1e-3)
    constraint = _core.MixedGP(h, x, g, np.array([0.5, 0.5]), 0.5, 0.6, 1e-4)
    combos = np.array(list(itertools.product(range(3), range(2))), dtype=np.int32)
    candidates = rng.random((40, 2))
    for best in (float(y.max()), math.nan):
        feasibility = _core.LogProbabilityOfFeasibility(constraint, 0.1)
        acquisition = (
            feasibility
            if math.isnan(best)
            else _core.SumOfAcquisitions([_core.LogExpectedImprovement(objective, best), feasibility])
        )
        index, value = _core.value_proposals(acquisition, combos, candidates)
        for c, combo in enumerate(combos):
            rows = np.repeat(combo[None], len(candidates), 0).astype(np.int32)
            constraint_mean, constraint_var = constraint.predict(rows, candidates)
            total = scipy.stats.norm.logcdf((0.1 - constraint_mean) / np.sqrt(constraint_var))
            if not math.isnan(best):
                mean, var = objective.predict(rows, candidates)
                total = total + _core.log_expected_improvement(mean, np.sqrt(var), best)
            assert index[c] == int(np.argmax(total))
            assert value[c] == pytest.approx(total.max(), rel=1e-9, abs=1e-12)


def test_constrained_acquisition_gradient_matches_finite_differences() -> None:
    rng = np.random.default_rng(15)
    h, x, y = random_data(rng, 25, [2], 3)
    objective = _core.MixedGP(h, x, y, np.array([0.3, 0.5, 0.7]), 1.0, 0.5, 1e-4)
    constraint = _core.MixedGP(h, x, x[:, 1] - 0.5, np.array([0.4, 0.4, 0.4]), 0.3, 0.5, 1e-4)
    for best in (float(y.max()), math.nan):
        hq, xq = np.array([[1]], np.int32), rng.uniform(0.2, 0.8, 3)
        feasibility = _core.LogProbabilityOfFeasibility(constraint, -0.2)
        acquisition = (
            feasibility
            if math.isnan(best)
            else _core.SumOfAcquisitions([_core.LogExpectedImprovement(objective, best), feasibility])
        )
        _, gradient = acquisition.value_with_gradient(hq, xq)
        for i, e in enumerate(np.eye(3)):
            numeric = five_point_derivative(along(acquisition_value(acquisition, hq), xq, e))
            assert gradient[i] == pytest.approx(numeric, rel=1e-5, abs=1e-7)
