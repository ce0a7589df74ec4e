"""Peer samplers of the broad suite (issue 13), registered in ``SAMPLER_FACTORIES``.

- ``tpe-auto``: TPE as OptunaHub's AutoSampler runs it on categorical or conditional spaces:
  ``TPESampler(multivariate=True, constant_liar=True)`` (optunahub-registry,
  package/samplers/auto_sampler/_sampler.py, ``_get_tpe_sampler``; AutoSampler switches to it as soon as the space has a
  categorical or the trials' parameter sets differ, before its first model-based trial).
- ``catcmawm``: CatCMA with margin (Hamano et al., GECCO 2025) from the ``cmaes`` package
  (``cmaes.CatCMAwM``), through :class:`CatCMAwMSampler`, an ask-and-tell adapter; flat search
  spaces only (a conditional space raises ValueError).
- ``ax``: Ax's default generation strategy (Sobol initialisation, then BoTorch's modular BO with
  a mixed-variable GP) through Ax's ``Client`` API, by :class:`AxSampler`; flat search spaces
  only. Needs the optional ``peers`` extra (``ax-platform``, which brings BoTorch and PyTorch).

Every peer runs single-threaded (PyTorch's intra-op pool is set to one thread).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import optuna
from optuna.distributions import BaseDistribution, CategoricalDistribution, FloatDistribution, IntDistribution
from optuna.samplers import BaseSampler, RandomSampler
from optuna.search_space import IntersectionSearchSpace
from optuna.study import Study, StudyDirection
from optuna.trial import FrozenTrial, TrialState

from vpbo_benchmarks.optuna_compat import complete_trials

FLAT_ONLY_MESSAGE = (
    "{sampler} supports flat search spaces only (every trial with the same parameters), but trial "
    "{number} has parameters {params} and the search space is {space}; run it on a flat problem"
)


def tpe_auto(seed: int) -> BaseSampler:
    """TPE with AutoSampler's settings for categorical and conditional spaces."""
    # AutoSampler also passes warn_independent_sampling=False, deprecated since Optuna 4.9: left out.
    return optuna.samplers.TPESampler(seed=seed, multivariate=True, constant_liar=True)


class _FlatSpaceSampler(BaseSampler):
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


# --------------------------------------------------------------------------------------------
# CatCMAwM
# --------------------------------------------------------------------------------------------


class CatCMAwMSampler(_FlatSpaceSampler):
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
        continuous = [n for n, d in self._space.items() if isinstance(d, FloatDistribution) or (isinstance(d, IntDistribution) and d.log)]
        integer = [n for n, d in self._space.items() if isinstance(d, IntDistribution) and not d.log]
        categorical = [n for n, d in self._space.items() if isinstance(d, CategoricalDistribution)]
        return continuous, integer, categorical

    def _make_optimizer(self) -> Any:
        import cmaes

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


# --------------------------------------------------------------------------------------------
# Ax (BoTorch) through the Client API
# --------------------------------------------------------------------------------------------

AX_METRIC = "objective"


class AxSampler(_FlatSpaceSampler):
    """Ax's default generation strategy behind Optuna's sampler interface, flat spaces only.

    The first trial is random (the space is unknown before it) and is attached to Ax's
    experiment; each later trial is one ``get_next_trials(max_trials=1)``; every completed trial
    goes back with ``complete_trial``. Categorical choices are passed as unordered string
    choices (their indices), log-scaled floats and ints with ``scaling="log"``.
    """

    name = "AxSampler"

    def __init__(self, seed: int | None = None) -> None:
        super().__init__(seed)
        self._client: Any = None
        self._ax_index: dict[int, int] = {}  # Optuna trial number -> Ax trial index

    def _make_client(self, study: Study) -> Any:
        import torch
        from ax import ChoiceParameterConfig, Client, RangeParameterConfig

        torch.set_num_threads(1)
        assert self._space is not None
        parameters = []
        for name, d in self._space.items():
            if isinstance(d, CategoricalDistribution):
                values = [str(i) for i in range(len(d.choices))]
                parameters.append(ChoiceParameterConfig(name=name, values=values, parameter_type="str", is_ordered=False))
            else:
                kind = "int" if isinstance(d, IntDistribution) else "float"
                parameters.append(
                    RangeParameterConfig(
                        name=name, bounds=(d.low, d.high), parameter_type=kind, scaling="log" if d.log else "linear"  # type: ignore[attr-defined]
                    )
                )
        client = Client(random_seed=self._seed)
        client.configure_experiment(parameters=parameters, name="optuna")
        minimise = study.direction == StudyDirection.MINIMIZE
        client.configure_optimization(objective=f"-{AX_METRIC}" if minimise else AX_METRIC)
        for t in complete_trials(study):
            index = client.attach_trial(parameters=self._encode(t.params))
            client.complete_trial(trial_index=index, raw_data={AX_METRIC: float(t.values[0])})
        return client

    def _encode(self, params: dict[str, Any]) -> dict[str, Any]:
        assert self._space is not None
        encoded: dict[str, Any] = {}
        for name, d in self._space.items():
            if isinstance(d, CategoricalDistribution):
                encoded[name] = str(d.choices.index(params[name]))
            else:
                encoded[name] = params[name]
        return encoded

    def sample_relative(self, study: Study, trial: FrozenTrial, search_space: dict[str, BaseDistribution]) -> dict[str, Any]:
        if not search_space:
            return {}
        if self._client is None:
            self._client = self._make_client(study)
        (index, parameters), = self._client.get_next_trials(max_trials=1).items()
        self._ax_index[trial.number] = index
        decoded: dict[str, Any] = {}
        for name, d in search_space.items():
            value = parameters[name]
            if isinstance(d, CategoricalDistribution):
                decoded[name] = d.choices[int(value)]
            elif isinstance(d, IntDistribution):
                decoded[name] = int(value)
            else:
                decoded[name] = float(value)
        return decoded

    def after_trial(self, study: Study, trial: FrozenTrial, state: TrialState, values: Sequence[float] | None) -> None:
        index = self._ax_index.pop(trial.number, None)
        if index is None:
            return
        if state == TrialState.COMPLETE and values is not None:
            self._client.complete_trial(trial_index=index, raw_data={AX_METRIC: float(values[0])})
        else:
            self._client.mark_trial_failed(trial_index=index)


PEER_FACTORIES: dict[str, Callable[[int], BaseSampler]] = {
    "tpe-auto": tpe_auto,
    "catcmawm": lambda seed: CatCMAwMSampler(seed=seed),
    "ax": lambda seed: AxSampler(seed=seed),
}
