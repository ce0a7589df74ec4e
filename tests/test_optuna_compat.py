"""Each function of ``_optuna_compat`` against the installed Optuna: the names it reaches exist
and behave as the sampler relies on. CI also runs this file against the lowest Optuna declared in
pyproject.toml."""

from __future__ import annotations

import re
import warnings

import optuna
import pytest
from optuna.trial import TrialState

from conftest import needs_named_constraints
from optuna_vpbo._optuna_compat import (
    HAS_NAMED_CONSTRAINTS,
    get_study_system_attrs,
    get_trials,
    independent_sampling_warning,
    percentile_pruner_rule,
    process_constraints_after_trial,
    save_dashboard_note,
    set_study_system_attr,
    set_trial_system_attr,
    set_trial_user_attr,
    trial_constraints,
    warn,
)


def study_with_states() -> optuna.Study:
    """Trials 0 complete, 1 failed, 2 running."""
    study = optuna.create_study()
    study.tell(study.ask({"x": optuna.distributions.FloatDistribution(0, 1)}), 1.0)
    study.tell(study.ask(), state=TrialState.FAIL)
    study.ask()
    return study


def test_get_trials_filters_states_and_reads_the_storage_without_cache() -> None:
    study = study_with_states()
    assert [t.number for t in get_trials(study, None, use_cache=False)] == [0, 1, 2]
    assert [t.number for t in get_trials(study, (TrialState.COMPLETE,), use_cache=False)] == [0]
    assert [t.number for t in get_trials(study, (TrialState.RUNNING, TrialState.FAIL), use_cache=True)] == [1, 2]
    study.ask()  # a new running trial
    assert [t.number for t in get_trials(study, (TrialState.RUNNING,), use_cache=False)] == [2, 3]
    assert get_trials(study, (TrialState.COMPLETE,), use_cache=False)[0].params["x"] == study.trials[0].params["x"]


def test_trial_attributes_are_written_to_the_storage() -> None:
    study = study_with_states()
    running = get_trials(study, (TrialState.RUNNING,), use_cache=False)[0]
    set_trial_user_attr(study, running, "vpbo", {"phase": "random"})
    set_trial_system_attr(study, running, "vpbo:key", "chunk")
    stored = study.trials[running.number]
    assert stored.user_attrs == {"vpbo": {"phase": "random"}}
    assert stored.system_attrs["vpbo:key"] == "chunk"


def test_study_attributes_round_trip_through_the_storage(tmp_path) -> None:  # type: ignore[no-untyped-def]
    storage = f"sqlite:///{tmp_path / 'attrs.db'}"
    study = optuna.create_study(storage=storage, study_name="attrs")
    set_study_system_attr(study, "vpbo:fit:abc", {"n": 300, "theta": [0.1, 0.2]})
    reloaded = optuna.load_study(study_name="attrs", storage=storage)
    assert get_study_system_attrs(reloaded)["vpbo:fit:abc"] == {"n": 300, "theta": [0.1, 0.2]}


def test_a_dashboard_note_is_written_as_optuna_dashboard_reads_it() -> None:
    optuna_dashboard = pytest.importorskip("optuna_dashboard")
    study = study_with_states()
    running = get_trials(study, (TrialState.RUNNING,), use_cache=False)[0]
    assert save_dashboard_note(study, running, "first") and save_dashboard_note(study, running, "**second**")
    note = optuna_dashboard._note.get_note_from_system_attrs(get_study_system_attrs(study), running._trial_id)
    assert note == {"version": 2, "body": "**second**"}


@pytest.mark.parametrize("category", [UserWarning, FutureWarning])
def test_warn_emits_the_category(category: type[Warning]) -> None:
    with pytest.warns(category, match="the message"):
        warn("the message", category)


def test_independent_sampling_warning_fills_every_field() -> None:
    message = independent_sampling_warning(
        param_name="lr",
        trial_number=7,
        independent_sampler_name="RandomSampler",
        sampler_name="VPBOSampler",
        fallback_reason="the parameter is conditional",
    )
    for field in ("`lr`", "Trial#7", "`RandomSampler`", "`VPBOSampler`", "the parameter is conditional"):
        assert field in message
    assert not re.search(r"\{\w*\}", message), message


