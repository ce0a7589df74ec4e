"""Objective values made usable: infinite values clipped, several objectives scalarised (ParEGO).

The GP's targets themselves come from the output transforms (``_output_transforms``).
"""

from __future__ import annotations

import numpy as np
from optuna.study import StudyDirection

from optuna_vpbo._optuna_compat import warn

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
