"""EXP3BO (Gopakumar et al. 2018, shivapratap/AlgorithmicAssurance_NIPS2018 ``GP_EXP3``).

One EXP3 bandit over the arms (the categorical combinations) with the code's gamma
(horizon 2 budget / 3) and reward, the best raw value so far among the arm's data
(``exp3.Exp3``); x by UCB (kappa 2, paper sec. 5) under the pulled arm's own GP (``arms``).
"""

from __future__ import annotations

import numpy as np

from vpbo_benchmarks.baselines.arms import N_INIT_PER_ARM, PerArmStrategy, n_arms
from vpbo_benchmarks.baselines.exp3 import DEFAULT_BUDGET, Exp3
from vpbo_benchmarks.baselines.strategy import Observations
from vpbo_benchmarks.baselines.ucb import PAPER_UCB, UCBSettings


class EXP3BO(PerArmStrategy):
    """EXP3BO (see the module docstring); ``budget`` is the number of BO iterations expected."""

    def __init__(
        self, *, budget: int = DEFAULT_BUDGET, n_init_per_arm: int = N_INIT_PER_ARM, ucb: UCBSettings = PAPER_UCB
    ) -> None:
        super().__init__(n_init_per_arm=n_init_per_arm, ucb=ucb)
        self.budget = budget

    def choose_arm(self, data: Observations, arms: np.ndarray, rng: np.random.Generator) -> int:
        total = n_arms(data.n_levels)
        bandit = Exp3.for_budget(total, self.budget)
        return bandit.draw(bandit.replay(arms, data.rewards, self.first_pull(arms, total)), rng)
