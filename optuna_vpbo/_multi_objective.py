"""Several objectives: log EHVI value proposals over one GP per objective for 2 or 3 objectives
(``_acquisition.log_expected_hypervolume_improvement``), ParEGO beyond.

With ParEGO (Knowles 2006) each trial scalarises the objectives by a random augmented Chebyshev
weighting and models the scalar with one GP; it serves more than 3 objectives (box
decompositions grow as (front size)^(M - 1)), spaces beyond the exhaustive regime, and the MES
model of the initial design.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from optuna.study import StudyDirection

from optuna_vpbo._hypervolume_improvement import pareto_mask
from optuna_vpbo._proposals import SCREEN_ABOVE
from optuna_vpbo._targets import scalarized_values

MAX_EHVI_OBJECTIVES = 3
# Refinement under EHVI starts from the chosen row's points on the observed front, at most this
# many: EHVI peaks in the gaps of the front, next to its points (docs/decisions.md).
MAX_FRONT_STARTS = 16


def uses_hypervolume(method: str, n_objectives: int, n_combinations: float, max_enumerated: int) -> bool:
    """Whether a study gets EHVI proposals: 2-3 objectives and an exhaustive set of rows."""
    return (
        method == "ehvi"
        and 1 < n_objectives <= MAX_EHVI_OBJECTIVES
        and n_combinations <= min(max_enumerated, SCREEN_ABOVE)
    )


def scalar_values(
    values: np.ndarray, directions: Sequence[StudyDirection], rng: np.random.Generator
) -> tuple[np.ndarray, StudyDirection]:
    """The objective values (n x m) as one value per trial and its direction: several objectives
    are scalarised by ParEGO with random weights."""
    if len(directions) == 1:
        return values[:, 0], directions[0]
    weights = rng.dirichlet(np.ones(len(directions)))
    return scalarized_values(values, list(directions), weights), StudyDirection.MAXIMIZE


def objective_columns(
    values: np.ndarray, directions: Sequence[StudyDirection], key: tuple[str, ...], hypervolume: bool,
    rng: np.random.Generator,
) -> list[tuple[np.ndarray, tuple[str, ...], StudyDirection]]:
    """The objective columns a trial models, each with its model cache key (``key`` extended per
    objective) and direction: one per objective of ``values`` (n x m) under log EHVI
    (``hypervolume``), else one value per trial (``scalar_values``)."""
    if hypervolume:
        return [(values[:, j], (*key, f"objective:{j}"), d) for j, d in enumerate(directions)]
    scalar, direction = scalar_values(values, directions, rng)
    return [(scalar, key, direction)]


def feasible_front(targets: np.ndarray, feasible: np.ndarray) -> np.ndarray:
    """Indices of the observations on the Pareto front of the feasible ones, in trial order."""
    return np.flatnonzero(feasible)[pareto_mask(targets[feasible])]
