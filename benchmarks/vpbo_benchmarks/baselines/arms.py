"""The per-arm side shared by EXP3BO and Bandit-BO: one GP per categorical combination (arm).

Gopakumar et al. 2018 and Nguyen et al. 2020 treat every categorical combination as an arm with
its own GP on the numeric part only (their codes take one categorical variable; with several,
each combination is an arm). As in the paper (sec. 5, following Ru et al.), every arm starts
with 3 random points: the initial design gives the next point to the arm with the fewest
observations until each has 3, so it is rebuilt from the study alone. After it, a subclass
picks the arm and x maximises UCB (kappa 2) under that arm's GP.

Each arm's GP is the native MixedGP with no categorical column and lambda fixed at 1 (a Matern
ARD GP), on the arm's targets standardised within the arm (as GPyOpt's ``normalize_Y``),
refitted (3 restarts, warm started) whenever the arm has new data.
"""

from __future__ import annotations

import abc
import dataclasses

import numpy as np

from optuna_vpbo.gp import GPHyperparameters
from vpbo_benchmarks.baselines.hyperparameters import (
    MATERN_ONLY,
    HyperparameterCache,
    ModelSettings,
    RefitSchedule,
)
from vpbo_benchmarks.baselines.strategy import Observations, Point, Strategy
from vpbo_benchmarks.baselines.ucb import PAPER_UCB, Surrogate, UCBSettings, maximise_ucb

N_INIT_PER_ARM = 3
N_ARM_RESTARTS = 3
# One GP per arm: beyond this many combinations the per-arm baselines are not run.
MAX_ARMS = 4096
NO_CATEGORICAL = np.zeros(0, dtype=np.int32)


def n_arms(n_levels: np.ndarray) -> int:
    return int(np.prod(n_levels, dtype=np.float64)) if len(n_levels) else 1


def arm_indices(h: np.ndarray, n_levels: np.ndarray) -> np.ndarray:
    """Codes (n x k) -> arm numbers (lexicographic order of the combinations)."""
    if h.shape[1] == 0:
        return np.zeros(len(h), dtype=np.int64)
    return np.ravel_multi_index(tuple(h.T.astype(np.int64)), tuple(int(n) for n in n_levels))


def arm_codes(arm: int, n_levels: np.ndarray) -> np.ndarray:
    if len(n_levels) == 0:
        return NO_CATEGORICAL
    return np.array(np.unravel_index(arm, tuple(int(n) for n in n_levels)), dtype=np.int32)


@dataclasses.dataclass(frozen=True)
class ArmModel:
    """An arm's GP on its targets ``(y - mean) / scale``, with its data and hyperparameters."""

    surrogate: Surrogate
    hyperparameters: GPHyperparameters
    x: np.ndarray
    targets: np.ndarray
    mean: float
    scale: float


class PerArmStrategy(Strategy):
    """One GP per arm, 3 random initial points per arm, UCB on x in the arm ``choose_arm`` picks."""

    def __init__(self, *, n_init_per_arm: int = N_INIT_PER_ARM, ucb: UCBSettings = PAPER_UCB) -> None:
        if n_init_per_arm < 1:
            raise ValueError(f"n_init_per_arm must be positive, got {n_init_per_arm}.")
        self.n_init_per_arm = n_init_per_arm
        schedule = RefitSchedule(first=1, interval=1)
        self.model = HyperparameterCache(ModelSettings(schedule, N_ARM_RESTARTS, MATERN_ONLY))
        self.ucb = ucb

    def startup_point(self, data: Observations, rng: np.random.Generator) -> Point | None:
        total = n_arms(data.n_levels)
        if total > MAX_ARMS:
            raise ValueError(f"{type(self).__name__} keeps one GP per combination; {total} are too many.")
        counts = np.bincount(arm_indices(data.h, data.n_levels), minlength=total)
        if counts.min() >= self.n_init_per_arm:
            return None
        return arm_codes(int(np.argmin(counts)), data.n_levels), rng.random(data.n_numeric)

    def first_pull(self, arms: np.ndarray, total: int) -> int:
        """Index of the first observation after the initial design (every arm at its quota)."""
        seen = np.zeros(total, dtype=np.int64)
        for t, arm in enumerate(arms):
            seen[arm] += 1
            if seen.min() >= self.n_init_per_arm:
                return t + 1
        return len(arms)

    def arm_model(self, data: Observations, arms: np.ndarray, arm: int, rng: np.random.Generator) -> ArmModel:
        mask = arms == arm
        x, y = data.x[mask], data.y[mask]
        mean = float(y.mean()) if len(y) else 0.0
        scale = float(y.std()) if len(y) > 1 and y.std() > 0 else 1.0
        targets = (y - mean) / scale
        no_categorical = np.zeros((len(y), 0), dtype=np.int32)
        hyperparameters = self.model.get((data.key, arm), no_categorical, x, targets, rng)
        gp = hyperparameters.make_gp(no_categorical, x, targets)
        surrogate = Surrogate(gp, hyperparameters.noise, NO_CATEGORICAL)
        return ArmModel(surrogate, hyperparameters, x, targets, mean, scale)

    @abc.abstractmethod
    def choose_arm(self, data: Observations, arms: np.ndarray, rng: np.random.Generator) -> int:
        """The arm of the next point; ``arms`` holds the arm of every observation."""

    def next_point(self, data: Observations, rng: np.random.Generator) -> Point:
        arms = arm_indices(data.h, data.n_levels)
        arm = self.choose_arm(data, arms, rng)
        model = self.arm_model(data, arms, arm, rng)
        return arm_codes(arm, data.n_levels), maximise_ucb(model.surrogate, data.n_numeric, rng, data.snap, self.ucb)
