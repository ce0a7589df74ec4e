"""What a baseline strategy sees and must answer: the encoded data, and the next (h, x).

``GPBanditSampler`` does Optuna's bookkeeping once and hands each strategy an ``Observations``
(complete trials of the relative search space, in trial order, encoded as VPBOSampler encodes
them). A strategy answers with the next point's categorical codes ``h`` and numeric part ``x`` in
[0, 1]^d, first for an initial design, then by its own rule. ``RandomStartupStrategy``'s initial
design is ``n_startup_trials`` uniformly random points, as in the paper's baselines (24 random
initial points, sec. 5).
"""

from __future__ import annotations

import abc
import dataclasses
from collections.abc import Callable

import numpy as np

# Random initial points of SMAC, TPE, RandomBO and CoCaBO in the paper (sec. 5, after Ru et al.).
PAPER_N_STARTUP_TRIALS = 24

Point = tuple[np.ndarray, np.ndarray]  # (h codes (k,) int32, x in [0, 1]^d)


def random_combination(n_levels: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A uniformly random combination of categorical codes."""
    return rng.integers(0, n_levels, size=len(n_levels)).astype(np.int32)


@dataclasses.dataclass(frozen=True)
class Observations:
    """The complete trials of one study and search space, in trial order.

    ``y`` are the targets the GPs model: values oriented to maximise and standardised
    (``optuna_vpbo.gp.Standardize``). ``rewards`` are the raw values oriented to
    maximise (minus the objective for a minimisation): the bandits' rewards, unnormalised as in
    CoCaBO's and EXP3BO's code. ``key`` names the study and search space, for the strategies'
    caches; ``snap`` moves encoded numeric points (m x d) onto the parameters' grids.
    """

    h: np.ndarray
    x: np.ndarray
    y: np.ndarray
    rewards: np.ndarray
    n_levels: np.ndarray
    snap: Callable[[np.ndarray], np.ndarray]
    key: str

    @property
    def n(self) -> int:
        return len(self.y)

    @property
    def n_numeric(self) -> int:
        return self.x.shape[1]


def random_point(n_levels: np.ndarray, n_numeric: int, rng: np.random.Generator) -> Point:
    """A uniformly random combination and numeric point."""
    return random_combination(n_levels, rng), rng.random(n_numeric)


class Strategy(abc.ABC):
    """Chooses the next point of a GP-bandit baseline; see the module docstring."""

    @abc.abstractmethod
    def startup_point(self, data: Observations, rng: np.random.Generator) -> Point | None:
        """The next point of the initial design, or None once it is complete."""

    @abc.abstractmethod
    def next_point(self, data: Observations, rng: np.random.Generator) -> Point:
        """The next point after the initial design."""


class RandomStartupStrategy(Strategy):
    """A strategy whose initial design is ``n_startup_trials`` uniformly random points."""

    def __init__(self, n_startup_trials: int = PAPER_N_STARTUP_TRIALS) -> None:
        if n_startup_trials < 1:
            raise ValueError(f"n_startup_trials must be positive, got {n_startup_trials}.")
        self.n_startup_trials = n_startup_trials

    def startup_point(self, data: Observations, rng: np.random.Generator) -> Point | None:
        if data.n >= self.n_startup_trials:
            return None
        return random_point(data.n_levels, data.n_numeric, rng)
