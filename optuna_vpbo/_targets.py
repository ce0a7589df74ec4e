"""Objective and constraint values made usable: infinite values clipped, values near the float
limit scaled, several objectives scalarised (ParEGO).

The GP's targets themselves come from the output transforms (``_output_transforms``).
"""

from __future__ import annotations

import hashlib

import numpy as np
from optuna.study import StudyDirection

from optuna_vpbo._once import FirstTime
from optuna_vpbo._optuna_compat import warn

# Weight of the linear term in ParEGO's augmented Chebyshev scalarisation (Knowles 2006).
PAREGO_RHO = 0.05
# Sets of values whose infinite entries were already reported: the models of one trial read the
# same values several times (fit, targets, threshold), the next trial reads them grown.
_INFINITE_REPORTED = FirstTime()
# Values within these magnitudes have squares far from overflow and underflow (even summed over
# millions of observations) and are used as they are.
_SMALLEST_UNSCALED, _LARGEST_UNSCALED = 2.0**-500, 2.0**500


def finite_values(values: np.ndarray, kind: str = "objective") -> np.ndarray:
    """Replace +-inf by the largest / smallest finite value, with a warning (as Optuna's GPSampler)
    once per set of values; ``kind`` ("objective" or "constraint") names them in the warning."""
    values = np.asarray(values, dtype=np.float64)
    infinite = ~np.isfinite(values)
    if not infinite.any():
        return values
    if _INFINITE_REPORTED.first((kind, hashlib.sha256(values.tobytes()).hexdigest())):
        warn(
            f"{int(infinite.sum())} of {len(values)} {kind} values are infinite; VPBOSampler clips them "
            f"to the most extreme finite {kind} values observed."
        )
    finite = values[~infinite]
    low, high = (finite.min(), finite.max()) if finite.size else (0.0, 0.0)
    return np.clip(np.where(np.isnan(values), low, values), low, high)


def unit_scaled(values: np.ndarray) -> np.ndarray:
    """``values`` as they are, unless their largest magnitude lies outside [2^-500, 2^500]: then
    times the power of two that brings it into [0.5, 1), so that their squares neither overflow
    (values on a 1e300 scale) nor underflow. The scaling is exact (no rounding, apart from entries
    below 2^-1022 of the largest), and standardised values do not depend on it."""
    peak = float(np.max(np.abs(values))) if values.size else 0.0
    if peak == 0.0 or not np.isfinite(peak) or _SMALLEST_UNSCALED <= peak <= _LARGEST_UNSCALED:
        return values
    return np.ldexp(values, -int(np.frexp(peak)[1]))


def scalarized_values(
    values: np.ndarray, directions: list[StudyDirection], weights: np.ndarray
) -> np.ndarray:
    """ParEGO's augmented Chebyshev scalarisation (Knowles 2006), as a value to maximise.

    Each objective is turned into "larger is better" and scaled to [0, 1] over the observed
    values; the scalar is min_i w_i f_i + rho sum_i w_i f_i.
    """
    columns = []
    for j, direction in enumerate(directions):
        f = unit_scaled(finite_values(values[:, j]))
        if direction == StudyDirection.MINIMIZE:
            f = -f
        spread = np.ptp(f)
        columns.append((f - f.min()) / spread if spread > 0 else np.zeros_like(f))
    weighted = np.column_stack(columns) * weights
    return weighted.min(axis=1) + PAREGO_RHO * weighted.sum(axis=1)
