"""The Optuna protocol shared by the benchmarks' own samplers (GP baselines, SMAC).

As VPBOSampler speaks it (``optuna_vpbo/sampler.py``): the relative search space is the study's
intersection search space without single-value distributions; everything outside it (and the
first trial, before any search space is known) goes to an independent ``RandomSampler(seed)``.
Subclasses implement ``sample_relative``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import optuna
from optuna.distributions import BaseDistribution
from optuna.samplers import BaseSampler, RandomSampler
from optuna.study import Study
from optuna.trial import FrozenTrial, TrialState


def search_space_key(study: Study, search_space: dict[str, BaseDistribution]) -> str:
    """Names one study and relative search space, for per-space state."""
    return f"{study.study_name}|{sorted(search_space.items())!r}"


class IntersectionSpaceSampler(BaseSampler):
    """Relative sampling over the intersection search space, random sampling elsewhere."""

    def __init__(self, seed: int | None, independent_sampler: BaseSampler | None = None) -> None:
        self._independent_sampler = independent_sampler or RandomSampler(seed=seed)
        self._intersection_search_space = optuna.search_space.IntersectionSearchSpace()

    def infer_relative_search_space(self, study: Study, trial: FrozenTrial) -> dict[str, BaseDistribution]:
        space = self._intersection_search_space.calculate(study)
        return {name: dist for name, dist in space.items() if not dist.single()}

    def sample_independent(
        self, study: Study, trial: FrozenTrial, param_name: str, param_distribution: BaseDistribution
    ) -> Any:
        return self._independent_sampler.sample_independent(study, trial, param_name, param_distribution)

    def reseed_rng(self) -> None:
        self._independent_sampler.reseed_rng()

    def before_trial(self, study: Study, trial: FrozenTrial) -> None:
        self._independent_sampler.before_trial(study, trial)

    def after_trial(
        self, study: Study, trial: FrozenTrial, state: TrialState, values: Sequence[float] | None
    ) -> None:
        self._independent_sampler.after_trial(study, trial, state, values)
