"""Why a parameter went to the independent sampler after the initial design: the reason that
``VPBOSampler.sample_independent`` gives in its warning, read from the study as it is then."""

from __future__ import annotations

from optuna.distributions import BaseDistribution
from optuna.study import Study
from optuna.trial import TrialState

from optuna_vpbo import _optuna_compat, _pending
from optuna_vpbo._search_tree import MIN_TRIALS_FOR_CONDITIONS, infer_search_tree
from optuna_vpbo._trial_record import TrialRecord


def fallback_reason(study: Study, trial: TrialRecord, param_name: str, distribution: BaseDistribution) -> str:
    """The reason, as the end of Optuna's sentence "This fallback happened because ..."."""
    complete = _optuna_compat.get_trials(study, (TrialState.COMPLETE,), use_cache=True)
    having = [t for t in complete if param_name in t.distributions]
    if not having:
        return "no completed trial has this parameter yet"
    earlier = {repr(t.distributions[param_name]) for t in having if t.distributions[param_name] != distribution}
    if earlier:
        return (
            f"its distribution in this trial, {distribution!r}, differs from that of completed trials "
            f"({', '.join(sorted(earlier))}), and the model needs one distribution per parameter"
        )
    if len(having) < len(complete):
        share = f"the parameter is in {len(having)} of {len(complete)} completed trials"
        if len(complete) < MIN_TRIALS_FOR_CONDITIONS:
            return f"{share}, and conditional parameters are modelled from {MIN_TRIALS_FOR_CONDITIONS} completed trials on"
        if param_name not in infer_search_tree(complete).distributions:
            return (
                f"{share}, and neither the values of one categorical parameter nor a threshold on one int "
                "parameter explain when it appears"
            )
        return f"{share}, and the search tree inferred from them does not have it in the branch proposed for this trial"
    suggestion = _published_suggestion(study, trial)
    if suggestion is None:
        return "the model made no suggestion for this trial (the warning before this one names the error)"
    if param_name in suggestion:
        return f"Optuna did not accept the suggested value {suggestion[param_name]!r} for {distribution!r}"
    return "the model's suggestion for this trial does not include it"


def _published_suggestion(study: Study, trial: TrialRecord) -> dict[str, object] | None:
    """The suggestion the trial published, read from the storage (the record the sampler holds
    predates the publication)."""
    for running in _optuna_compat.get_trials(study, (TrialState.RUNNING,), use_cache=False):
        if running.number == trial.number:
            return _pending.published_params(running)
    return None
