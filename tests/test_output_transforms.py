"""Output transforms (``_output_transforms``) against references computed here with numpy/scipy
from their textbook definitions."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest
import scipy.stats
from optuna.study import StudyDirection

from optuna_vpbo._output_transforms import (
    MAX_TARGET_VARIANCE,
    OUTPUT_TRANSFORMS,
    ConstraintStandardize,
    FittedYeoJohnson,
    Standardize,
    YeoJohnson,
    make_output_transform,
    target_variances,
)

MIN, MAX = StudyDirection.MINIMIZE, StudyDirection.MAXIMIZE


def heavy_tailed_values(n: int = 30, seed: int = 0) -> np.ndarray:
    return np.random.default_rng(seed).lognormal(mean=0.0, sigma=1.5, size=n)


def reference_yeo_johnson(z: np.ndarray, lam: float) -> np.ndarray:
    """Yeo and Johnson (2000), eq. 2.1, written out."""
    out = np.empty_like(z)
    pos = z >= 0
    out[pos] = np.log1p(z[pos]) if lam == 0 else ((z[pos] + 1) ** lam - 1) / lam
    out[~pos] = -np.log1p(-z[~pos]) if lam == 2 else -((1 - z[~pos]) ** (2 - lam) - 1) / (2 - lam)
    return out


def zscore(v: np.ndarray) -> np.ndarray:
    return np.asarray(scipy.stats.zscore(v, ddof=0))


@pytest.mark.parametrize("direction", [MIN, MAX])
def test_standardize_orients_and_scales(direction: StudyDirection) -> None:
    values = heavy_tailed_values()
    y = Standardize(direction).fit(values)(values)
    sign = -1.0 if direction == MIN else 1.0
    np.testing.assert_allclose(y, zscore(sign * values), rtol=1e-12, atol=1e-12)
    assert np.argmax(y) == (np.argmin(values) if direction == MIN else np.argmax(values))


def test_standardize_keeps_a_constant_at_zero() -> None:
    assert np.array_equal(Standardize(MAX).fit(np.full(4, 3.0))(np.full(4, 3.0)), np.zeros(4))


def test_yeo_johnson_matches_the_definition_and_keeps_its_exponent() -> None:
    values = heavy_tailed_values()
    fitted = YeoJohnson(MIN).fit(values)
    z = zscore(-values)
    # The exponent maximises the Yeo-Johnson log-likelihood (scipy.stats.yeojohnson_llf).
    assert fitted.exponent is not None
    grid = np.linspace(fitted.exponent - 0.2, fitted.exponent + 0.2, 41)
    assert all(scipy.stats.yeojohnson_llf(fitted.exponent, z) >= scipy.stats.yeojohnson_llf(g, z) - 1e-9 for g in grid)
    np.testing.assert_allclose(fitted(values), zscore(reference_yeo_johnson(z, fitted.exponent)), atol=1e-10)
    # Between refits the exponent stays and only the standardisation follows the new values.
    more = np.concatenate([values, heavy_tailed_values(5, seed=1)])
    expected = zscore(reference_yeo_johnson(zscore(-more), fitted.exponent))
    np.testing.assert_allclose(fitted(more), expected, atol=1e-10)
    assert not np.allclose(fitted(more), YeoJohnson(MIN).fit(more)(more))


def test_yeo_johnson_makes_a_heavy_tail_more_normal() -> None:
    values = heavy_tailed_values(200)
    y = YeoJohnson(MAX).fit(values)(values)
    assert abs(scipy.stats.skew(y)) < 0.2 * abs(scipy.stats.skew(values))


def test_yeo_johnson_without_an_exponent_fits_one_per_call() -> None:
    two = np.array([1.0, 5.0])
    fitted = YeoJohnson(MAX).fit(two)
    assert fitted == FittedYeoJohnson(MAX, None)
    np.testing.assert_array_equal(fitted(two), zscore(two))
    values = heavy_tailed_values(10)
    np.testing.assert_array_equal(fitted(values), YeoJohnson(MAX).fit(values)(values))


def test_infinite_values_are_clipped_with_a_warning() -> None:
    values = np.array([1.0, np.inf, 3.0, -np.inf])
    with pytest.warns(UserWarning, match="infinite"):
        y = Standardize(MAX).fit(values)(values)
    np.testing.assert_allclose(y, zscore(np.array([1.0, 3.0, 3.0, 1.0])))


def test_constraint_threshold_is_the_image_of_zero() -> None:
    g = np.array([-2.0, 0.5, 3.0, 1.0])
    fitted = ConstraintStandardize().fit(g)
    standardized, threshold = fitted(g), fitted.threshold(g)
    np.testing.assert_allclose(standardized, zscore(g), atol=1e-12)
    assert threshold == pytest.approx(-g.mean() / g.std())
    assert np.all((standardized <= threshold) == (g <= 0))


@pytest.mark.parametrize("name", OUTPUT_TRANSFORMS)
def test_factory_builds_each_transform(name: str) -> None:
    transform = make_output_transform(name, MIN)
    assert type(transform) is {"standardize": Standardize, "yeo-johnson": YeoJohnson}[name]
    assert transform.direction == MIN


@pytest.mark.parametrize("name", ["Standardize", "box-cox", "", None])
def test_factory_rejects_unknown_names(name: object) -> None:
    with pytest.raises(ValueError, match="output_transform must be one of"):
        make_output_transform(name, MAX)  # type: ignore[arg-type]


def test_direction_is_validated() -> None:
    with pytest.raises(ValueError, match="direction"):
        Standardize("minimize")  # type: ignore[arg-type]


def _frozen_yeo_johnson(values: np.ndarray, direction: StudyDirection, exponent: float) -> Callable[[float], float]:
    """The fitted Yeo-Johnson transform of ``values`` as a function of one value, every
    standardisation constant frozen at ``values``' (SciPy's Yeo-Johnson)."""
    oriented = values if direction == StudyDirection.MAXIMIZE else -values
    mean1, sd1 = oriented.mean(), oriented.std()
    transformed = scipy.stats.yeojohnson((oriented - mean1) / sd1, lmbda=exponent)
    mean2, sd2 = transformed.mean(), transformed.std()
    sign = 1.0 if direction == StudyDirection.MAXIMIZE else -1.0
    return lambda v: float((scipy.stats.yeojohnson(np.atleast_1d((sign * v - mean1) / sd1), lmbda=exponent)[0] - mean2) / sd2)


@pytest.mark.parametrize("direction", [StudyDirection.MINIMIZE, StudyDirection.MAXIMIZE])
def test_slopes_are_the_derivatives_with_the_standardisation_frozen(direction: StudyDirection) -> None:
    rng = np.random.default_rng(7)
    values = np.exp(rng.standard_normal(40))  # a heavy tail: an exponent far from 1
    fitted = YeoJohnson(direction).fit(values)
    assert fitted.exponent is not None and abs(fitted.exponent - 1.0) > 0.2
    frozen = _frozen_yeo_johnson(values, direction, fitted.exponent)
    np.testing.assert_allclose(frozen(values[0]), fitted(values)[0], rtol=1e-10)
    eps = 1e-6
    numeric = [(frozen(v + eps) - frozen(v - eps)) / (2 * eps) for v in values]
    np.testing.assert_allclose(fitted.slopes(values), numeric, rtol=1e-5)
    standardize = Standardize(direction).fit(values)
    sign = 1.0 if direction == StudyDirection.MAXIMIZE else -1.0
    np.testing.assert_allclose(standardize.slopes(values), sign / values.std(), rtol=1e-12)


def test_target_variances_scale_by_the_squared_slope() -> None:
    values = np.array([1.0, 2.0, 4.0, 8.0])
    fitted = Standardize(StudyDirection.MINIMIZE).fit(values)
    assert target_variances(fitted, values, None) is None
    variances = target_variances(fitted, values, np.array([0.0, 1.0, np.inf, 4.0]))
    assert variances is not None
    np.testing.assert_allclose(variances, [0.0, 1.0 / values.var(), MAX_TARGET_VARIANCE, 4.0 / values.var()])


@pytest.mark.parametrize("scale", [1e300, 5e307, 1e-300])
@pytest.mark.parametrize("transform", [Standardize, YeoJohnson])
def test_slopes_of_extreme_values_are_finite_and_scale_with_the_values(
    transform: type[Standardize] | type[YeoJohnson], scale: float
) -> None:
    """Values near the float limit: slopes are computed as ``standardize`` scales (a power of
    two), so the spread does not overflow into a zero slope (the predictions divide by it)."""
    rng = np.random.default_rng(2)
    base = rng.standard_normal(40) + 0.5
    direction = StudyDirection.MINIMIZE
    ordinary = transform(direction).fit(base).slopes(base)
    with np.errstate(over="raise", invalid="raise", divide="raise"):  # underflow is numpy's silent default
        extreme = transform(direction).fit(base * scale).slopes(base * scale)
    assert np.all(np.isfinite(extreme)) and np.all(extreme != 0)
    # Scaled values round differently, and Yeo-Johnson's fitted exponent follows by ~1e-8; slopes
    # near 2e-308 lose digits as subnormals.
    rel = 1e-9 if transform is Standardize and scale != 5e307 else 1e-6
    np.testing.assert_allclose(extreme * scale, ordinary, rtol=rel)