def test_constraints_after_trial_are_stored_where_frozen_trial_reads_them() -> None:
    # Optuna calls ``after_trial`` while the trial is still running, with the state it will take.
    study = optuna.create_study()
    done, failed = study.ask(), study.ask()

    def constraints(trial: optuna.trial.FrozenTrial) -> tuple[float, float]:
        return (trial.number - 0.5, -1.0)

    for trial, state in ((done, TrialState.COMPLETE), (failed, TrialState.FAIL)):
        frozen = study.trials[trial.number]
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # a tuple is what Optuna expects: no warning
            process_constraints_after_trial(constraints, study, frozen, state)
    study.tell(done, 1.0)
    study.tell(failed, state=TrialState.FAIL)
    # The sampler reads constraints by name; constraints_func's are named by position.
    assert trial_constraints(study.trials[0]) == {"0": -0.5, "1": -1.0}
    assert trial_constraints(study.trials[1]) == {}  # failed trials get none
    if HAS_NAMED_CONSTRAINTS:
        assert trial_constraints(study.trials[0]) == study.trials[0].constraints


def test_trial_constraints_of_an_unconstrained_trial_are_empty() -> None:
    study = optuna.create_study()
    study.tell(study.ask(), 1.0)
    assert trial_constraints(study.trials[0]) == {}


def test_named_constraints_are_flagged_by_the_optuna_version() -> None:
    major = int(optuna.__version__.split(".")[0])
    assert HAS_NAMED_CONSTRAINTS == (major >= 5)


@needs_named_constraints
def test_named_constraints_are_read_by_name() -> None:
    study = optuna.create_study()
    trial = study.ask()
    trial.set_constraint("budget", 2.5)
    trial.set_constraint("memory", -1.0)
    study.tell(trial, 0.0)
    assert trial_constraints(study.trials[0]) == {"budget": 2.5, "memory": -1.0}


def test_nan_constraints_are_refused() -> None:
    study = optuna.create_study()
    trial = study.ask()
    with pytest.raises(ValueError, match="NaN"):
        process_constraints_after_trial(lambda _: (float("nan"),), study, study.trials[trial.number], TrialState.COMPLETE)


@pytest.mark.parametrize("constraints", [pytest.param("named", marks=needs_named_constraints), "constraints_func"])
def test_a_short_constrained_study_reaches_the_model(constraints: str) -> None:
    """Every compat function on the sampler's own path: the model phases, diagnostics (user
    attributes), publication (system attributes) and constraints (named, or by constraints_func
    which is Optuna 4's only way)."""
    from optuna_vpbo import VPBOSampler

    def objective(trial: optuna.Trial) -> float:
        kind = trial.suggest_categorical("kind", ["a", "b"])
        x = trial.suggest_float("x", -1.0, 1.0)
        if constraints == "named":
            trial.set_constraint("c", x - 0.5)
        return x * x + (kind == "b")

    def constraints_func(trial: optuna.trial.FrozenTrial) -> tuple[float]:
        return (trial.params["x"] - 0.5,)

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)  # Optuna 5 deprecates constraints_func
        given = None if constraints == "named" else constraints_func
        sampler = VPBOSampler(seed=0, n_startup_trials=4, record_proposals=True, constraints_func=given)
    study = optuna.create_study(sampler=sampler)
    study.optimize(objective, n_trials=8)
    assert all(trial_constraints(t) == {"c" if constraints == "named" else "0": t.params["x"] - 0.5} for t in study.trials)
    phases = [t.user_attrs["vpbo"]["phase"] for t in study.trials]
    assert phases == ["random", "random", "mes", "mes"] + ["proposals"] * 4, phases
    assert all(any(k.startswith("vpbo:relative_params") for k in t.system_attrs) for t in study.trials[2:])
    assert len({tuple(sorted(t.params.items())) for t in study.trials}) == 8


def test_percentile_pruner_rule_reads_the_pruners_private_attributes() -> None:
    """The private attributes exist under these names: a renamed one gives None (no bar: the curve
    modes' ``-bound`` then truncate nothing), which this test catches."""
    assert percentile_pruner_rule(optuna.pruners.MedianPruner(n_min_trials=3)) == (50.0, 3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", optuna.exceptions.ExperimentalWarning)
        patient = optuna.pruners.PatientPruner(optuna.pruners.PercentilePruner(25.0), patience=2)
    assert percentile_pruner_rule(patient) == (25.0, 1)
    assert percentile_pruner_rule(optuna.pruners.SuccessiveHalvingPruner()) is None
    assert percentile_pruner_rule(None) is None
