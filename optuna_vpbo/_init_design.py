"""Search initialisation (VPBO paper, sec. 5, "VPBO Settings").

The first half of the initial budget is random; in the second half the categorical part stays
random while the numeric part maximises Max-value Entropy Search (Wang & Jegelka 2017) under the
GP fitted so far, so that the initial data already informs the surrogate.
"""

from __future__ import annotations

import numpy as np

from optuna_vpbo import _core
from optuna_vpbo._tree_encoder import INACTIVE_FILL, TreeEncoder

# Random (h, x) points on which the distribution of the maximum value is approximated.
N_MAX_VALUE_POINTS = 1000
# Samples of the maximum value (BoTorch's default).
N_MAX_VALUE_SAMPLES = 10


def random_points(encoder: TreeEncoder, count: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """Points (h, x) drawn as random sampling would draw them, inactive dimensions at the fill."""
    h = encoder.random_rows(count, rng)
    x = rng.random((count, encoder.n_numeric))
    x[~encoder.numeric_masks(h)] = INACTIVE_FILL
    return h, x


def max_value_samples(
    gp: _core.MixedGP,
    points: tuple[np.ndarray, np.ndarray],
    observed_h: np.ndarray,
    observed_x: np.ndarray,
    max_observed: float,
    rng: np.random.Generator,
) -> np.ndarray:
    """Gumbel samples of the maximum of f over random ``points`` (h, x) of the space and the data."""
    h, x = points
    mean, variance = gp.predict(np.vstack([h, observed_h]), np.vstack([x, observed_x]))
    uniforms = rng.random(N_MAX_VALUE_SAMPLES)
    return _core.sample_max_values_gumbel(mean, np.sqrt(variance), uniforms, max_observed)


def mes_numeric_point(gp: _core.MixedGP, row: np.ndarray, max_values: np.ndarray, candidates: np.ndarray) -> np.ndarray:
    """The candidate x that maximises MES for the fixed categorical row."""
    h_rows = np.repeat(row.reshape(1, -1), len(candidates), axis=0).astype(np.int32)
    mean, variance = gp.predict(h_rows, candidates)
    values = _core.max_value_entropy_search(mean, np.sqrt(variance), max_values)
    return candidates[int(np.argmax(values))]
