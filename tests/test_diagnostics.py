"""The diagnostics of ``record_proposals=True``: the user attribute ``vpbo`` and the Markdown note
that optuna-dashboard shows (``optuna_vpbo._diagnostics``)."""

from __future__ import annotations

import sys

import optuna
import pytest

from optuna_vpbo import VPBOSampler
from optuna_vpbo._diagnostics import diagnostics_markdown
from optuna_vpbo.sampler import record_diagnostics

SINGLE = {
    "phase": "proposals",
    "top_proposals": [
        {"params": {"optimizer": "adam", "activation": "relu|gelu"}, "acquisition": -1.23456},
        {"params": {"optimizer": "sgd", "activation": "tanh"}, "acquisition": -7.5},
    ],
    "lambda": 0.25,
    "noise": 1.5e-05,
    "lengthscales": {"learning_rate": 0.1234, "dropout": 3.0},
}
EHVI = {
    "phase": "proposals",
    "acquisition": "log EHVI",
    "top_proposals": [{"params": {"c": 1}, "acquisition": 0.5}],
    "objectives": [
        {"lambda": 0.1, "noise": 1e-06, "lengthscales": {"x": 0.2}},
        {"lambda": 0.9, "noise": 0.01, "lengthscales": {"x": 0.7}},
    ],
}


def test_markdown_of_value_proposals_marks_the_chosen_and_lists_the_model() -> None:
    lines = diagnostics_markdown(SINGLE).splitlines()
    assert "**Phase**: value proposals" in lines
    header = lines.index("| rank | combination | log EI |")
    assert lines[header + 2] == "| **chosen** | optimizer=adam, activation=relu\\|gelu | -1.235 |"
    assert lines[header + 3] == "| 2 | optimizer=sgd, activation=tanh | -7.5 |"
    model = lines.index("| GP hyperparameter | value |")
    assert lines[model + 2 : model + 6] == [
        "| lambda | 0.25 |",
        "| noise | 1.5e-05 |",
        "| lengthscale `learning_rate` | 0.1234 |",
        "| lengthscale `dropout` | 3 |",
    ]


def test_markdown_of_log_ehvi_has_one_model_column_per_objective() -> None:
    text = diagnostics_markdown(EHVI)
    assert "| rank | combination | log EHVI |" in text
    assert "| **chosen** | c=1 | 0.5 |" in text
    assert "| GP hyperparameter | objective 0 | objective 1 |" in text
    assert "| lambda | 0.1 | 0.9 |" in text
    assert "| lengthscale `x` | 0.2 | 0.7 |" in text


def test_markdown_says_what_the_model_learnt_from_pruned_and_failed_trials() -> None:
    text = diagnostics_markdown({**SINGLE, "pruned_in_model": 7, "failed_in_model": 3, "p_success": 0.8125})
    assert "**Learnt from** 7 pruned and 3 failed trials; probability that this trial does not fail: 0.8125" in text
    assert "does not fail" not in diagnostics_markdown({**SINGLE, "pruned_in_model": 2, "failed_in_model": 0})


def test_markdown_names_the_move_and_why() -> None:
    moved = {key: value for key, value in SINGLE.items() if key != "top_proposals"}
    moved |= {"move": "perturbed-incumbent", "move_reason": "stalled for 12 trials", "perturbed_parameter": "lr"}
    text = diagnostics_markdown(moved)
    assert "**Move**: the best trial with one numeric parameter drawn at random (`lr`); stalled for 12 trials" in text
    assert "Top value proposals" not in text and "**Fitted GP model**" in text
    explored = diagnostics_markdown({**SINGLE, "move": "least-observed", "move_reason": "odd trial"})
    assert "**Move**: value proposals over the least observed combinations; odd trial" in explored
    assert "**Move**" not in diagnostics_markdown(SINGLE)


def test_markdown_of_the_random_phase_says_there_is_no_model() -> None:
    text = diagnostics_markdown({"phase": "random"})
    assert "random (initial design)" in text and "No model yet" in text and "|" not in text


