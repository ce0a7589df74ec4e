"""When the baselines refit their GP hyperparameters, and the cache of the last fits.

CoCaBO's code (``set_model_params_and_opt_flag``) keeps the defaults (lengthscale 0.2 on
[-1, 1], i.e. 0.1 on [0, 1]; noise 0.1) for the first 10 BO iterations and refits by maximum
likelihood at iterations 10, 20, 30, ... with 5 restarts, keeping the fit in between. The fit
itself is the sampler's ``optuna_vpbo.gp.fit_hyperparameters`` (ARD Matern), with lambda bounded by
``lam_bounds`` (fixed at 0.5 for ``cocabo-0.5``, free for ``cocabo-auto``, fixed at 1 for GPs
without categorical columns: a plain Matern GP) and the output variance by ``variance_bounds``
(CoCaBO's code fixes it at 1 on standardised targets; the other baselines' GPs learn it).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Hashable

import numpy as np

from optuna_vpbo.gp import LAMBDA_BOUNDS, VARIANCE_BOUNDS, GPHyperparameters, fit_hyperparameters

# CoCaBO's code: model_update_interval = 10, 'num_restarts': 5.
COCABO_REFIT_INTERVAL = 10
COCABO_N_RESTARTS = 5
# The lambda bounds of a plain Matern GP (no categorical column).
MATERN_ONLY = (1.0, 1.0)
# CoCaBO's code: output variance fixed at 1 ('fix_inner_variances', no variance in hp_bounds).
COCABO_VARIANCE = (1.0, 1.0)


@dataclasses.dataclass(frozen=True)
class RefitSchedule:
    """Defaults while fewer than ``first`` observations, then a refit each time ``interval``
    more have come."""

    first: int
    interval: int

    def fit_size(self, n: int) -> int | None:
        """The number of observations at the fit in force with ``n`` observations."""
        if n < self.first:
            return None
        return self.first + (n - self.first) // self.interval * self.interval


@dataclasses.dataclass(frozen=True)
class ModelSettings:
    schedule: RefitSchedule
    n_restarts: int = COCABO_N_RESTARTS
    lam_bounds: tuple[float, float] = LAMBDA_BOUNDS
    variance_bounds: tuple[float, float] = VARIANCE_BOUNDS


class HyperparameterCache:
    """The hyperparameters in force per model (any hashable key), refitted on ``settings.schedule``
    from the previous fit (warm start) and random restarts."""

    def __init__(self, settings: ModelSettings) -> None:
        self.settings = settings
        self._fits: dict[Hashable, tuple[int, GPHyperparameters]] = {}

    def defaults(self, n_numeric: int) -> GPHyperparameters:
        default = GPHyperparameters.default(n_numeric)
        return dataclasses.replace(
            default,
            lam=float(np.clip(default.lam, *self.settings.lam_bounds)),
            variance=float(np.clip(default.variance, *self.settings.variance_bounds)),
        )

    def get(
        self, key: Hashable, h: np.ndarray, x: np.ndarray, y: np.ndarray, rng: np.random.Generator
    ) -> GPHyperparameters:
        size = self.settings.schedule.fit_size(len(y))
        if size is None:
            return self.defaults(x.shape[1])
        cached = self._fits.get(key)
        if cached is not None and cached[0] == size:
            return cached[1]
        fitted = fit_hyperparameters(
            h,
            x,
            y,
            rng=rng,
            n_restarts=self.settings.n_restarts,
            warm_start=cached[1] if cached is not None else self.defaults(x.shape[1]),
            lam_bounds=self.settings.lam_bounds,
            variance_bounds=self.settings.variance_bounds,
        )
        self._fits[key] = (size, fitted)
        return fitted
