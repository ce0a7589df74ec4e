"""The sampler's Gaussian-process machinery, public for algorithms built on the same model.

VPBOSampler is the product; this module names the few pieces of its inside that other code may
build on, so that such code depends on them as on any public API: the benchmark lab's paper
baselines (CoCaBO, One-hot BO, EXP3BO, Bandit-BO and RandomBO run on this GP, its fit, the MES
step of search initialisation, the Sobol candidates and the L-BFGS-B refinement) and cost models
of the sampler's work (the constants at the end). Re-exports only, no logic of its own.

Conventions: a point is ``(h, x)``, ``h`` the categorical codes (``int32``, one column per
categorical variable, values ``0 .. n_levels - 1``) and ``x`` the numeric part scaled to
``[0, 1]^d``; targets ``y`` are to be maximised, standardised (``Standardize``). ``MixedGP`` mixes an
overlap kernel on ``h`` with an ARD Matern-5/2 kernel on ``x`` (weight ``lam`` on the Matern part)::

    hyperparameters = fit_hyperparameters(h, x, y, rng=rng, n_restarts=3)
    gp = hyperparameters.make_gp(h, x, y)
    mean, variance = gp.predict(h_new, x_new)

Names:

- ``MixedGP``: the native GP (``predict``, ``predict_with_gradient``), built by
  ``GPHyperparameters.make_gp``.
- ``GPHyperparameters``, ``fit_hyperparameters``: the hyperparameters and their multi-start
  L-BFGS-B fit on the log marginal likelihood; ``LAMBDA_BOUNDS`` and ``VARIANCE_BOUNDS`` are the
  fit's default bounds on the kernel mix and the output variance (equal bounds fix a value).
- ``sobol_candidates``: scrambled Sobol points in ``[0, 1]^d``.
- ``refine``: L-BFGS-B on the numeric part of one row of any acquisition that has
  ``value_with_gradient(h_row, x)``, snapped to the parameters' grids.
- ``max_value_samples``, ``mes_numeric_point``, ``N_MAX_VALUE_POINTS``: Max-value Entropy Search
  as the second half of the initial design uses it (Gumbel samples of the maximum over random
  points, then the candidate that maximises MES for a fixed row).
- ``Standardize``, ``finite_values``: the paper's output transform (orientation to maximisation,
  standardisation) and the clipping of infinite values that precedes every transform.
- ``one_blas_thread``: the context in which the sampler samples (one BLAS thread, process-wide,
  shared with every sampler of the process).
- ``GP_MAX_POINTS``, ``N_SEED_TRIALS``, ``SCREEN_ABOVE``, ``N_SCREEN_CANDIDATES``, ``N_SCREENED``,
  ``N_NEIGHBOUR_SEEDS``: the sizes that set the work of a trial: the most training points a GP
  keeps, the best trials whose neighbourhoods are searched in a huge space, and the screening of
  flat spaces of more than ``SCREEN_ABOVE`` combinations (each scored on ``N_SCREEN_CANDIDATES``
  candidates, then ``N_SCREENED`` of them and the one-change neighbours of the ``N_NEIGHBOUR_SEEDS``
  best get full value proposals).
"""

from __future__ import annotations

from optuna_vpbo._blas_threads import one_blas_thread
from optuna_vpbo._combinations import N_SEED_TRIALS
from optuna_vpbo._core import MixedGP
from optuna_vpbo._fit import GP_MAX_POINTS, LAMBDA_BOUNDS, VARIANCE_BOUNDS, GPHyperparameters, fit_hyperparameters
from optuna_vpbo._init_design import N_MAX_VALUE_POINTS, max_value_samples, mes_numeric_point
from optuna_vpbo._output_transforms import Standardize
from optuna_vpbo._proposals import N_NEIGHBOUR_SEEDS, N_SCREEN_CANDIDATES, N_SCREENED, SCREEN_ABOVE, refine, sobol_candidates
from optuna_vpbo._targets import finite_values

__all__ = [
    "GPHyperparameters",
    "GP_MAX_POINTS",
    "LAMBDA_BOUNDS",
    "MixedGP",
    "N_MAX_VALUE_POINTS",
    "N_NEIGHBOUR_SEEDS",
    "N_SCREENED",
    "N_SCREEN_CANDIDATES",
    "N_SEED_TRIALS",
    "SCREEN_ABOVE",
    "Standardize",
    "VARIANCE_BOUNDS",
    "finite_values",
    "fit_hyperparameters",
    "max_value_samples",
    "mes_numeric_point",
    "one_blas_thread",
    "refine",
    "sobol_candidates",
]
