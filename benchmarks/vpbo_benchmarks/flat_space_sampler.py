"""The common part of the peers' adapters of ask-and-tell optimisers that take a fixed, flat
search space (CatCMAwM, Ax): the first trial is random, later trials use the space it showed, and
a conditional space raises ValueError."""

from __future__ import annotations

from typing import Any

from optuna.distributions import BaseDistribution
from optuna.samplers import BaseSampler, RandomSampler
from optuna.search_space import IntersectionSearchSpace
from optuna.study import Study
from optuna.trial import FrozenTrial

from vpbo_benchmarks.optuna_compat import complete_trials

FLAT_ONLY_MESSAGE = (
    "{sampler} supports flat search spaces only (every trial with the same parameters), but trial "
    "{number} has parameters {params} and the search space is {space}; run it on a flat problem"
)



class FlatSpaceSampler(BaseSampler):
    """Common part of the flat-space adapters: the first trial is sampled at random (the search
    space is unknown before it), later trials over the fixed space the first trial showed, and a
    parameter outside that space (a conditional space) raises ValueError."""

    name = "flat-space sampler"

    def __init__(self, seed: int | None) -> None:
        self._seed = seed
        self._random = RandomSampler(seed=seed)
        self._space: dict[str, BaseDistribution] | None = None

    def reseed_rng(self) -> None:
        self._random.reseed_rng()

    def infer_relative_search_space(self, study: Study, trial: FrozenTrial) -> dict[str, BaseDistribution]:
        if len(study.directions) > 1:
            raise ValueError(f"{self.name} supports single-objective studies only")
        complete = complete_trials(study)
        if not complete:
            return {}
        if self._space is None:
            space = IntersectionSearchSpace().calculate(study)
            self._space = {name: d for name, d in space.items() if not d.single()}
        for t in complete:
            self._check_flat(t, t.params)
        return self._space

    def _check_flat(self, trial: FrozenTrial, params: dict[str, Any]) -> None:
        assert self._space is not None
        extra = set(params) - set(self._space) - {n for n, d in trial.distributions.items() if d.single()}
        if extra or not set(self._space) <= set(params):
            raise ValueError(
                FLAT_ONLY_MESSAGE.format(sampler=self.name, number=trial.number, params=sorted(params), space=sorted(self._space))
            )

    def sample_independent(
        self, study: Study, trial: FrozenTrial, param_name: str, param_distribution: BaseDistribution
    ) -> Any:
        if self._space is not None and param_name not in self._space and not param_distribution.single():
            raise ValueError(
                FLAT_ONLY_MESSAGE.format(
                    sampler=self.name, number=trial.number, params=sorted({*trial.params, param_name}), space=sorted(self._space)
                )
            )
        return self._random.sample_independent(study, trial, param_name, param_distribution)

