"""GPBanditSampler: Optuna's bookkeeping for the paper's GP-bandit baselines, done once.

It speaks Optuna's protocol as VPBOSampler does (``intersection_sampler``): the complete trials
that cover the relative search space are encoded by ``MixedSpaceEncoder`` into (h, x), with
standardised targets to maximise (``optuna_vpbo.gp.Standardize``) and raw rewards;
the strategy (``strategy.Strategy``) chooses the next (h, x), which is decoded exactly onto
Optuna's grids. The strategy's random numbers come from a generator seeded by (seed, trial
number). Multi-objective studies are sampled at random (the baselines are single-objective).
"""

from __future__ import annotations

import threading
from typing import Any

import numpy as np
from optuna.distributions import BaseDistribution
from optuna.samplers import BaseSampler
from optuna.study import Study, StudyDirection
from optuna.trial import FrozenTrial

from optuna_vpbo.gp import Standardize, finite_values, one_blas_thread
from optuna_vpbo.search_space import MixedSpaceEncoder
from vpbo_benchmarks.baselines.strategy import Observations, Strategy
from vpbo_benchmarks.intersection_sampler import IntersectionSpaceSampler, search_space_key
from vpbo_benchmarks.optuna_compat import complete_trials


def seed_entropy(seed: int | None) -> int:
    """A non-negative integer seeding the per-trial random streams (as VPBOSampler seeds its own)."""
    if seed is None:
        return int(np.random.SeedSequence().entropy)  # type: ignore[arg-type]  # drawn entropy is an int
    return int(seed) % (1 << 64)


def observations(study: Study, search_space: dict[str, BaseDistribution]) -> tuple[Observations, MixedSpaceEncoder]:
    """The complete trials of ``study`` that cover ``search_space``, encoded (see the module docstring)."""
    encoder = MixedSpaceEncoder(search_space)
    complete = [
        t
        for t in complete_trials(study)
        if search_space.keys() <= t.params.keys()
    ]
    h, x = encoder.encode([t.params for t in complete])
    values = finite_values(np.array([t.value for t in complete], dtype=np.float64))
    rewards = -values if study.direction == StudyDirection.MINIMIZE else values
    y = Standardize(study.direction).fit(values)(values) if len(values) else values
    key = search_space_key(study, search_space)
    return Observations(h, x, y, rewards, encoder.n_levels, encoder.round_to_grid, key), encoder


class GPBanditSampler(IntersectionSpaceSampler):
    """An Optuna sampler that runs one baseline ``strategy`` (CoCaBO, RandomBO, One-hot BO,
    EXP3BO, Bandit-BO; see ``vpbo_benchmarks.baselines``).

    Args:
        strategy: Chooses the next point from the encoded data.
        seed: Seed of the strategy's and the independent sampler's random numbers.
        independent_sampler: For parameters outside the relative search space (default:
            ``RandomSampler(seed)``).
    """

    def __init__(
        self, strategy: Strategy, *, seed: int | None = None, independent_sampler: BaseSampler | None = None
    ) -> None:
        super().__init__(seed, independent_sampler)
        self.strategy = strategy
        self._base_seed = seed_entropy(seed)
        self._lock = threading.Lock()

    def reseed_rng(self) -> None:
        self._base_seed = seed_entropy(None)
        super().reseed_rng()

    def sample_relative(
        self, study: Study, trial: FrozenTrial, search_space: dict[str, BaseDistribution]
    ) -> dict[str, Any]:
        if not search_space or len(study.directions) > 1:
            return {}
        # One BLAS thread, as in VPBOSampler: the native core is single-threaded by design.
        with self._lock, one_blas_thread():
            data, encoder = observations(study, search_space)
            rng = np.random.default_rng([self._base_seed, trial.number])
            point = self.strategy.startup_point(data, rng)
            h, x = point if point is not None else self.strategy.next_point(data, rng)
        return encoder.decode(h, data.snap(np.asarray(x, dtype=np.float64).reshape(1, -1))[0])
