"""VPBO's search initialisation for CoCaBO-S (paper, sec. 5 "VPBO Settings" and sec. 6.3).

The first half of the initial budget is random; in the second half the combination stays
random while x maximises Max-value Entropy Search under the mixed GP fitted so far. This reuses
``optuna_vpbo.gp`` (as VPBOSampler does) with the paper's 200 uniform candidates and
VPBO's model (lambda and output variance learned; a fit once half the budget is in, then every
10 observations).
"""

from __future__ import annotations

import numpy as np

from optuna_vpbo.gp import N_MAX_VALUE_POINTS, max_value_samples, mes_numeric_point, sobol_candidates
from vpbo_benchmarks.baselines.hyperparameters import HyperparameterCache
from vpbo_benchmarks.baselines.strategy import Observations, Point, random_combination, random_point

# Paper, sec. 5: VPBO samples 200 numeric candidates per iteration.
PAPER_N_CANDIDATES = 200


def search_initialization_point(
    data: Observations, n_startup_trials: int, model: HyperparameterCache, rng: np.random.Generator
) -> Point:
    """The next point of an initial design of ``n_startup_trials`` points (half random, half MES).

    ``model`` supplies the hyperparameters; its schedule should start at ``n_startup_trials // 2``.
    """
    if data.n < max(n_startup_trials // 2, 1):
        return random_point(data.n_levels, data.n_numeric, rng)
    hyperparameters = model.get((data.key, "search-initialization"), data.h, data.x, data.y, rng)
    gp = hyperparameters.make_gp(data.h, data.x, data.y)
    h_next = random_combination(data.n_levels, rng)
    if data.n_numeric == 0:
        return h_next, np.zeros(0)
    candidates = data.snap(sobol_candidates(data.n_numeric, PAPER_N_CANDIDATES, rng))
    points = (
        rng.integers(0, data.n_levels, size=(N_MAX_VALUE_POINTS, len(data.n_levels))).astype(np.int32),
        rng.random((N_MAX_VALUE_POINTS, data.n_numeric)),
    )
    max_values = max_value_samples(gp, points, data.h, data.x, float(data.y.max()), rng)
    return h_next, mes_numeric_point(gp, h_next, max_values, candidates)
