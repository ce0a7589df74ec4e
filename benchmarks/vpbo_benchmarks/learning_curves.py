"""What the learning-curve pruning tasks share: a trial's curve reported step
by step (:func:`run_curve`), the fixed seed of their data and models, and the budgets of the
fresh pruning set (its tasks: :mod:`.pruning_models`; the two sets: :mod:`.pruning_tasks`).
"""

from __future__ import annotations

import math
from collections.abc import Callable

import optuna
from optuna.trial import BaseTrial

DATA_SEED = 0  # train/validation splits and model seeds: a configuration always gives the same curve
Objective = Callable[[BaseTrial], float]


def run_curve(trial: BaseTrial, curve: Callable[[int], float], max_steps: int) -> float:
    """Report ``curve(step)`` for steps 1..max_steps, pruning when told; the last value is the trial's."""
    value = math.nan
    for step in range(1, max_steps + 1):
        value = curve(step)
        trial.report(value, step)
        if trial.should_prune():
            raise optuna.TrialPruned()
    return value


# --------------------------------------------------------------------------------------------
# The budgets of the fresh pruning set (steps, and units per step)
# --------------------------------------------------------------------------------------------

SGD_EPOCHS = 30
SGD_SCHEDULES = ("constant", "step", "cosine", "inverse_sqrt")


def sgd_learning_rate(eta0: float, schedule: str, warmup: int, epoch: int) -> float:
    """The learning rate of epoch 0..SGD_EPOCHS-1: a linear warm-up over ``warmup`` epochs times the
    schedule (step: /10 at half and at three quarters; cosine down to 1 %; 1/sqrt(epoch + 1))."""
    ramp = min(1.0, (epoch + 1) / (warmup + 1))
    if schedule == "step":
        factor = 0.1 ** ((epoch >= SGD_EPOCHS // 2) + (epoch >= 3 * SGD_EPOCHS // 4))
    elif schedule == "cosine":
        factor = 0.01 + 0.99 * 0.5 * (1.0 + math.cos(math.pi * epoch / SGD_EPOCHS))
    elif schedule == "inverse_sqrt":
        factor = 1.0 / math.sqrt(epoch + 1.0)
    else:
        factor = 1.0
    return eta0 * ramp * factor



MLP_EPOCHS = 30
GBR_STEPS = 20
GBR_ROUNDS_PER_STEP = 4
FOREST_STEPS = 20
FOREST_TREES_PER_STEP = 2
PERCEPTRON_EPOCHS = 25
RIDGE_STEPS = 20
RIDGE_ROWS_PER_STEP = 35
