"""Output transforms: objective or constraint values -> the targets of their GP.

An ``OutputTransform`` is fitted once per model fit (``fit(values)``) and the fitted transform
is kept with the GP hyperparameters until the next refit; calling it on the current values
(``fitted(values)``) gives the targets: to maximise, finite, transformed, standardised. What a
fit keeps is only what must stay stable between refits (the Yeo-Johnson exponent); the
standardisation is always that of the values passed to the call, as the data grow between refits.

For heavy-tailed objectives, as strong peers do: the Yeo-Johnson power transform with
maximum-likelihood exponent (HEBO, Cowen-Rivers et al. 2022). ``Standardize`` is the paper's plain
standardisation.
Constraints (values <= 0 feasible, Gardner et al. 2014) are standardised and keep the image of
the feasibility bound 0 (``ConstraintStandardize``).
"""

from __future__ import annotations

import abc
import dataclasses

import numpy as np
import scipy.stats
from optuna.study import StudyDirection

from optuna_vpbo._targets import finite_values, unit_scaled

OUTPUT_TRANSFORMS = ("standardize", "yeo-johnson")


class FittedTransform(abc.ABC):
    """A fitted output transform: values (n,) -> targets (n,) for the GP."""

    @abc.abstractmethod
    def __call__(self, values: np.ndarray) -> np.ndarray: ...

    def slopes(self, values: np.ndarray) -> np.ndarray:
        """d target_i / d value_i of ``self(values)`` with the call's standardisations held fixed:
        what turns a value's standard deviation into the target's (a first-order delta method).
        Objective transforms only."""
        raise NotImplementedError(f"{type(self).__name__} has no slopes")


class OutputTransform(abc.ABC):
    """How values of one direction become targets; ``fit`` returns the fitted transform."""

    def __init__(self, direction: StudyDirection = StudyDirection.MAXIMIZE) -> None:
        if direction not in (StudyDirection.MINIMIZE, StudyDirection.MAXIMIZE):
            raise ValueError(f"direction must be MINIMIZE or MAXIMIZE, got {direction!r}.")
        self.direction = direction

    @abc.abstractmethod
    def fit(self, values: np.ndarray) -> FittedTransform: ...


def standardize(y: np.ndarray) -> np.ndarray:
    """Zero mean and unit (population) standard deviation; a constant stays centred at 0. Values
    near the float limit are scaled first (``unit_scaled``: exact, the same result otherwise)."""
    y = unit_scaled(y)
    spread = y.std()
    return (y - y.mean()) / (spread if spread > 0 else 1.0)


def _spread(y: np.ndarray) -> float:
    """The standard deviation ``standardize`` divides ``y`` by (1 for a constant); for values of
    ordinary magnitude (``_inverse_spread`` for any)."""
    spread = float(np.std(y))
    return spread if spread > 0 else 1.0


def _inverse_spread(y: np.ndarray) -> float:
    """d standardize(y)_i / d y_i: 1 / the standard deviation, computed as ``standardize`` does on
    ``unit_scaled(y)`` with the power of two put back into the inverse (where it underflows
    rather than overflows: values on a 1e300 scale have slopes near 1e-300)."""
    scaled = unit_scaled(y)
    inverse = 1.0 / _spread(scaled)
    if scaled is y:
        return inverse
    return float(np.ldexp(inverse, -int(np.frexp(float(np.max(np.abs(y))))[1])))


def _orientation(direction: StudyDirection) -> float:
    return -1.0 if direction == StudyDirection.MINIMIZE else 1.0


def _to_maximize(values: np.ndarray, direction: StudyDirection) -> np.ndarray:
    """Finite values (``finite_values``), negated for minimisation."""
    y = finite_values(values)
    return -y if direction == StudyDirection.MINIMIZE else y


@dataclasses.dataclass(frozen=True)
class FittedStandardize(FittedTransform):
    direction: StudyDirection

    def __call__(self, values: np.ndarray) -> np.ndarray:
        return standardize(_to_maximize(values, self.direction))

    def slopes(self, values: np.ndarray) -> np.ndarray:
        return np.full(len(values), _orientation(self.direction) * _inverse_spread(_to_maximize(values, self.direction)))


class Standardize(OutputTransform):
    """The paper's transform: orientation to maximisation and standardisation."""

    def fit(self, values: np.ndarray) -> FittedStandardize:
        return FittedStandardize(self.direction)


def _yeo_johnson_exponent(z: np.ndarray) -> float | None:
    """The maximum-likelihood Yeo-Johnson exponent of ``z``; None below 3 distinct-enough values."""
    if len(z) < 3 or np.ptp(z) == 0:
        return None
    return float(scipy.stats.yeojohnson_normmax(z))


