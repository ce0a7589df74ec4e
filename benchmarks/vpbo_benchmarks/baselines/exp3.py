"""EXP3 (Auer et al. 2002) as CoCaBO's and EXP3BO's code run it.

Facts from rubinxin/CoCaBO_code (``CoCaBO_Base``) and shivapratap/AlgorithmicAssurance_NIPS2018
(``GP_EXP3``), see also shared/reference-notes.md:

- horizon T = 2 budget / 3; gamma = sqrt(C ln C / ((e - 1) T)) for C arms;
- p_i = (1 - gamma) w_i / sum(w) + gamma / C;
- after a pull of arm a with reward r: w_a <- w_a exp(gamma (r / p_a) / C);
- the reward of a pull is the best raw value (oriented to maximise) so far among the data with
  that arm, the new observation included; weights start at 1 and the initial data do not update
  them.

The weights are kept in log space (the probabilities are the same): raw rewards such as a yield
in percent would overflow ``exp`` after a few dozen pulls. The state is not stored: it is
replayed from the data, so the sampler rebuilds it from the study as Optuna recommends.
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np

# The paper's budget: 200 BO iterations after the initial design (sec. 5).
DEFAULT_BUDGET = 200


@dataclasses.dataclass(frozen=True)
class Exp3:
    n_arms: int
    gamma: float

    @classmethod
    def for_budget(cls, n_arms: int, budget: int) -> Exp3:
        """EXP3 with the codes' gamma for ``budget`` pulls (at most 1; 0 for a single arm)."""
        horizon = 2.0 * budget / 3.0
        gamma = math.sqrt(n_arms * math.log(n_arms) / ((math.e - 1.0) * horizon)) if n_arms > 1 else 0.0
        return cls(n_arms, min(1.0, gamma))

    def initial_log_weights(self) -> np.ndarray:
        return np.zeros(self.n_arms)

    def probabilities(self, log_weights: np.ndarray) -> np.ndarray:
        weights = np.exp(log_weights - np.max(log_weights))
        return (1.0 - self.gamma) * weights / weights.sum() + self.gamma / self.n_arms

    def update(self, log_weights: np.ndarray, arm: int, reward: float) -> np.ndarray:
        """The log weights after pulling ``arm`` for ``reward``."""
        probability = self.probabilities(log_weights)[arm]
        updated = log_weights.copy()
        updated[arm] += self.gamma * (reward / probability) / self.n_arms
        return updated

    def replay(self, arms: np.ndarray, raw_rewards: np.ndarray, first_pull: int) -> np.ndarray:
        """Log weights after the pulls ``arms[first_pull:]``; ``arms`` and ``raw_rewards`` cover
        all the data in order, the initial design first (see the module docstring)."""
        log_weights = self.initial_log_weights()
        best = np.full(self.n_arms, -np.inf)
        for t, (arm, value) in enumerate(zip(arms, raw_rewards, strict=True)):
            best[arm] = max(best[arm], value)
            if t >= first_pull:
                log_weights = self.update(log_weights, int(arm), float(best[arm]))
        return log_weights

    def draw(self, log_weights: np.ndarray, rng: np.random.Generator) -> int:
        return int(rng.choice(self.n_arms, p=self.probabilities(log_weights)))
