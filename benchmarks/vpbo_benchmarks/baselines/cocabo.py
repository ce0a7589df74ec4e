"""CoCaBO (Ru et al. 2020), CoCaBO-S and RandomBO (VPBO paper, sec. 5) as strategies.

CoCaBO, as in rubinxin/CoCaBO_code (facts in shared/reference-notes.md): one EXP3 bandit per
categorical variable picks the next combination (``exp3.Exp3``, horizon T = 2 budget / 3); one
GP with the mixed kernel ``(1 - lambda)(k_h + k_x) / 2 + lambda k_h k_x`` on all the data,
lambda fixed at 0.5 (``cocabo-0.5``) or learned (``cocabo-auto``), gives x by UCB (kappa 2) with
the combination fixed (``ucb.maximise_ucb``). Hyperparameters: defaults for the first 10 BO
iterations, refits at 10, 20, 30, ... (``hyperparameters``).

CoCaBO-S replaces the 24 random initial points by VPBO's search initialisation (12 random +
12 MES, ``search_init``). RandomBO is CoCaBO with a bandit that draws every categorical
uniformly at random (paper, sec. 5).

As in CoCaBO's code the output variance is fixed at 1 on the standardised targets. Differences
from it, on purpose: the GP is the project's native one, with an ARD Matern lengthscale per
numeric dimension on [0, 1] (CoCaBO: one shared lengthscale on [-1, 1]), fitted by
``fit_hyperparameters`` within its bounds (lengthscale [0.01, 20] on [0, 1], noise [1e-6, 1];
CoCaBO: [1e-4, 3] on [-1, 1], [1e-6, 1]).
"""

from __future__ import annotations

import abc

import numpy as np

from optuna_vpbo.gp import LAMBDA_BOUNDS
from vpbo_benchmarks.baselines.exp3 import DEFAULT_BUDGET, Exp3
from vpbo_benchmarks.baselines.hyperparameters import (
    COCABO_REFIT_INTERVAL,
    COCABO_VARIANCE,
    HyperparameterCache,
    ModelSettings,
    RefitSchedule,
)
from vpbo_benchmarks.baselines.search_init import search_initialization_point
from vpbo_benchmarks.baselines.strategy import (
    PAPER_N_STARTUP_TRIALS,
    Observations,
    Point,
    RandomStartupStrategy,
    random_combination,
)
from vpbo_benchmarks.baselines.ucb import PAPER_UCB, Surrogate, UCBSettings, maximise_ucb

COCABO_FIXED_LAMBDA = 0.5


class CombinationBandit(abc.ABC):
    """Chooses the next categorical combination from the data."""

    @abc.abstractmethod
    def choose(self, data: Observations, first_pull: int, rng: np.random.Generator) -> np.ndarray:
        """Codes (k,) of the next combination; ``data`` rows from ``first_pull`` on were pulls."""


class Exp3PerVariable(CombinationBandit):
    """CoCaBO's bandit: one EXP3 per categorical variable, each rewarded with the best raw value
    so far among the data with its pulled level."""

    def __init__(self, budget: int = DEFAULT_BUDGET) -> None:
        self.budget = budget

    def choose(self, data: Observations, first_pull: int, rng: np.random.Generator) -> np.ndarray:
        codes = []
        for j, n_arms in enumerate(data.n_levels):
            bandit = Exp3.for_budget(int(n_arms), self.budget)
            codes.append(bandit.draw(bandit.replay(data.h[:, j], data.rewards, first_pull), rng))
        return np.array(codes, dtype=np.int32)


class UniformBandit(CombinationBandit):
    """RandomBO's bandit: every categorical uniformly at random."""

    def choose(self, data: Observations, first_pull: int, rng: np.random.Generator) -> np.ndarray:
        return random_combination(data.n_levels, rng)


class CoCaBO(RandomStartupStrategy):
    """CoCaBO and its variants (see the module docstring).

    Args:
        lam: Fixed kernel mix, or None to learn it (``cocabo-auto``).
        bandit: How combinations are chosen (default: CoCaBO's EXP3 per variable for ``budget``).
        budget: The number of BO iterations expected, which sets EXP3's gamma (paper: 200).
        search_initialization: VPBO's 12 random + 12 MES initial design (CoCaBO-S).
        n_startup_trials: Size of the initial design (paper: 24).
        ucb: The UCB maximiser's settings (kappa 2, 5000 samples, 3 local searches).
    """

    def __init__(
        self,
        *,
        lam: float | None = COCABO_FIXED_LAMBDA,
        bandit: CombinationBandit | None = None,
        budget: int = DEFAULT_BUDGET,
        search_initialization: bool = False,
        n_startup_trials: int = PAPER_N_STARTUP_TRIALS,
        ucb: UCBSettings = PAPER_UCB,
    ) -> None:
        super().__init__(n_startup_trials)
        lam_bounds = LAMBDA_BOUNDS if lam is None else (lam, lam)
        schedule = RefitSchedule(first=n_startup_trials + COCABO_REFIT_INTERVAL, interval=COCABO_REFIT_INTERVAL)
        settings = ModelSettings(schedule, lam_bounds=lam_bounds, variance_bounds=COCABO_VARIANCE)
        self.model = HyperparameterCache(settings)
        self.bandit = bandit or Exp3PerVariable(budget)
        self.search_initialization = search_initialization
        init_schedule = RefitSchedule(first=max(n_startup_trials // 2, 1), interval=COCABO_REFIT_INTERVAL)
        self.init_model = HyperparameterCache(ModelSettings(init_schedule))  # VPBO's model
        self.ucb = ucb

    def startup_point(self, data: Observations, rng: np.random.Generator) -> Point | None:
        if not self.search_initialization or data.n >= self.n_startup_trials:
            return super().startup_point(data, rng)
        return search_initialization_point(data, self.n_startup_trials, self.init_model, rng)

    def next_point(self, data: Observations, rng: np.random.Generator) -> Point:
        h = self.bandit.choose(data, self.n_startup_trials, rng)
        hyperparameters = self.model.get(data.key, data.h, data.x, data.y, rng)
        surrogate = Surrogate(hyperparameters.make_gp(data.h, data.x, data.y), hyperparameters.noise, h)
        return h, maximise_ucb(surrogate, data.n_numeric, rng, data.snap, self.ucb)
