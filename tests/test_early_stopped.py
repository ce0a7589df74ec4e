"""COMPLETE trials that stopped early (Ray Tune's schedulers, a user's own early stopping) are read
as pruned trials: which trials, at what imputed value, where they go, and that a study in which
no complete trial stops early gets the same suggestions with and without the reading."""

from __future__ import annotations

import math
from typing import Any, Literal

import optuna
import pytest
from optuna.distributions import CategoricalDistribution, FloatDistribution
from optuna.trial import FrozenTrial, TrialState

from optuna_vpbo import VPBOSampler, _trial_states
from optuna_vpbo._diagnostics import diagnostics_markdown
from optuna_vpbo._observations import observe
from optuna_vpbo._trial_states import MIN_FULL_TRIALS, impute_pruned_values

DISTRIBUTIONS = {"x": FloatDistribution(0.0, 1.0), "c": CategoricalDistribution(["a", "b"])}
STEPS = 8  # a full trial has Ray's results 1..STEPS: intermediate values at 1..STEPS-1, its value at STEPS


def curve(x: float, step: int, sign: float = 1.0) -> float:
    """A loss that falls with the steps (``sign`` -1: a score that rises)."""
    return sign * ((x - 0.3) ** 2 + 2.0 / step)


def ray_trial(x: float, c: str, results: int, sign: float = 1.0) -> FrozenTrial:
    """A trial as OptunaSearch tells it: each result but the last an intermediate value (steps from
    1, Ray's training_iteration), the last result its value, COMPLETE."""
    return optuna.trial.create_trial(
        params={"x": x, "c": c}, distributions=DISTRIBUTIONS, value=curve(x, results, sign),
        intermediate_values={s: curve(x, s, sign) for s in range(1, results)}, state=TrialState.COMPLETE,
    )


def pruned_trial(x: float, c: str, last: int, sign: float = 1.0) -> FrozenTrial:
    return optuna.trial.create_trial(
        params={"x": x, "c": c}, distributions=DISTRIBUTIONS,
        intermediate_values={s: curve(x, s, sign) for s in range(1, last + 1)}, state=TrialState.PRUNED,
    )


def ray_like_study(n_full: int, direction: Literal["minimize", "maximize"] = "minimize") -> optuna.Study:
    study = optuna.create_study(direction=direction, sampler=VPBOSampler(seed=0, record_proposals=True))
    sign = 1.0 if direction == "minimize" else -1.0
    lengths = [STEPS] * n_full + [1, 4, 1, 2, 1, 4]
    for i, results in enumerate(lengths):
        study.add_trial(ray_trial(0.05 + 0.9 * ((i * 0.37) % 1.0), "ab"[i % 2], results, sign))
    study.add_trial(pruned_trial(0.9, "a", 3, sign))
    return study


def direct_early_stopped(study: optuna.Study) -> list[int]:
    """An independent count: the complete trials with fewer intermediate values than the most any
    complete trial has, where at least MIN_FULL_TRIALS complete trials have that many, but for those
    whose value beats every one of theirs."""
    complete = study.get_trials(states=(TrialState.COMPLETE,))
    most = max(len(t.intermediate_values) for t in complete)
    sign = 1.0 if study.direction == optuna.study.StudyDirection.MINIMIZE else -1.0
    full = [sign * float(t.values[0]) for t in complete if len(t.intermediate_values) == most]
    if most == 0 or len(full) < MIN_FULL_TRIALS:
        return []
    return [t.number for t in complete if len(t.intermediate_values) < most and sign * float(t.values[0]) >= min(full)]


def observed(study: optuna.Study, pruned_trials: str = "impute") -> Any:
    trial = study.ask()
    return observe(study, study._storage.get_trial(trial._trial_id), DISTRIBUTIONS, pruned_trials, "both")


def test_the_early_stopped_trials_are_the_directly_counted_ones() -> None:
    study = ray_like_study(5)
    obs = observed(study)
    stopped = direct_early_stopped(study)
    assert len(stopped) == 6
    assert [t.number for t in obs.pruned] == [11, *stopped]  # the PRUNED trial first, then the stopped ones
    assert [t.number for t in obs.complete] == [0, 1, 2, 3, 4]
    assert [t.number for t in obs.imputed] == [11, *stopped]
    assert obs.n_finished == 12  # every finished trial still counts toward the design
    assert not obs.objective_rows[len(obs.complete):].any()  # never the incumbent


@pytest.mark.parametrize("direction", ["minimize", "maximize"])
def test_the_imputed_values_are_those_of_pruned_trials_with_the_value_as_the_next_report(
    direction: Literal["minimize", "maximize"],
) -> None:
    study = ray_like_study(5, direction)
    obs = observed(study)
    trials = study.get_trials()
    full = [trials[i] for i in range(5)]
    # The reference: each stopped trial as a PRUNED trial that also reported its value at its next step.
    as_pruned = []
    for number in direct_early_stopped(study):
        t = trials[number]
        assert t.value is not None
        next_step = len(t.intermediate_values) + 1
        as_pruned.append(optuna.trial.create_trial(
            params=t.params, distributions=t.distributions, state=TrialState.PRUNED,
            intermediate_values={**t.intermediate_values, next_step: t.value},
        ))
    expected = impute_pruned_values(full, [trials[11], *as_pruned], study.direction)
    assert obs.values[len(full):, 0].tolist() == pytest.approx(expected.tolist(), rel=1e-12, abs=0)
    sign = 1.0 if direction == "minimize" else -1.0
    median = sorted(sign * float(t.values[0]) for t in full)[2]
    assert all(sign * v >= median - 1e-12 for v in obs.values[len(full):, 0])  # pessimistic


