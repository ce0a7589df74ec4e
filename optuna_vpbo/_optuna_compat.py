"""Every Optuna private name the sampler uses, in one place (tested against the declared Optuna
versions in tests/test_optuna_compat.py)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from optuna._warnings import optuna_warn
from optuna.samplers._base import _INDEPENDENT_SAMPLING_WARNING_TEMPLATE, _process_constraints_after_trial
from optuna.study import Study
from optuna.trial import FrozenTrial, TrialState


def get_trials(study: Study, states: tuple[TrialState, ...], *, use_cache: bool) -> list[FrozenTrial]:
    """The study's trials in ``states`` without copies (never mutate them); ``use_cache=False``
    reads the storage afresh (other processes' trials)."""
    return study._get_trials(deepcopy=False, states=states, use_cache=use_cache)


def set_trial_user_attr(study: Study, trial: FrozenTrial, key: str, value: Any) -> None:
    study._storage.set_trial_user_attr(trial._trial_id, key, value)


def set_trial_system_attr(study: Study, trial: FrozenTrial, key: str, value: Any) -> None:
    study._storage.set_trial_system_attr(trial._trial_id, key, value)


def warn(message: str, category: type[Warning] = UserWarning) -> None:
    optuna_warn(message, category)


def independent_sampling_message(param_name: str, trial_number: int, independent: str, sampler: str, reason: str) -> str:
    return _INDEPENDENT_SAMPLING_WARNING_TEMPLATE.format(
        param_name=param_name,
        trial_number=trial_number,
        independent_sampler_name=independent,
        sampler_name=sampler,
        fallback_reason=reason,
    )


def process_constraints_after_trial(
    constraints_func: Callable[[FrozenTrial], Sequence[float]], study: Study, trial: FrozenTrial, state: TrialState
) -> None:
    _process_constraints_after_trial(constraints_func, study, trial, state)


def get_study_system_attrs(study: Study) -> dict[str, Any]:
    """The study's system attributes, read from the storage (another process may have written)."""
    return study._storage.get_study_system_attrs(study._study_id)


def set_study_system_attr(study: Study, key: str, value: Any) -> None:
    study._storage.set_study_system_attr(study._study_id, key, value)