def test_record_writes_the_user_attribute_and_a_note_that_replaces_the_last() -> None:
    optuna_dashboard = pytest.importorskip("optuna_dashboard")
    study = optuna.create_study()
    live = study.ask()
    frozen = study._storage.get_trial(live._trial_id)
    record_diagnostics(study, frozen, SINGLE)
    assert study._storage.get_trial(live._trial_id).user_attrs["vpbo"] == SINGLE
    assert optuna_dashboard.get_note(live) == diagnostics_markdown(SINGLE)
    record_diagnostics(study, frozen, {"phase": "random"})  # a second note replaces the first
    assert optuna_dashboard.get_note(live) == diagnostics_markdown({"phase": "random"})


def test_record_without_optuna_dashboard_writes_the_user_attribute_only(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "optuna_dashboard._note", None)  # import raises ImportError
    study = optuna.create_study()
    trial = study._storage.get_trial(study.ask()._trial_id)
    record_diagnostics(study, trial, SINGLE)
    assert study._storage.get_trial(trial._trial_id).user_attrs["vpbo"] == SINGLE
    assert not any(key.startswith("dashboard:") for key in study._storage.get_study_system_attrs(study._study_id))


def test_sampler_notes_name_the_combination_the_trial_got() -> None:
    optuna_dashboard = pytest.importorskip("optuna_dashboard")

    def objective(trial: optuna.Trial) -> float:
        kind = trial.suggest_categorical("kind", ["a", "b", "c"])
        x = trial.suggest_float("x", 0.0, 1.0)
        return (x - 0.3) ** 2 + {"a": 0.0, "b": 0.5, "c": 1.0}[kind]

    optuna.logging.set_verbosity(optuna.logging.WARNING)
    study = optuna.create_study(sampler=VPBOSampler(seed=0, n_startup_trials=6, record_proposals=True))
    study.optimize(objective, n_trials=9)
    last = study.trials[-1]
    diagnostics = last.user_attrs["vpbo"]
    assert diagnostics["phase"] == "proposals"
    assert diagnostics["top_proposals"][0]["params"] == {"kind": last.params["kind"]}
    note = optuna_dashboard.get_note(optuna.Trial(study, last._trial_id))
    assert note == diagnostics_markdown(diagnostics)
    assert f"| **chosen** | kind={last.params['kind']} |" in note


def test_markdown_gives_the_predicted_value() -> None:
    text = diagnostics_markdown({**SINGLE, "prediction": {"mean": 0.0431, "sd": 0.0052}})
    assert "**Predicted value** (the model, at this point): 0.0431 ± 0.0052" in text


def test_sampler_records_predictions_near_the_values() -> None:
    """A trial chosen by the model carries the model's prediction of its value, near the value it
    got on a smooth objective (pruned trials in the study too)."""

    def objective(trial: optuna.Trial) -> float:
        x = trial.suggest_float("x", 0.0, 1.0)
        kind = trial.suggest_categorical("kind", ["a", "b"])
        final = (x - 0.3) ** 2 + (0.2 if kind == "b" else 0.0)
        for step in range(1, 11):
            trial.report(final + 0.5 / step, step)
            if trial.should_prune():
                raise optuna.TrialPruned()
        return final

    optuna.logging.set_verbosity(optuna.logging.WARNING)
    sampler = VPBOSampler(seed=0, n_startup_trials=8, record_proposals=True)
    study = optuna.create_study(sampler=sampler, pruner=optuna.pruners.MedianPruner(n_startup_trials=3, n_warmup_steps=1))
    study.optimize(objective, n_trials=30)
    complete = [t for t in study.trials if t.state == optuna.trial.TrialState.COMPLETE]
    predicted = [t for t in complete if "prediction" in t.user_attrs.get("vpbo", {})]
    assert predicted
    for trial in predicted:
        prediction = trial.user_attrs["vpbo"]["prediction"]
        assert prediction["sd"] >= 0 and abs(prediction["mean"] - trial.value) < 3 * prediction["sd"] + 0.05
    assert any(t.state == optuna.trial.TrialState.PRUNED for t in study.trials)
