"""The ``pruned_trials="curve-..."`` modes in a study (issue 28): a study with a pruner, two
threads and a failing objective runs to its end and its model learns from the pruned curves;
without intermediate values every curve mode suggests what ``"impute"`` suggests; unknown modes
and maps are refused with a clear message."""

from __future__ import annotations

import numpy as np
import optuna
import pytest
from optuna.trial import TrialState

from optuna_vpbo import VPBOSampler, VPBOSettings
from optuna_vpbo._curves import predict_final
from optuna_vpbo._trial_states import CURVE_MODES, pruned_evidence

optuna.logging.set_verbosity(optuna.logging.ERROR)


def curve_objective(trial: optuna.Trial) -> float:
    """A 12-step learning curve (value + 0.5 / step), failing in one trial in seven."""
    x = trial.suggest_float("x", 0.0, 1.0)
    kind = trial.suggest_categorical("kind", ["a", "b"])
    if trial.number % 7 == 3:
        raise RuntimeError("a failing configuration")
    final = (x - 0.3) ** 2 + (0.2 if kind == "b" else 0.0)
    for step in range(1, 13):
        trial.report(final + 0.5 / step, step)
        if trial.should_prune():
            raise optuna.TrialPruned()
    return final


def flat_objective(trial: optuna.Trial) -> float:
    """No intermediate values; one trial in five fails."""
    x = trial.suggest_float("x", -1.0, 1.0)
    kind = trial.suggest_categorical("kind", ["a", "b", "c"])
    if trial.number % 5 == 4:
        raise RuntimeError("a failing configuration")
    return x * x + {"a": 0.0, "b": 0.3, "c": 0.1}[kind]


@pytest.mark.parametrize("mode", CURVE_MODES)
def test_curve_mode_study_with_a_pruner_two_threads_and_failures(mode: str) -> None:
    sampler = VPBOSampler(seed=0, record_proposals=True, settings=VPBOSettings(n_startup_trials=6, pruned_trials=mode))
    study = optuna.create_study(sampler=sampler, pruner=optuna.pruners.MedianPruner(n_startup_trials=3, n_warmup_steps=2))
    study.optimize(curve_objective, n_trials=20, n_jobs=2, catch=(RuntimeError,))
    # A configuration worse than the median at every step, so that some trial is pruned whatever
    # the threads' timing (every other trial may stay at or better than the median).
    for _ in range(2):
        study.enqueue_trial({"x": 1.0, "kind": "b"})
    study.optimize(curve_objective, n_trials=12, n_jobs=2, catch=(RuntimeError,))
    states = [t.state for t in study.trials]
    assert len(states) == 32 and TrialState.RUNNING not in states
    assert {TrialState.COMPLETE, TrialState.PRUNED, TrialState.FAIL} <= set(states)
    # The model learnt from pruned trials (at their curves' predictions) once there were some.
    in_model = [t.user_attrs["vpbo"].get("pruned_in_model", 0) for t in study.trials if "vpbo" in t.user_attrs]
    assert max(in_model) > 0
    for trial in (t for t in study.trials if t.state == TrialState.PRUNED and "vpbo" in t.user_attrs):
        final = trial.user_attrs["vpbo"].get("pruned_final")
        if final is not None:
            assert final["step"] == trial.last_step and np.isfinite(final["mean"]) and final["sd"] >= 0


@pytest.mark.parametrize("mode", CURVE_MODES)
def test_without_intermediate_values_curve_modes_suggest_as_impute(mode: str) -> None:
    def suggestions(pruned_trials: str) -> list[dict[str, object]]:
        sampler = VPBOSampler(seed=3, settings=VPBOSettings(n_startup_trials=5, pruned_trials=pruned_trials))
        study = optuna.create_study(sampler=sampler, pruner=optuna.pruners.MedianPruner())
        study.optimize(flat_objective, n_trials=14, catch=(RuntimeError,))
        assert any(t.state == TrialState.FAIL for t in study.trials)
        return [t.params for t in study.trials]

    assert suggestions(mode) == suggestions("impute")


def test_unknown_modes_and_maps_are_refused() -> None:
    with pytest.raises(ValueError, match="pruned_trials"):
        VPBOSettings(pruned_trials="curve-cubic")
    with pytest.raises(ValueError, match="step-to-final map"):
        predict_final(np.array([[1.0, 2.0], [2.0, 3.0], [3.0, 5.0]]), 1.5, "cubic")
    with pytest.raises(ValueError, match="shape"):
        predict_final(np.array([1.0, 2.0, 3.0]), 1.5, "linear")
    with pytest.raises(ValueError, match="curve mode"):
        pruned_evidence([], [], optuna.study.StudyDirection.MINIMIZE, "impute")


def test_a_pruned_trials_diagnostics_are_not_read_back_from_the_storage() -> None:
    """The objective overwrites the user attribute "vpbo" with a string before it is pruned: the
    sampler adds ``pruned_final`` to the diagnostics it recorded itself, not to what it would read
    back (a string would have raised in after_trial)."""

    def overwriting(trial: optuna.Trial) -> float:
        try:
            return curve_objective(trial)
        except optuna.TrialPruned:
            trial.set_user_attr("vpbo", "not the sampler's")
            raise

    sampler = VPBOSampler(seed=0, record_proposals=True, settings=VPBOSettings(n_startup_trials=6, pruned_trials="curve-linear"))
    study = optuna.create_study(sampler=sampler, pruner=optuna.pruners.MedianPruner(n_startup_trials=3, n_warmup_steps=2))
    study.optimize(overwriting, n_trials=24, catch=(RuntimeError,))
    pruned = [t for t in study.trials if t.state == TrialState.PRUNED]
    assert pruned
    recorded = [t.user_attrs["vpbo"] for t in pruned if isinstance(t.user_attrs["vpbo"], dict)]
    assert recorded and all("phase" in d and "pruned_final" in d for d in recorded)
