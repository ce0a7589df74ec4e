"""The replay of trial kinds (trial_kinds.py): from the values alone it names the kinds that the
sampler's own diagnostics record (a real study, record_proposals), and counts the trials that beat
the run's best per kind, overall and late."""

from __future__ import annotations

import math
from pathlib import Path

import optuna
import pytest

from optuna_vpbo import VPBOSampler
from vpbo_benchmarks import trial_kinds
from vpbo_benchmarks.records import append_record


def _recorded_kind(trial: optuna.trial.FrozenTrial) -> str:
    diagnostics = trial.user_attrs.get("vpbo", {})
    if diagnostics.get("phase") != "proposals":
        return "design"
    return {"perturbed-incumbent": "perturb", "least-observed": "explore"}.get(diagnostics.get("move", ""), "model")


@pytest.mark.parametrize("conditional", [False, True], ids=["flat", "conditional"])
def test_the_replay_names_the_kinds_the_sampler_recorded(conditional: bool) -> None:
    """A study that improves early and then stalls, with a failing trial on the way, over a space
    of 24 combinations (never covered in 48 trials, as the replay assumes): every trial of the
    replay has the kind the sampler's diagnostics give it, the perturbations' backoff included."""

    def objective(trial: optuna.Trial) -> float:
        kind = trial.suggest_categorical("kind", ["a", "b", "c"])
        trial.suggest_int("size", 1, 8)
        trial.suggest_categorical("size_kind", list(range(8)))
        if trial.number == 9:
            raise ValueError("a failing trial")
        if conditional and kind == "c":
            return 5.0 + trial.suggest_float("z", 0, 1)
        x = trial.suggest_float("x", 0, 1)
        return 1.0 + x + (0.0 if trial.number < 12 else 1.0) - 0.05 * trial.number * (trial.number < 12)

    study = optuna.create_study(sampler=VPBOSampler(seed=0, n_startup_trials=4, record_proposals=True))
    study.optimize(objective, n_trials=48, catch=(ValueError,))
    losses = [t.value if t.value is not None else math.nan for t in study.trials]
    flat = len({frozenset(t.params) for t in study.trials if t.state == optuna.trial.TrialState.COMPLETE}) == 1
    replayed = trial_kinds.replay_kinds(losses, flat, trial_kinds.Schedule(n_startup=4))
    recorded = [_recorded_kind(t) for t in study.trials]
    assert {"explore", "model"} <= set(recorded) and ("perturb" in recorded) != conditional
    # The failed trial gets no recorded diagnostics of a kind the replay can check.
    assert [k for i, k in enumerate(replayed) if i != 9] == [k for i, k in enumerate(recorded) if i != 9]


def test_the_replay_follows_the_stall_tolerance_of_a_conditional_space() -> None:
    """A conditional study whose best leaf improves by a billionth on each of its trials: the
    sampler's diagnostics and the replay with the tolerance name the same kinds, and the study
    explores (a 10-trial design: the sampler models a conditional space as one from 10 complete
    trials on); without the tolerance the replay would not have it explore."""

    def objective(trial: optuna.Trial) -> float:
        kind = trial.suggest_categorical("kind", ["a", "b", "c"])
        if kind == "c":
            return 5.0 + trial.suggest_float("z", 0, 1)
        x = trial.suggest_float("x", 0, 1)
        return 1.0 - 1e-9 * trial.number if kind == "a" else 2.0 + x

    study = optuna.create_study(sampler=VPBOSampler(seed=0, n_startup_trials=10, record_proposals=True))
    study.enqueue_trial({"kind": "a", "x": 0.5})
    study.optimize(objective, n_trials=40)
    losses = [t.value if t.value is not None else math.nan for t in study.trials]
    recorded = [_recorded_kind(t) for t in study.trials]
    assert trial_kinds.replay_kinds(losses, False, trial_kinds.Schedule(n_startup=10)) == recorded
    assert "explore" in recorded
    assert "explore" not in trial_kinds.replay_kinds(losses, False, trial_kinds.Schedule(n_startup=10, stall_tolerance=0.0))


def test_a_trial_pays_when_it_beats_every_earlier_trial(tmp_path: Path) -> None:
    losses = [3.0, 2.0, math.nan, 2.5, 1.0, 1.0, 0.5]
    kinds = ["design", "design", "model", "explore", "perturb", "model", "explore"]
    counts = trial_kinds.KindCounts()
    counts.add(losses, kinds, late=5)
    assert counts.paid == {"design": 1, "model": 0, "explore": 1, "perturb": 1}
    assert counts.trials == {"design": 2, "model": 2, "explore": 2, "perturb": 1}
    assert counts.late_paid == {"model": 0, "explore": 1} and counts.late_trials == {"model": 1, "explore": 1}


def test_the_table_counts_a_maximised_problem_in_loss_terms(tmp_path: Path) -> None:
    """svm_boston is minimised, reizman_suzuki_1 maximised: the same stored values pay on
    opposite trials."""
    values = [float(v) for v in (5, 4, 6, 3, 7, 2, 8, 1, 9, 0)] * 3
    for problem in ("svm_boston", "reizman_suzuki_1"):
        append_record(tmp_path, {"problem": problem, "sampler": "vpbo", "seed": 0, "n_trials": len(values),
                                 "values": [[v] for v in values], "params": [{"k": 0}] * len(values),
                                 "sampler_seconds": [0.0] * len(values)})
    schedule = trial_kinds.Schedule(n_startup=2, stall_trials=100, perturbation=True)
    minimised = trial_kinds.problem_counts(tmp_path, "svm_boston", "vpbo", 0, schedule)
    maximised = trial_kinds.problem_counts(tmp_path, "reizman_suzuki_1", "vpbo", 0, schedule)
    assert minimised is not None and maximised is not None
    assert (minimised.paid["model"], maximised.paid["model"]) == (4, 4)  # 3, 2, 1, 0 and 6, 7, 8, 9
    assert trial_kinds.problem_counts(tmp_path, "svm_boston", "gp", 0, schedule) is None
    table = trial_kinds.kinds_table(tmp_path, ["svm_boston", "reizman_suzuki_1"], "vpbo", 10, schedule)
    assert "| svm_boston | 4 of 28 | - | - |" in table