@dataclasses.dataclass(frozen=True)
class FittedYeoJohnson(FittedTransform):
    """Standardise, Yeo-Johnson with the fitted ``exponent``, standardise again.

    ``exponent`` None (the fit had fewer than 3 values, or constant ones): each call fits an
    exponent on its own values, and returns them only standardised if it still cannot.
    """

    direction: StudyDirection
    exponent: float | None

    def __call__(self, values: np.ndarray) -> np.ndarray:
        z = standardize(_to_maximize(values, self.direction))
        exponent = self.exponent if self.exponent is not None else _yeo_johnson_exponent(z)
        if exponent is None:
            return z
        return standardize(scipy.stats.yeojohnson(z, lmbda=exponent))

    def slopes(self, values: np.ndarray) -> np.ndarray:
        oriented = _to_maximize(values, self.direction)
        first = _orientation(self.direction) * _inverse_spread(oriented)
        z = standardize(oriented)
        exponent = self.exponent if self.exponent is not None else _yeo_johnson_exponent(z)
        if exponent is None:
            return np.full(len(values), first)
        second = _spread(scipy.stats.yeojohnson(z, lmbda=exponent))
        return first * yeo_johnson_derivative(z, exponent) / second


def yeo_johnson_derivative(z: np.ndarray, exponent: float) -> np.ndarray:
    """d/dz of the Yeo-Johnson transform: (1 + z)^(exponent - 1) for z >= 0, (1 - z)^(1 - exponent)
    below."""
    return np.where(z >= 0, np.power(1.0 + np.abs(z), exponent - 1.0), np.power(1.0 + np.abs(z), 1.0 - exponent))


class YeoJohnson(OutputTransform):
    """Yeo-Johnson power transform (Yeo and Johnson 2000) of the standardised values, its
    exponent fitted by maximum likelihood (``scipy.stats.yeojohnson_normmax``), as in HEBO."""

    def fit(self, values: np.ndarray) -> FittedYeoJohnson:
        z = standardize(_to_maximize(values, self.direction))
        return FittedYeoJohnson(self.direction, _yeo_johnson_exponent(z))


@dataclasses.dataclass(frozen=True)
class FittedConstraintStandardize(FittedTransform):
    """Constraint values standardised; ``threshold`` maps the feasibility bound 0 alike."""

    def __call__(self, values: np.ndarray) -> np.ndarray:
        g = _finite_constraint_values(values)
        center, scale = self._location_scale(g)
        return (g - center) / scale

    def threshold(self, values: np.ndarray) -> float:
        """The image of the bound 0 under the standardisation of ``values``."""
        center, scale = self._location_scale(_finite_constraint_values(values))
        return float(-center / scale)

    @staticmethod
    def _location_scale(g: np.ndarray) -> tuple[float, float]:
        spread = g.std()
        return g.mean(), (spread if spread > 0 else 1.0)


def _finite_constraint_values(values: np.ndarray) -> np.ndarray:
    """Finite constraint values, scaled by a power of two (``unit_scaled``; the bound 0 stays 0)."""
    return unit_scaled(finite_values(values, kind="constraint"))


class ConstraintStandardize(OutputTransform):
    """Constraints are modelled as they are (no orientation): values <= 0 are feasible."""

    def fit(self, values: np.ndarray) -> FittedConstraintStandardize:
        return FittedConstraintStandardize()


# Targets are standardised: an extra noise variance beyond this says nothing more than "unknown".
MAX_TARGET_VARIANCE = 1e6


def target_variances(fitted: FittedTransform, values: np.ndarray, value_variances: np.ndarray | None) -> np.ndarray | None:
    """The variances of ``values`` (in their own units; None: none) in the units of the targets
    ``fitted(values)``: times the squared slope of the transform at each value."""
    if value_variances is None:
        return None
    variances = np.asarray(value_variances, dtype=np.float64) * fitted.slopes(values) ** 2
    return np.clip(np.nan_to_num(variances, nan=0.0, posinf=MAX_TARGET_VARIANCE), 0.0, MAX_TARGET_VARIANCE)


_BY_NAME: dict[str, type[OutputTransform]] = {
    "standardize": Standardize,
    "yeo-johnson": YeoJohnson,
}


def validate_output_transform(name: object) -> None:
    """Raise a ValueError unless ``name`` is one of ``OUTPUT_TRANSFORMS``."""
    if not isinstance(name, str) or name not in _BY_NAME:
        raise ValueError(f"output_transform must be one of {OUTPUT_TRANSFORMS}, got {name!r}.")


def make_output_transform(name: str, direction: StudyDirection) -> OutputTransform:
    """The objective transform called ``name`` (one of ``OUTPUT_TRANSFORMS``) for ``direction``."""
    validate_output_transform(name)
    return _BY_NAME[name](direction)
