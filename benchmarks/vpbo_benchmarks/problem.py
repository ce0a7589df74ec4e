"""What a benchmark problem is, and what every family of problems shares: the directions, the
simple regret, the suggestion helpers and the seeded observation noise.

Every family module (the paper's problems, the broad suite, the fresh held-out set) builds
:class:`Problem` objects from these names; the one registry of them all is :mod:`.registry`.
"""

from __future__ import annotations

import dataclasses
import zlib
from collections.abc import Callable, Sequence
from typing import Any, Literal, cast

import numpy as np
from optuna.trial import BaseTrial

ObjectiveValue = float | tuple[float, ...]
Objective = Callable[[BaseTrial], ObjectiveValue]
Direction = Literal["minimize", "maximize"]

MINIMIZE: Direction = "minimize"
MAXIMIZE: Direction = "maximize"
NOISELESS_ATTR = "noiseless_value"  # user attribute: the objective without its noise


@dataclasses.dataclass(frozen=True)
class Problem:
    """A benchmark problem: an Optuna objective with its directions and known optimum."""

    name: str
    directions: tuple[Direction, ...]
    optimum: float | None
    n_combinations: int
    objective: Objective
    description: str


def single_objective(problem: Problem) -> Callable[[BaseTrial], float]:
    """The objective of a problem of one direction, typed as one value (``Problem.objective`` is
    typed for one or several). Unchecked: the caller knows the problem."""
    return cast(Callable[[BaseTrial], float], problem.objective)


def simple_regret(problem: Problem, best_value: float) -> float:
    """Gap between the best value found and the known optimum of the first objective.

    Measured in the problem's first direction, so it is >= 0; a gap below zero can only come
    from floating-point rounding and is clipped to 0. Raises ValueError if no optimum is known.
    """
    if problem.optimum is None:
        raise ValueError(f"problem {problem.name!r} has no known optimum")
    gap = best_value - problem.optimum if problem.directions[0] == MINIMIZE else problem.optimum - best_value
    return max(0.0, gap)


def suggest_categoricals(trial: BaseTrial, prefix: str, count: int, levels: Sequence[Any]) -> np.ndarray:
    """Suggest ``prefix1`` .. ``prefix<count>``, each over ``levels``."""
    return np.array([trial.suggest_categorical(f"{prefix}{i}", list(levels)) for i in range(1, count + 1)])


def suggest_floats(trial: BaseTrial, prefix: str, count: int, low: float, high: float) -> np.ndarray:
    """Suggest floats ``prefix1`` .. ``prefix<count>`` in [low, high]."""
    return np.array([trial.suggest_float(f"{prefix}{i}", low, high) for i in range(1, count + 1)])


def noise_generator(trial: BaseTrial, *salt: int) -> np.random.Generator:
    """The Generator of a trial's observation noise, seeded by ``salt`` (a set's own, to keep its
    draws apart from another set's), the trial number and the parameters: reproducible for a run,
    different between trials and points."""
    key = zlib.crc32(repr(sorted(trial.params.items())).encode())
    return np.random.default_rng([*salt, trial.number, key])


def gaussian_noise(trial: BaseTrial, sd: float) -> float:
    """Gaussian noise of standard deviation ``sd`` (``noise_generator``)."""
    return sd * float(noise_generator(trial).standard_normal())


def observe(trial: BaseTrial, value: float, noise_sd: float) -> float:
    """``value`` plus the noise; the noiseless value goes to the trial's user attribute
    :data:`NOISELESS_ATTR`, so that regret is measured on it."""
    if noise_sd <= 0:
        return value
    trial.set_user_attr(NOISELESS_ATTR, value)
    return value + gaussian_noise(trial, noise_sd)
