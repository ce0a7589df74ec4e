"""The ``catcmawm`` peer: CatCMA with margin (Hamano et al., GECCO 2025) from the ``cmaes``
package (``cmaes.CatCMAwM``) behind Optuna's sampler protocol; flat search spaces only. Needs the
lab's ``peers`` extra; :mod:`.peers` reaches this module through :mod:`.lazy`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import cmaes
import numpy as np
from optuna.distributions import BaseDistribution, CategoricalDistribution, FloatDistribution, IntDistribution
from optuna.study import Study, StudyDirection
from optuna.trial import FrozenTrial, TrialState

from vpbo_benchmarks.flat_space_sampler import FlatSpaceSampler


class CatCMAwMSampler(FlatSpaceSampler):
    """Optuna adapter of ``cmaes.CatCMAwM`` (ask and tell in memory, one study per sampler).

    Encoding: floats (log-scaled ones in log space) and log-scaled ints (in log space, rounded)
    are CatCMAwM's continuous x; linear ints its integer z (the list of their values);
    categoricals its c (one-hot; the choice is the argmax). Each completed trial's solution is
    told with its value (negated when maximising) once a generation of ``population_size``
    solutions is complete; failed trials are dropped (the generation fills with later asks).
    """

    name = "CatCMAwMSampler"

    def __init__(self, seed: int | None = None, population_size: int | None = None) -> None:
        super().__init__(seed)
        self._population_size = population_size
        self._optimizer: Any = None
        self._pending: dict[int, Any] = {}
        self._generation: list[tuple[Any, float]] = []

    def _split(self) -> tuple[list[str], list[str], list[str]]:
        assert self._space is not None
        continuous = [
            n for n, d in self._space.items() if isinstance(d, FloatDistribution) or (isinstance(d, IntDistribution) and d.log)
        ]
        integer = [n for n, d in self._space.items() if isinstance(d, IntDistribution) and not d.log]
        categorical = [n for n, d in self._space.items() if isinstance(d, CategoricalDistribution)]
        return continuous, integer, categorical

    def _make_optimizer(self) -> Any:
        continuous, integer, categorical = self._split()
        assert self._space is not None
        x_space = [
            (math.log(d.low), math.log(d.high)) if d.log else (d.low, d.high)  # type: ignore[attr-defined]
            for d in (self._space[n] for n in continuous)
        ]
        z_space = [list(range(d.low, d.high + 1, d.step)) for d in (self._space[n] for n in integer)]  # type: ignore[attr-defined]
        c_space = [len(self._space[n].choices) for n in categorical]  # type: ignore[attr-defined]
        return cmaes.CatCMAwM(
            x_space=x_space or None, z_space=z_space or None, c_space=c_space or None,
            population_size=self._population_size, seed=int(np.random.RandomState(self._seed).randint(1, 2**31 - 1)),
        )

    def sample_relative(self, study: Study, trial: FrozenTrial, search_space: dict[str, BaseDistribution]) -> dict[str, Any]:
        if not search_space:
            return {}
        if self._optimizer is None:
            self._optimizer = self._make_optimizer()
        solution = self._optimizer.ask()
        self._pending[trial.number] = solution
        return self._decode(solution)

    def _decode(self, solution: Any) -> dict[str, Any]:
        assert self._space is not None
        continuous, integer, categorical = self._split()
        params: dict[str, Any] = {}
        for name, value in zip(continuous, np.atleast_1d(solution.x) if continuous else []):
            d = self._space[name]
            v = math.exp(value) if d.log else float(value)  # type: ignore[attr-defined]
            if isinstance(d, IntDistribution):
                v = int(min(max(round(v), d.low), d.high))
            params[name] = min(max(v, d.low), d.high)  # type: ignore[attr-defined]
        for name, value in zip(integer, np.atleast_1d(solution.z) if integer else []):
            params[name] = int(round(float(value)))
        for name, one_hot in zip(categorical, solution.c if categorical else []):
            params[name] = self._space[name].choices[int(np.argmax(one_hot))]  # type: ignore[attr-defined]
        return params

    def after_trial(self, study: Study, trial: FrozenTrial, state: TrialState, values: Sequence[float] | None) -> None:
        solution = self._pending.pop(trial.number, None)
        if solution is None or state != TrialState.COMPLETE or values is None:
            return
        sign = 1.0 if study.direction == StudyDirection.MINIMIZE else -1.0
        self._generation.append((solution, sign * float(values[0])))
        if len(self._generation) == self._optimizer.population_size:
            self._optimizer.tell(self._generation)
            self._generation = []
