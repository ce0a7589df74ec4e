"""The ``ax`` peer: Ax's default generation strategy (Sobol initialisation, then BoTorch's modular
BO with a mixed-variable GP) through Ax's ``Client`` API, behind Optuna's sampler protocol; flat
search spaces only. PyTorch runs one thread (its intra-op pool). Needs the lab's ``peers`` extra
(``ax-platform``, which brings BoTorch and PyTorch); :mod:`.peers` reaches this module through
:mod:`.lazy`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import torch
from ax import ChoiceParameterConfig, Client, RangeParameterConfig
from optuna.distributions import BaseDistribution, CategoricalDistribution, IntDistribution
from optuna.study import Study, StudyDirection
from optuna.trial import FrozenTrial, TrialState

from vpbo_benchmarks.flat_space_sampler import FlatSpaceSampler
from vpbo_benchmarks.optuna_compat import complete_trials

AX_METRIC = "objective"


class AxSampler(FlatSpaceSampler):
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

