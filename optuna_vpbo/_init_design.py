"""Search initialisation (VPBO paper, sec. 5, "VPBO Settings").

The first half of the initial budget is random (``random_design_point``); in the second half
the categorical part stays random while the numeric part maximises Max-value Entropy Search (Wang
& Jegelka 2017) under the GP fitted so far, so that the initial data already informs the
surrogate (``mes_design_point``).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from optuna_vpbo import _core
from optuna_vpbo._models import ObjectiveModel
from optuna_vpbo._observations import Observations
from optuna_vpbo._proposals import Repeats
from optuna_vpbo._tree_encoder import INACTIVE_FILL, TreeEncoder

# Random (h, x) points on which the distribution of the maximum value is approximated.
N_MAX_VALUE_POINTS = 1000
# Samples of the maximum value (BoTorch's default).
N_MAX_VALUE_SAMPLES = 10
# Random rows the initial design draws at most to find a point that is no pruned or failed trial.
MAX_DESIGN_DRAWS = 16


def random_design_point(observed: Observations, complete_repeats: str, rng: np.random.Generator) -> dict[str, Any]:
    """The parameters of a trial of the random part of the initial design: none (Optuna's
    random sampling draws them), or, in a discrete space under ``complete_repeats="when-noisy"``,
    a random point that repeats no finished trial, redrawn up to ``MAX_DESIGN_DRAWS`` times (among
    a few hundred configurations, eight random draws coincide in about one study in four)."""
    if complete_repeats != "when-noisy" or not observed.complete or not observed.encoder.is_discrete():
        return {}
    encoder, repeats = observed.encoder, observed.repeats(complete_too=True)  # grid points: any fraction
    for _ in range(MAX_DESIGN_DRAWS):
        h, x = random_points(encoder, 1, rng)
        x = encoder.snap(x, encoder.numeric_masks(h)[0])
        if not repeats.contains(h[0], x[0]):
            return encoder.decode(h[0], x[0])
    return {}


def mes_design_point(
    model: ObjectiveModel, observed: Observations, candidates: np.ndarray, repeats: Repeats, rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray]:
    """The second half of the initial design, as (categorical codes, numeric point): a random
    row, its numeric part the ``candidates`` point of highest MES under ``model``; another random
    row while the point repeats one of ``repeats`` (``MAX_DESIGN_DRAWS`` draws). Where the
    complete trials are among ``repeats`` (``_repeat_policy``), MES chooses among the candidates
    that repeat none."""
    encoder = observed.encoder
    points = random_points(encoder, N_MAX_VALUE_POINTS, rng)
    max_values = max_value_samples(model.gp, points, observed.h, observed.x, float(model.targets.max()), rng)
    complete_included = len(repeats) > len(observed.pruned) + len(observed.failed)
    for _ in range(MAX_DESIGN_DRAWS):
        row = encoder.random_rows(1, rng)[0]
        mask = encoder.numeric_masks(row.reshape(1, -1))[0]
        snapped = encoder.snap(candidates, mask)
        if complete_included and encoder.n_numeric:
            free = snapped[~repeats.mask(row, snapped)]
            snapped = free if len(free) else snapped
        x_next = mes_numeric_point(model.gp, row, max_values, snapped) if encoder.n_numeric else np.zeros(0)
        if not repeats.contains(row, x_next):
            break
    return row, x_next


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
