"""Objective values -> the GP's targets: maximisation, finite, transformed, standardised.

Output transforms for heavy-tailed objectives, as used by strong peers: Yeo-Johnson power
transform with maximum-likelihood exponent (HEBO, Cowen-Rivers et al. 2022) and the rank-based
Gaussian copula (Casmopolitan, Wan et al. 2021). "standardize" is the paper's plain
standardisation.
"""

from __future__ import annotations

import dataclasses
from typing import Protocol

import numpy as np
import scipy.special
import scipy.stats
from optuna.study import StudyDirection

from optuna_vpbo._optuna_compat import warn

OUTPUT_TRANSFORMS = ("standardize", "yeo-johnson", "copula")
# Weight of the linear term in ParEGO's augmented Chebyshev scalarisation (Knowles 2006).
PAREGO_RHO = 0.05


def finite_values(values: np.ndarray) -> np.ndarray:
    """Replace +-inf by the largest / smallest finite value, with a warning (as Optuna's GPSampler)."""
    values = np.asarray(values, dtype=np.float64)
    infinite = ~np.isfinite(values)
    if not infinite.any():
        return values
    warn(
        f"{int(infinite.sum())} objective value(s) are infinite; VPBOSampler clips them to the most "
        "extreme finite values observed."
    )
    finite = values[~infinite]
    low, high = (finite.min(), finite.max()) if finite.size else (0.0, 0.0)
    return np.clip(np.where(np.isnan(values), low, values), low, high)


def _standardize(y: np.ndarray) -> np.ndarray:
    spread = y.std()
    return (y - y.mean()) / (spread if spread > 0 else 1.0)


def _yeo_johnson(z: np.ndarray, exponent: float | None) -> tuple[np.ndarray, float | None]:
    if exponent is None:
        if len(z) < 3 or np.ptp(z) == 0:
            return z, None
        exponent = float(scipy.stats.yeojohnson_normmax(z))
    return _standardize(scipy.stats.yeojohnson(z, lmbda=exponent)), exponent


def _copula(y: np.ndarray) -> np.ndarray:
    ranks = scipy.stats.rankdata(y)  # ties share their mean rank
    return _standardize(scipy.special.ndtri((ranks - 0.5) / len(y)))


def transformed_targets(
    values: np.ndarray, direction: StudyDirection, transform: str, exponent: float | None = None
) -> tuple[np.ndarray, float | None]:
    """Targets to maximise, transformed and scaled to zero mean and unit variance.

    For Yeo-Johnson, ``exponent`` fixes the power (the fitted one is returned, so that it can be
    reused between refits); None fits it by maximum likelihood.
    """
    y = finite_values(values)
    if direction == StudyDirection.MINIMIZE:
        y = -y
    if transform == "standardize":
        return _standardize(y), None
    if transform == "yeo-johnson":
        return _yeo_johnson(_standardize(y), exponent)
    if transform == "copula":
        return _copula(y), None
    raise ValueError(f"Unknown output transform {transform!r}; choose one of {OUTPUT_TRANSFORMS}.")


def scalarized_values(
    values: np.ndarray, directions: list[StudyDirection], weights: np.ndarray
) -> np.ndarray:
    """ParEGO's augmented Chebyshev scalarisation (Knowles 2006), as a value to maximise.

    Each objective is turned into "larger is better" and scaled to [0, 1] over the observed
    values; the scalar is min_i w_i f_i + rho sum_i w_i f_i.
    """
    columns = []
    for j, direction in enumerate(directions):
        f = finite_values(values[:, j])
        if direction == StudyDirection.MINIMIZE:
            f = -f
        spread = np.ptp(f)
        columns.append((f - f.min()) / spread if spread > 0 else np.zeros_like(f))
    weighted = np.column_stack(columns) * weights
    return weighted.min(axis=1) + PAREGO_RHO * weighted.sum(axis=1)


def standardized_constraint(values: np.ndarray) -> tuple[np.ndarray, float]:
    """Constraint values standardised for their GP, and the image of the feasibility bound 0."""
    g = finite_values(values)
    center, spread = g.mean(), g.std()
    scale = spread if spread > 0 else 1.0
    return (g - center) / scale, float(-center / scale)


class FittedTransform(Protocol):
    """Objective (or constraint) values -> the GP's targets, with what the fit fixed."""

    def __call__(self, values: np.ndarray) -> np.ndarray: ...


class OutputTransform(Protocol):
    def fit(self, values: np.ndarray) -> FittedTransform: ...


@dataclasses.dataclass(frozen=True)
class ObjectiveTransform:
    """``transformed_targets`` of one objective; its fit fixes the Yeo-Johnson exponent, the
    standardisation follows the current values."""

    name: str
    direction: StudyDirection
    exponent: float | None = None

    def fit(self, values: np.ndarray) -> ObjectiveTransform:
        _, exponent = transformed_targets(values, self.direction, self.name)
        return dataclasses.replace(self, exponent=exponent)

    def __call__(self, values: np.ndarray) -> np.ndarray:
        return transformed_targets(values, self.direction, self.name, self.exponent)[0]


@dataclasses.dataclass(frozen=True)
class ConstraintTransform:
    """``standardized_constraint`` of one constraint's values (nothing to fit)."""

    def fit(self, values: np.ndarray) -> ConstraintTransform:
        return self

    def __call__(self, values: np.ndarray) -> np.ndarray:
        return standardized_constraint(values)[0]