def test_a_value_equal_to_the_last_report_stays_at_its_step() -> None:
    """A user's own early stopping: the objective returns its last reported value."""
    study = ray_like_study(4)
    t = optuna.trial.create_trial(
        params={"x": 0.5, "c": "a"}, distributions=DISTRIBUTIONS, value=curve(0.5, 3),
        intermediate_values={s: curve(0.5, s) for s in range(1, 4)}, state=TrialState.COMPLETE,
    )
    study.add_trial(t)
    obs = observed(study)
    full = [x for x in study.get_trials() if len(x.intermediate_values) == STEPS - 1]
    as_pruned = optuna.trial.create_trial(
        params=t.params, distributions=t.distributions, state=TrialState.PRUNED, intermediate_values=t.intermediate_values,
    )
    assert obs.values[-1, 0] == pytest.approx(impute_pruned_values(full, [as_pruned], study.direction)[0], rel=1e-12)


def test_too_few_full_trials_or_the_paper_or_two_objectives_read_every_complete_trial_as_complete() -> None:
    few = ray_like_study(MIN_FULL_TRIALS - 1)
    assert direct_early_stopped(few) == []
    assert len(observed(few).complete) == len(few.get_trials(states=(TrialState.COMPLETE,)))
    study = ray_like_study(5)
    assert len(observed(study, "ignore").complete) == 11
    assert [t.state for t in observed(study, "ignore").pruned] == [TrialState.PRUNED]
    two = optuna.create_study(directions=["minimize", "minimize"], sampler=VPBOSampler(seed=0))
    for t in study.get_trials(states=(TrialState.COMPLETE,)):
        two.add_trial(optuna.trial.create_trial(
            params=t.params, distributions=t.distributions, values=[t.values[0], -t.values[0]],
            intermediate_values=t.intermediate_values,
        ))
    assert len(observed(two).complete) == 11


def test_a_trial_that_stopped_ahead_of_every_full_trial_stays_complete() -> None:
    """A trial that converged early (a user's patience), or that ASHA stopped only after it beat
    every full trial, is no evidence of a worse configuration."""
    study = ray_like_study(4)
    ahead = optuna.trial.create_trial(
        params={"x": 0.3, "c": "a"}, distributions=DISTRIBUTIONS, value=0.01,
        intermediate_values={1: 1.0, 2: 0.5}, state=TrialState.COMPLETE,
    )
    study.add_trial(ahead)
    obs = observed(study)
    assert ahead.value is not None and ahead.value < min(t.values[0] for t in obs.complete if t.number < 4)
    assert 11 in [t.number for t in obs.complete] and 11 not in direct_early_stopped(study)
    assert [t.number for t in obs.pruned] == [10, *direct_early_stopped(study)]


def test_the_diagnostics_count_the_early_stopped_trials() -> None:
    study = ray_like_study(12)  # 12 + 6 + 1 finished: past the initial design
    stopped = direct_early_stopped(study)

    def objective(trial: optuna.Trial) -> float:
        x, c = trial.suggest_float("x", 0.0, 1.0), trial.suggest_categorical("c", ["a", "b"])
        return curve(x, STEPS) + (c == "b") * 0.01

    study.optimize(objective, n_trials=1)
    diagnostics = study.trials[-1].user_attrs["vpbo"]
    assert diagnostics["phase"] == "proposals"
    assert diagnostics["early_stopped_in_model"] == len(stopped) == 6
    assert diagnostics["pruned_in_model"] == 1
    assert "6 complete trials that stopped early, read as pruned" in diagnostics_markdown(diagnostics)


def reporting_objective(trial: optuna.Trial) -> float:
    """Every trial reports at steps 0..4 and returns its last report: no trial stops early."""
    x = trial.suggest_float("x", -2.0, 2.0)
    kind = trial.suggest_categorical("kind", ["a", "b", "c"])
    n = trial.suggest_int("n", 1, 6)
    value = math.nan
    for step in range(5):
        value = (x - 0.5) ** 2 + 0.1 * (n - 3) ** 2 + {"a": 0.0, "b": 0.2, "c": 0.4}[kind] + 1.0 / (step + 1)
        trial.report(value, step)
    return value


def suggestions(monkeypatch: pytest.MonkeyPatch, enabled: bool, seed: int) -> list[dict[str, Any]]:
    monkeypatch.setattr(_trial_states, "EARLY_STOPPED_AS_PRUNED", enabled)
    study = optuna.create_study(sampler=VPBOSampler(seed=seed, record_proposals=True))
    study.optimize(reporting_objective, n_trials=24)
    assert all("early_stopped_in_model" not in t.user_attrs["vpbo"] for t in study.trials)
    return [t.params for t in study.trials]


@pytest.mark.parametrize("seed", [0, 1])
def test_a_study_whose_trials_all_report_to_the_same_last_step_gets_the_same_suggestions(
    monkeypatch: pytest.MonkeyPatch, seed: int
) -> None:
    assert suggestions(monkeypatch, True, seed) == suggestions(monkeypatch, False, seed)
