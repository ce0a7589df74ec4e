"""Bandit-BO (Nguyen et al. 2020, nphdang/Bandit-BO ``BanditBO``): Thompson sampling over arms.

At each iteration every arm's GP draws one sample of the objective over random points of the
numeric box and the arm whose sample has the largest maximum is pulled (the code's ``ts_draw =
"set"`` mode: a joint draw on a random set, ``sample_y``); x then maximises UCB (kappa 2, the
paper's setting for Bandit-BO, sec. 5) under that arm's GP (``arms``).

The native core exposes only marginal variances, so the joint draw is made by sequential
conditioning: draw y at the first point from the posterior predictive, add it to the arm's
data, draw at the next point, and so on, which is an exact joint draw of the noisy objective.
Simplifications: 32 random points per arm (the code maximises a random-feature draw or draws
on its acquisition sample set) and samples compared on the scale of all the data (each arm's
standardised targets mapped back).
"""

from __future__ import annotations

import numpy as np

from vpbo_benchmarks.baselines.arms import ArmModel, PerArmStrategy, n_arms
from vpbo_benchmarks.baselines.strategy import Observations

N_THOMPSON_POINTS = 32


def joint_sample(model: ArmModel, points: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """One joint draw of the arm's noisy objective (its target scale) at ``points`` (m x d)."""
    hyperparameters = model.hyperparameters
    x, targets = model.x, model.targets
    draws = np.empty(len(points))
    for i, point in enumerate(points):
        gp = hyperparameters.make_gp(np.zeros((len(x), 0), dtype=np.int32), x, targets)
        mean, variance = gp.predict(np.zeros((1, 0), dtype=np.int32), point.reshape(1, -1))
        draws[i] = mean[0] + np.sqrt(max(variance[0], 0.0) + hyperparameters.noise) * rng.standard_normal()
        x, targets = np.vstack([x, point]), np.append(targets, draws[i])
    return draws


class BanditBO(PerArmStrategy):
    """Bandit-BO (see the module docstring)."""

    def sampled_maximum(self, model: ArmModel, n_numeric: int, rng: np.random.Generator) -> float:
        """The maximum of one posterior draw of the arm, on the scale of all the data."""
        points = rng.random((N_THOMPSON_POINTS if n_numeric else 1, n_numeric))
        return model.mean + model.scale * float(np.max(joint_sample(model, points, rng)))

    def choose_arm(self, data: Observations, arms: np.ndarray, rng: np.random.Generator) -> int:
        samples = [
            self.sampled_maximum(self.arm_model(data, arms, arm, rng), data.n_numeric, rng)
            for arm in range(n_arms(data.n_levels))
        ]
        return int(np.argmax(samples))
