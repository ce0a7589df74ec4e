"""Optuna distributions <-> the (h, x) encoding of the native core.

Categorical parameters become integer codes ``h`` (the choice's index, Optuna's internal
representation); float and int parameters become ``x`` in [0, 1]. As in Optuna's GPSampler
(``optuna/_gp/search_space.py``), log parameters are scaled in log space, and parameters on a
grid (int, or float with ``step``) are scaled over [low - step / 2, high + step / 2] so that
every grid point owns an interval of equal width; decoding rounds to the nearest grid point, so
decoded values lie exactly on Optuna's grid and are native ``int`` / ``float``. Continuous floats
decode strictly inside their bounds (``BOUND_MARGIN``): many objectives cannot take a bound (a
log, a ratio, a fraction that must be positive), and an optimum on the bound is a hair away.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
from optuna.distributions import (
    BaseDistribution,
    CategoricalDistribution,
    FloatDistribution,
    IntDistribution,
)

# Continuous floats decode at least this fraction of their (log) range inside their bounds.
BOUND_MARGIN = 1e-6
# Two values of a float are the same configuration within this fraction of its (log) range
# (a pruned or failed trial is not proposed again: ``_proposals.Repeats``); ints must be equal.
SAME_VALUE_FRACTION = 1e-4
SAME_GRID_POINT = 1e-9


@dataclasses.dataclass(frozen=True)
class _NumericScale:
    """Maps one float or int distribution onto [0, 1] and back."""

    low: float  # bounds in the scaled space (log applied, half steps added)
    high: float
    log: bool
    step: float | None  # grid spacing in the original space, None for continuous
    is_int: bool
    distribution: FloatDistribution | IntDistribution

    @classmethod
    def of(cls, dist: FloatDistribution | IntDistribution) -> _NumericScale:
        is_int = isinstance(dist, IntDistribution)
        step = None if dist.log else dist.step
        if is_int and dist.log:
            low, high = math.log(dist.low - 0.5), math.log(dist.high + 0.5)
        elif dist.log:
            low, high = math.log(dist.low), math.log(dist.high)
        elif step is not None:
            low, high = dist.low - 0.5 * step, dist.high + 0.5 * step
        else:
            low, high = dist.low, dist.high
        return cls(float(low), float(high), dist.log, step, is_int, dist)

    def encode(self, value: float) -> float:
        return float(self.encode_many([value])[0])

    def encode_many(self, values: Sequence[float]) -> np.ndarray:
        """Encoded values in [0, 1], vectorised (``math.log`` as in Optuna's own encoding)."""
        v = np.array([math.log(value) for value in values] if self.log else values, dtype=np.float64)
        if self.high == self.low:
            return np.full(len(v), 0.5)
        return np.clip((v - self.low) / (self.high - self.low), 0.0, 1.0)

    def decode(self, unit: float) -> int | float:
        dist = self.distribution
        unit = min(1.0, max(0.0, float(unit)))
        v = self.low + unit * (self.high - self.low)
        if self.log:
            v = math.exp(v)
        if self.is_int:
            grid = 1 if dist.log or dist.step is None else dist.step  # an int's step is never None
            k = round((v - dist.low) / grid)
            return int(min(dist.high, max(dist.low, dist.low + k * grid)))
        if self.step is not None:
            n_steps = int(round((dist.high - dist.low) / self.step))
            k = min(max(int(round((v - dist.low) / self.step)), 0), n_steps)
            # The top grid point is `high` itself: low + n * step can miss it by an ulp.
            return float(dist.high) if k == n_steps else float(min(dist.high, dist.low + k * self.step))
        unit = min(1.0 - BOUND_MARGIN, max(BOUND_MARGIN, unit))
        v = self.low + unit * (self.high - self.low)
        return _strictly_inside(math.exp(v) if self.log else v, float(dist.low), float(dist.high))

    def repeat_tolerance(self, fraction: float = SAME_VALUE_FRACTION) -> float:
        """``fraction`` of the range in encoded units (ints: the same grid point)."""
        if self.is_int:
            return SAME_GRID_POINT
        if self.step is None:
            return fraction
        span = self.distribution.high - self.distribution.low
        return fraction * span / (span + self.step)

    @property
    def on_grid(self) -> bool:
        """Whether the parameter takes grid values only (an int, or a float with a step)."""
        return self.is_int or self.step is not None

    def grid_units(self) -> np.ndarray | None:
        """The encodings of every grid point in increasing order (None: a continuous float)."""
        if not self.on_grid:
            return None
        grid, n_steps = self._grid()
        return self._grid_encoding(np.arange(n_steps + 1), grid)

    def snap(self, units: np.ndarray) -> np.ndarray:
        """Move encoded values to the encodings of their nearest grid points (vectorised)."""
        if not self.on_grid:
            return units
        v = self.low + np.clip(units, 0.0, 1.0) * (self.high - self.low)
        if self.log:
            v = np.exp(v)
        grid, n_steps = self._grid()
        return self._grid_encoding(np.clip(np.round((v - self.distribution.low) / grid), 0, n_steps), grid)

    def _grid(self) -> tuple[float, int]:
        """The grid spacing in the original space and the number of steps from low to high (on a grid)."""
        dist = self.distribution
        grid = 1 if self.log or dist.step is None else dist.step  # not None: on a grid
        return grid, round((dist.high - dist.low) / grid)

    def _grid_encoding(self, steps: np.ndarray, grid: float) -> np.ndarray:
        """The encodings of the grid points ``steps`` steps above low."""
        values = self.distribution.low + steps * grid
        scaled = np.log(values) if self.log else values
        return np.clip((scaled - self.low) / (self.high - self.low), 0.0, 1.0)


def _strictly_inside(value: float, low: float, high: float) -> float:
    """``value`` moved off the bounds by an ulp if round-off put it on (or beyond) one."""
    if low >= high:
        return low
    if value <= low:
        return min(math.nextafter(low, high), high)
    if value >= high:
        return max(math.nextafter(high, low), low)
    return value


class MixedSpaceEncoder:
    """The encoding of one relative search space: parameter order, levels, scales.

    Parameters are taken in sorted name order so that the encoding does not depend on the order
    in which Optuna reports them. Single-value distributions must be left out by the caller.
    """

    def __init__(self, search_space: Mapping[str, BaseDistribution]) -> None:
        self.categorical_names: list[str] = []
        self.numeric_names: list[str] = []
        self._categoricals: dict[str, CategoricalDistribution] = {}
        self._scales: dict[str, _NumericScale] = {}
        for name in sorted(search_space):
            dist = search_space[name]
            if isinstance(dist, CategoricalDistribution):
                self.categorical_names.append(name)
                self._categoricals[name] = dist
            elif isinstance(dist, (FloatDistribution, IntDistribution)):
                self.numeric_names.append(name)
                self._scales[name] = _NumericScale.of(dist)
            else:
                raise ValueError(f"VPBOSampler does not support the distribution {dist!r} of '{name}'.")
        self.n_levels = np.array(
            [len(self._categoricals[n].choices) for n in self.categorical_names], dtype=np.int64
        )

    @property
    def n_categorical(self) -> int:
        return len(self.categorical_names)

    @property
    def n_numeric(self) -> int:
        return len(self.numeric_names)

    @property
    def n_combinations(self) -> int:
        """Number of categorical combinations (1 when there is no categorical parameter)."""
        return int(np.prod(self.n_levels, dtype=np.float64)) if self.n_categorical else 1

    def encode(self, params_list: Sequence[Mapping[str, Any]]) -> tuple[np.ndarray, np.ndarray]:
        """Encode trials' parameter dicts into ``h`` (n x k int32) and ``x`` (n x d float)."""
        h = np.zeros((len(params_list), self.n_categorical), dtype=np.int32)
        x = np.zeros((len(params_list), self.n_numeric), dtype=np.float64)
        # Column by column: one vectorised scaling per parameter rather than per value.
        for j, name in enumerate(self.categorical_names):
            to_code = self._categoricals[name].to_internal_repr
            h[:, j] = [int(to_code(params[name])) for params in params_list]
        for j, name in enumerate(self.numeric_names):
            x[:, j] = self._scales[name].encode_many([params[name] for params in params_list])
        return h, x

    def decode_categorical(self, name: str, code: int) -> Any:
        return self._categoricals[name].to_external_repr(int(code))

    def decode(self, h: np.ndarray, x: np.ndarray) -> dict[str, Any]:
        """Decode one point into Optuna parameter values (native Python types, on the grids)."""
        params: dict[str, Any] = {}
        for j, name in enumerate(self.categorical_names):
            params[name] = self.decode_categorical(name, h[j])
        for j, name in enumerate(self.numeric_names):
            params[name] = self._scales[name].decode(float(x[j]))
        return params

    def is_discrete(self) -> bool:
        """Whether every numeric parameter is on a grid (an int, or a float with a step): a space
        of countably many configurations, where a random draw can repeat an earlier one."""
        return all(scale.on_grid for scale in self._scales.values())

    def repeat_tolerance(self, fraction: float = SAME_VALUE_FRACTION) -> np.ndarray:
        """Per numeric dimension (d,), how close two encoded values are the same configuration:
        floats within ``fraction`` of their (log) range."""
        return np.array([self._scales[name].repeat_tolerance(fraction) for name in self.numeric_names], dtype=np.float64)

    def grid_units(self) -> list[np.ndarray | None]:
        """Per numeric dimension, the encodings of its grid points (None: a continuous float)."""
        return [self._scales[name].grid_units() for name in self.numeric_names]

    def round_to_grid(self, x: np.ndarray) -> np.ndarray:
        """Snap encoded numeric points (m x d) to the encodings of their grid points, so that the
        acquisition is scored where a trial would really be evaluated."""
        out = np.array(x, dtype=np.float64, copy=True)
        for j, name in enumerate(self.numeric_names):
            out[:, j] = self._scales[name].snap(out[:, j])
        return out
