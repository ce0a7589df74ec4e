"""Objective values -> the GP's targets: maximisation, finite, standardised."""

from __future__ import annotations

import numpy as np
from optuna._warnings import optuna_warn
from optuna.study import StudyDirection


def finite_values(values: np.ndarray) -> np.ndarray:
    """Replace +-inf by the largest / smallest finite value, with a warning (as Optuna's GPSampler)."""
    values = np.asarray(values, dtype=np.float64)
    infinite = ~np.isfinite(values)
    if not infinite.any():
        return values
    optuna_warn(
        f"{int(infinite.sum())} objective value(s) are infinite; VPBOSampler clips them to the most "
        "extreme finite values observed."
    )
    finite = values[~infinite]
    low, high = (finite.min(), finite.max()) if finite.size else (0.0, 0.0)
    return np.clip(np.where(np.isnan(values), low, values), low, high)


def standardized_targets(values: np.ndarray, direction: StudyDirection) -> np.ndarray:
    """Targets to maximise with zero mean and unit variance (unit scale for constant values)."""
    y = finite_values(values)
    if direction == StudyDirection.MINIMIZE:
        y = -y
    spread = y.std()
    return (y - y.mean()) / (spread if spread > 0 else 1.0)
