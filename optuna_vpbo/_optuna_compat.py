"""The one home of the Optuna private names this package uses.

Optuna's samplers reach into the study's storage and a few private helpers; VPBOSampler does the
same, but only through the functions below, so that an Optuna release that renames one breaks
this module and its test (``tests/test_optuna_compat.py``) rather than the sampler. The Optuna
versions this module is tested against are declared in ``pyproject.toml``.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Container, Sequence
from typing import Any, cast

import optuna
from optuna.samplers._base import _process_constraints_after_trial
from optuna.study import Study
from optuna.trial import FrozenTrial, TrialState

from optuna_vpbo import _stored
from optuna_vpbo._trial_record import TrialRecord

_optuna_warn: Callable[[str, type[Warning]], None] | None
try:  # Optuna >= 4.7 (hides Optuna's own frames from the warning's location)
    from optuna._warnings import optuna_warn as _optuna_warn
except ImportError:  # older Optuna: the plain warning
    _optuna_warn = None

try:  # Optuna >= 4.5
    from optuna.samplers._base import _INDEPENDENT_SAMPLING_WARNING_TEMPLATE
except ImportError:  # older Optuna: the same wording, which its samplers wrote inline
    _INDEPENDENT_SAMPLING_WARNING_TEMPLATE = (
        "The parameter `{param_name}` in Trial#{trial_number} is sampled independently "
        "using `{independent_sampler_name}` instead of `{sampler_name}`, potentially "
        "degrading the optimization performance. This fallback happened because "
        "{fallback_reason}. You can suppress this warning by setting "
        "`warn_independent_sampling` to `False` in the constructor of `{sampler_name}` if "
        "this independent sampling is intended behavior."
    )

# Optuna 5 added named constraints (``Trial.set_constraint``, ``FrozenTrial.constraints`` as a
# dict) and deprecated ``constraints_func``; Optuna 4 has only ``constraints_func``, whose values
# its samplers store as a list in the trial's system attribute "constraints".
HAS_NAMED_CONSTRAINTS = hasattr(optuna.trial.Trial, "set_constraint")
_CONSTRAINTS_KEY = "constraints"


def trial_constraints(trial: TrialRecord) -> dict[str, float]:
    """A finished trial's constraint values by name (``constraints_func``'s by position: "0",
    "1", ...); empty if it has none. Read from storage, so checked (``_stored.constraint_values``:
    a value that is no number is left out)."""
    return _stored.constraint_values(trial, _stored_constraints, _CONSTRAINTS_KEY)


def _stored_constraints(trial: TrialRecord) -> Any:
    """The constraint values as Optuna keeps them, unchecked (Optuna 5's reader may raise on
    values of the wrong type)."""
    if HAS_NAMED_CONSTRAINTS:
        return cast(FrozenTrial, trial).constraints
    values = trial.system_attrs.get(_CONSTRAINTS_KEY)
    if values is None:
        return {}
    if not isinstance(values, (list, tuple)):
        raise TypeError(f"a list of values, not {type(values).__name__}")
    return {str(i): value for i, value in enumerate(values)}


def get_trials(study: Study, states: Container[TrialState] | None = None, *, use_cache: bool) -> list[FrozenTrial]:
    """The study's trials in ``states`` (None: all), not deep-copied: the caller must not change
    them. ``use_cache=True`` may return the list this thread read earlier in the same trial
    (Optuna's per-thread cache of ``Study._get_trials``); False reads the storage."""
    return study._get_trials(deepcopy=False, states=states, use_cache=use_cache)


def set_trial_user_attr(study: Study, trial: FrozenTrial, key: str, value: Any) -> None:
    """Write a user attribute of a trial that a sampler holds as a FrozenTrial (no Trial object)."""
    study._storage.set_trial_user_attr(trial._trial_id, key, value)


def set_trial_system_attr(study: Study, trial: FrozenTrial, key: str, value: Any) -> None:
    """Write a system attribute of a trial that a sampler holds as a FrozenTrial."""
    study._storage.set_trial_system_attr(trial._trial_id, key, value)


def warn(message: str, category: type[Warning] = UserWarning) -> None:
    """Warn as Optuna does (``optuna._warnings.optuna_warn`` where it exists)."""
    if _optuna_warn is not None:
        _optuna_warn(message, category)
    else:
        warnings.warn(message, category, stacklevel=2)


def independent_sampling_warning(
    *, param_name: str, trial_number: int, independent_sampler_name: str, sampler_name: str, fallback_reason: str
) -> str:
    """Optuna's message for a parameter that falls back to the independent sampler."""
    return _INDEPENDENT_SAMPLING_WARNING_TEMPLATE.format(
        param_name=param_name,
        trial_number=trial_number,
        independent_sampler_name=independent_sampler_name,
        sampler_name=sampler_name,
        fallback_reason=fallback_reason,
    )


def process_constraints_after_trial(
    constraints_func: Callable[[FrozenTrial], Sequence[float]], study: Study, trial: FrozenTrial, state: TrialState
) -> None:
    """Evaluate ``constraints_func`` on a finished trial and store its values where
    ``trial_constraints`` reads them, as Optuna's samplers do in ``after_trial``."""
    _process_constraints_after_trial(constraints_func, study, trial, state)


def get_study_system_attrs(study: Study) -> dict[str, Any]:
    """The study's system attributes, read from the storage (another process may have written)."""
    return study._storage.get_study_system_attrs(study._study_id)


def set_study_system_attr(study: Study, key: str, value: Any) -> None:
    study._storage.set_study_system_attr(study._study_id, key, value)


def save_dashboard_note(study: Study, trial: FrozenTrial, markdown: str) -> bool:
    """Write ``markdown`` as the trial's optuna-dashboard note at the storage level (its public
    ``save_note`` needs a live ``optuna.Trial``, whose constructor would call the sampler again);
    False when optuna-dashboard is not installed, or when the stored version of the note is no
    version (``_stored.note_version``; the note is then not written). Notes live in the study's
    system attributes, versioned per trial; a new note takes the next version."""
    try:
        from optuna_dashboard._note import note_ver_key, save_note_with_version
    except ImportError:
        return False
    key = note_ver_key(trial._trial_id)
    version = _stored.note_version(get_study_system_attrs(study).get(key), key, study.study_name)
    if version is None:  # not a version: left alone rather than overwritten
        return False
    save_note_with_version(study._storage, study._study_id, trial._trial_id, version + 1, markdown)
    return True


def percentile_pruner_rule(pruner: Any) -> tuple[float, int] | None:
    """(percentile, n_min_trials) of a ``PercentilePruner`` (``MedianPruner`` is one), unwrapped
    from a ``PatientPruner``; None for any other pruner, or where Optuna's private attributes
    (``_wrapped_pruner``, ``_percentile``, ``_n_min_trials``) are missing."""
    if isinstance(pruner, optuna.pruners.PatientPruner):
        pruner = getattr(pruner, "_wrapped_pruner", None)
    if not isinstance(pruner, optuna.pruners.PercentilePruner):
        return None
    percentile, n_min_trials = getattr(pruner, "_percentile", None), getattr(pruner, "_n_min_trials", 1)
    return None if percentile is None else (float(percentile), int(n_min_trials))
