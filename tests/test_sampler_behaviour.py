"""Behaviour of VPBOSampler inside Optuna studies: odd inputs, protocol, determinism, concurrency.

Most studies use ``n_startup_trials=4`` (conftest.make_sampler): trials 0-1 are random, 2-3 are
the MES half of the initial design and the GP's value proposals start at trial 4, so a dozen
trials cover every phase.
"""

from __future__ import annotations

import inspect
import itertools
import logging
import math
import multiprocessing
import pickle
import re
from collections.abc import Callable
from typing import Any

import optuna
import pytest
from optuna.distributions import CategoricalDistribution, FloatDistribution
from optuna.trial import TrialState

from conftest import (
    N_STARTUP,
    all_params,
    assert_all_complete,
    assert_gp_suggestions_used,
    categorical_only_objective,
    make_sampler,
    mixed_objective,
    published_params,
    run_study,
    seeded_run,
    value_of,
)
from optuna_vpbo import VPBOSampler, VPBOSettings, _core
from optuna_vpbo._settings import PRESETS

SAMPLER_LOGGER = "optuna_vpbo.sampler"
_WARNED_PARAM = re.compile(r"The parameter `(\w+)` in Trial#\d+ is sampled independently")


_WARNED_REASON = re.compile(
    r"The parameter `(\w+)` in Trial#(\d+) is sampled independently.*This fallback happened because (.*)\. You can suppress"
)


def warned_reasons(caplog: pytest.LogCaptureFixture) -> dict[tuple[int, str], str]:
    """(trial number, parameter) -> the reason the independent-sampling warning gave."""
    return {
        (int(match.group(2)), match.group(1)): match.group(3)
        for record in caplog.records
        if record.name == SAMPLER_LOGGER and (match := _WARNED_REASON.search(record.getMessage()))
    }


def warned_params(caplog: pytest.LogCaptureFixture) -> set[str]:
    """Parameters that the sampler reported as sampled by the independent sampler."""
    return {
        match.group(1)
        for record in caplog.records
        if record.name == SAMPLER_LOGGER and (match := _WARNED_PARAM.search(record.getMessage()))
    }


def ask_one_relative(study: optuna.Study, *samplers: VPBOSampler) -> list[dict[str, Any]]:
    """Each sampler's relative suggestion for the same new trial (which is then failed)."""
    trial = study.ask()
    frozen = study._storage.get_trial(trial._trial_id)
    space = samplers[0].infer_relative_search_space(study, frozen)
    suggestions = [s.sample_relative(study, frozen, space) for s in samplers]
    study.tell(trial, state=TrialState.FAIL)
    return suggestions


# --- Objective values ---------------------------------------------------------------------


@pytest.mark.parametrize("bad", [math.inf, -math.inf, "all_inf"])
def test_infinite_values_warn_and_the_study_continues(bad: float | str) -> None:
    def objective(trial: optuna.Trial) -> float:
        value = mixed_objective(trial)
        if isinstance(bad, str):  # "all_inf"
            return math.inf
        return bad if trial.number in (1, 5) else value

    with pytest.warns(UserWarning, match="infinite"):
        study = run_study(objective, 10)
    assert_all_complete(study, 10)
    assert_gp_suggestions_used(study)
    if bad != "all_inf":
        assert [t.number for t in study.trials if math.isinf(value_of(t))] == [1, 5]


def test_constant_objective_keeps_exploring() -> None:
    """An objective that ignores its parameters: the GP must not propose one point forever."""
    study = run_study(lambda t: (mixed_objective(t), 1.0)[1], 12)
    assert_all_complete(study, 12)
    assert_gp_suggestions_used(study)
    points = {tuple(sorted(p.items())) for p in all_params(study)}
    assert len(points) == 12


@pytest.mark.parametrize("values", ["noisy", "identical"])
def test_duplicate_points(values: str) -> None:
    point = {"kind": "a", "flag": True, "x": 0.5, "lr": 0.01, "n": 3}
    study = optuna.create_study(sampler=make_sampler())
    for _ in range(6):
        study.enqueue_trial(point)
    counter = itertools.count()

    def noise() -> float:
        return 0.01 * next(counter) if values == "noisy" else 0.0

    study.optimize(lambda t: mixed_objective(t) + noise(), n_trials=10)
    assert_all_complete(study, 10)
    assert all_params(study)[:6] == [point] * 6
    assert_gp_suggestions_used(study, first=6)


# --- Search space shapes ------------------------------------------------------------------


def test_single_category_is_left_to_optuna(caplog: pytest.LogCaptureFixture) -> None:
    def objective(trial: optuna.Trial) -> float:
        only = trial.suggest_categorical("c", ["only"])
        kind = trial.suggest_categorical("k", ["a", "b"])
        return trial.suggest_float("x", -1.0, 1.0) ** 2 + (kind == "b") + len(only)

    with caplog.at_level(logging.WARNING, logger=SAMPLER_LOGGER):
        study = run_study(objective, 10)
    assert_all_complete(study, 10)
    assert all(p["c"] == "only" for p in all_params(study))
    assert_gp_suggestions_used(study)
    suggestion = published_params(study.trials[-1])
    assert suggestion is not None and set(suggestion) == {"k", "x"}
    assert warned_params(caplog) == set()


def _numeric_only(trial: optuna.Trial) -> float:
    x = trial.suggest_float("x", -1.0, 1.0)
    n = trial.suggest_int("n", 0, 6)
    return x**2 + (n - 2) ** 2


def _single_category_and_float(trial: optuna.Trial) -> float:
    trial.suggest_categorical("c", ["only"])
    return (trial.suggest_float("x", -1.0, 1.0) - 0.2) ** 2


@pytest.mark.forked
@pytest.mark.parametrize("objective", [_numeric_only, _single_category_and_float], ids=["float_int", "only_category"])
def test_search_space_without_categoricals(objective: Callable[[optuna.Trial], float]) -> None:
    study = run_study(objective, 8)
    assert_all_complete(study, 8)
    assert_gp_suggestions_used(study)


def test_categorical_only() -> None:
    study = run_study(categorical_only_objective, 12)
    assert_all_complete(study, 12)
    assert_gp_suggestions_used(study)
    assert study.best_params == {"a": 0, "b": "x"}


@pytest.mark.parametrize("max_enumerated", [4096, 64], ids=["enumerated", "sampled"])
def test_ten_binary_categoricals(max_enumerated: int) -> None:
    def objective(trial: optuna.Trial) -> float:
        bits = [trial.suggest_categorical(f"b{i}", [0, 1]) for i in range(10)]
        return sum((i + 1) * b for i, b in enumerate(bits)) + trial.suggest_float("x", 0.0, 1.0)

    study = run_study(objective, 12, make_sampler(max_enumerated_combinations=max_enumerated))
    assert_all_complete(study, 12)
    assert_gp_suggestions_used(study)
    assert all(p[f"b{i}"] in (0, 1) for p in all_params(study) for i in range(10))


def test_int_stepped_and_log_params_stay_on_their_grids() -> None:
    def objective(trial: optuna.Trial) -> float:
        kind = trial.suggest_categorical("kind", ["p", "q"])
        a = trial.suggest_int("a", 0, 20, step=4)
        b = trial.suggest_int("b", 1, 512, log=True)
        c = trial.suggest_float("c", -2.0, 2.0, step=0.25)
        d = trial.suggest_float("d", 1e-6, 1.0, log=True)
        return (a - 8) ** 2 + math.log2(b) + c**2 + math.log10(d) ** 2 + (kind == "q")

    study = run_study(objective, 12)
    assert_all_complete(study, 12)
    assert_gp_suggestions_used(study)
    for trial in study.trials:
        for name, value in trial.params.items():
            dist = trial.distributions[name]
            assert dist._contains(dist.to_internal_repr(value)), (name, value)
            expected = {"a": int, "b": int, "c": float, "d": float, "kind": str}[name]
            assert type(value) is expected


def test_gp_suggestion_at_the_top_of_a_stepped_float_is_used() -> None:
    """The GP proposes the unobserved top grid point 3.4; it must decode to exactly 3.4 (low +
    n * step is 3.4000000000000004, which Optuna would reject and replace by a random value)."""
    space = {"c": CategoricalDistribution(["a", "b"]), "x": FloatDistribution(0.1, 3.4, step=0.1)}
    study = optuna.create_study(sampler=make_sampler(warn_independent_sampling=False))
    for k, c in itertools.product(range(0, 33, 2), "ab"):
        x = round(0.1 + 0.1 * k, 10)
        study.add_trial(optuna.create_trial(params={"c": c, "x": x}, distributions=space, value=-x + (c == "b")))
    n_given = len(study.trials)
    trial = study.ask(space)
    study.tell(trial, -trial.params["x"])
    assert trial.params == {"c": "a", "x": 3.4}
    assert_gp_suggestions_used(study, first=n_given)


@pytest.mark.parametrize("direction", ["minimize", "maximize"])
def test_direction_is_honoured(direction: str) -> None:
    sign = 1.0 if direction == "minimize" else -1.0

    def objective(trial: optuna.Trial) -> float:
        kind = trial.suggest_categorical("kind", ["good", "bad"])
        return sign * ((trial.suggest_float("x", -2.0, 2.0) - 0.3) ** 2 + (kind == "bad"))

    study = run_study(objective, 16, direction=direction)
    assert_all_complete(study, 16)
    assert study.best_params["kind"] == "good"
    assert abs(study.best_params["x"] - 0.3) < 0.05
    # The GP phase concentrates on the optimum: its trials beat the initial design on average.
    values = [sign * value_of(t) for t in study.trials]
    assert sum(values[N_STARTUP:]) / len(values[N_STARTUP:]) < sum(values[:N_STARTUP]) / N_STARTUP


def test_failed_and_pruned_trials_are_not_lost() -> None:
    def objective(trial: optuna.Trial) -> float:
        value = mixed_objective(trial)
        if trial.number % 4 == 1:
            raise RuntimeError("objective failed")
        if trial.number % 4 == 2:
            trial.report(value, step=0)
            raise optuna.TrialPruned()
        return value

    study = optuna.create_study(sampler=make_sampler())
    study.optimize(objective, n_trials=16, catch=(RuntimeError,))
    states = [t.state for t in study.trials]
    assert len(states) == 16
    assert states.count(TrialState.COMPLETE) == 8
    assert states.count(TrialState.FAIL) == 4
    assert states.count(TrialState.PRUNED) == 4
    complete = [t for t in study.trials if t.state == TrialState.COMPLETE]
    assert all(published_params(t) for t in complete[N_STARTUP:]), "GP phase not reached"


def test_nan_objective_fails_the_trial_and_the_study_continues() -> None:
    study = run_study(lambda t: math.nan if t.number == 3 else mixed_objective(t), 10)
    states = [t.state for t in study.trials]
    assert states[3] == TrialState.FAIL
    assert states.count(TrialState.COMPLETE) == 9
    assert published_params(study.trials[-1])


def test_enqueued_trials_are_honoured() -> None:
    study = run_study(mixed_objective, 6)
    full = {"kind": "c", "flag": False, "x": 1.75, "lr": 0.05, "n": 8}
    study.enqueue_trial(full)
    study.enqueue_trial({"kind": "b", "x": -1.5})
    study.optimize(mixed_objective, n_trials=3)
    assert_all_complete(study, 9)
    assert study.trials[6].params == full
    assert study.trials[7].params["kind"] == "b" and study.trials[7].params["x"] == -1.5
    assert set(study.trials[7].params) == set(full)
    suggestion = published_params(study.trials[8])
    assert suggestion and {k: study.trials[8].params[k] for k in suggestion} == suggestion


@pytest.mark.parametrize("warn", [True, False])
def test_dynamic_parameter_goes_to_the_independent_sampler(warn: bool, caplog: pytest.LogCaptureFixture) -> None:
    def objective(trial: optuna.Trial) -> float:
        value = mixed_objective(trial)
        if trial.number % 3 == 0:
            value += trial.suggest_float("extra", 0.0, 1.0)
        return value

    with caplog.at_level(logging.WARNING, logger=SAMPLER_LOGGER):
        study = run_study(objective, 12, make_sampler(warn_independent_sampling=warn))
    assert_all_complete(study, 12)
    assert_gp_suggestions_used(study)
    for trial in study.trials:
        suggestion = published_params(trial) or {}
        assert "extra" not in suggestion
        assert ("extra" in trial.params) == (trial.number % 3 == 0)
        if "extra" in trial.params:
            assert 0.0 <= trial.params["extra"] <= 1.0
    assert warned_params(caplog) == ({"extra"} if warn else set())


@pytest.mark.parametrize("directions", [["minimize"], ["minimize", "minimize"]], ids=["single", "multi"])
def test_the_independent_sampling_warning_gives_the_real_reason(
    directions: list[str], caplog: pytest.LogCaptureFixture
) -> None:
    """Each cause of a fallback after the initial design (4 trials) is named, for one objective
    and for several."""

    def objective(trial: optuna.Trial) -> float | tuple[float, float]:
        value = mixed_objective(trial)
        if trial.number >= 6:  # a parameter added to the objective later
            value += trial.suggest_float("late", 0.0, 1.0)
        if trial.number % 3 == 0:  # present on a pattern no parameter explains
            value += trial.suggest_float("every_third", 0.0, 1.0)
        wide = 2.0 if trial.number < 8 else 3.0  # its range widens at trial 8
        value += trial.suggest_float("ranged", -wide, wide) ** 2
        return value if len(directions) == 1 else (value, -value)

    with caplog.at_level(logging.WARNING, logger=SAMPLER_LOGGER):
        study = run_study(objective, 13, directions=directions)
    assert_all_complete(study, 13)
    reasons = warned_reasons(caplog)
    assert reasons[(6, "late")] == "no completed trial has this parameter yet"
    assert reasons[(7, "late")] == (
        "the parameter is in 1 of 7 completed trials, and conditional parameters are modelled from 10 completed trials on"
    )
    assert reasons[(12, "every_third")] == (
        "the parameter is in 4 of 12 completed trials, and neither the values of one categorical parameter nor a "
        "threshold on one int parameter explain when it appears"
    )
    # (Trial 8 takes the model's value, which the wider range contains; trial 9 on cannot.)
    assert reasons[(9, "ranged")].startswith("its distribution in this trial, FloatDistribution(high=3.0")
    assert "differs from that of completed trials (FloatDistribution(high=2.0" in reasons[(9, "ranged")]
    # Parameters the model proposes are never warned about; the initial design never warns.
    assert {name for _, name in reasons} == {"late", "every_third", "ranged"}
    assert min(number for number, _ in reasons) >= N_STARTUP


def test_the_warning_names_a_model_failure(monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture) -> None:
    def broken(*args: object, **kwargs: object) -> None:
        raise _core.NumericalError("Cholesky: simulated failure")

    monkeypatch.setattr(_core, "value_proposals", broken)
    with caplog.at_level(logging.WARNING, logger=SAMPLER_LOGGER):
        run_study(mixed_objective, N_STARTUP + 1)
    reasons = warned_reasons(caplog)
    assert set(reasons) == {(N_STARTUP, name) for name in ("kind", "flag", "x", "lr", "n")}
    assert set(reasons.values()) == {"the model made no suggestion for this trial (the warning before this one names the error)"}
    failure = [r.getMessage() for r in caplog.records if "could not propose" in r.getMessage()]
    assert len(failure) == 1 and "simulated failure" in failure[0]


def test_a_trial_begun_during_the_initial_design_does_not_warn(caplog: pytest.LogCaptureFixture) -> None:
    """A trial that began before the initial design was complete is part of it, even if other
    trials complete while it runs (many workers)."""
    study = run_study(mixed_objective, N_STARTUP - 1)
    early = study.ask()
    study.optimize(mixed_objective, n_trials=1)  # the initial design completes while `early` runs
    with caplog.at_level(logging.WARNING, logger=SAMPLER_LOGGER):
        early.suggest_float("new", 0.0, 1.0)
        late = study.ask()
        late.suggest_float("new", 0.0, 1.0)
    assert set(warned_reasons(caplog)) == {(late.number, "new")}


def test_initial_design_phases() -> None:
    """Random first half, then MES (with a published suggestion); an odd design's random half is
    the smaller one."""
    with_mes = run_study(mixed_objective, 8, make_sampler(n_startup_trials=6))
    assert [published_params(t) is not None for t in with_mes.trials] == [False] * 3 + [True] * 5
    odd = run_study(mixed_objective, 8, make_sampler(n_startup_trials=7))
    assert [published_params(t) is not None for t in odd.trials] == [False] * 3 + [True] * 5


# --- Arguments ----------------------------------------------------------------------------


SETTINGS_ERRORS = [
    ({"n_candidates": 0}, ValueError, "n_candidates must be a positive integer, got 0"),
    ({"n_startup_trials": -1}, ValueError, "n_startup_trials must be a non-negative integer, got -1"),
    ({"n_refine": 2.0}, TypeError, "n_refine must be an int, got 2.0"),
    ({"refit_interval": 0}, ValueError, "refit_interval must be a positive integer, got 0"),
    ({"n_restarts": 0}, ValueError, "n_restarts must be a positive integer, got 0"),
    ({"max_enumerated_combinations": 0}, ValueError, "max_enumerated_combinations must be a positive integer"),
    ({"pruned_trials": "drop"}, ValueError, "pruned_trials must be one of ('impute', 'ignore'), got 'drop'"),
    ({"failed_trials": 0}, TypeError, "failed_trials must be a str, got 0"),
    ({"complete_repeats": "never"}, ValueError, "complete_repeats must be one of ('when-noisy', 'allowed')"),
    ({"hyperparameter_prior": "flat"}, ValueError, "hyperparameter_prior must be one of"),
    ({"hyperparameter_prior": None}, TypeError, "hyperparameter_prior must be a str, got None"),
    ({"output_transform": "log"}, ValueError, "output_transform must be one of"),
    ({"multi_objective": "nsga"}, ValueError, "multi_objective must be one of"),
    ({"n_candiates": 200}, TypeError, "unexpected keyword argument 'n_candiates'"),
    # Measured, not adopted, and removed (docs/decisions.md, "Settings that left").
    ({"n_local_candidates": 128}, TypeError, "unexpected keyword argument 'n_local_candidates'"),
    ({"categorical_relevance": True}, TypeError, "unexpected keyword argument 'categorical_relevance'"),
    ({"hyperparameter_prior": "gpsampler"}, ValueError, "hyperparameter_prior must be one of ('dimension-scaled', 'none')"),
    ({"output_transform": "copula"}, ValueError, "output_transform must be one of ('yeo-johnson', 'standardize')"),
    # The search policy's constants and the research switches that left the settings.
    *[({name: value}, TypeError, f"unexpected keyword argument '{name}'") for name, value in (
        ("stall_trials", 10), ("stall_perturbation", True), ("stall_tolerance", 1e-6), ("early_refits", True),
        ("search_initialization", True), ("complete_repeat_fraction", 1e-9), ("random_interval", 8),
        ("design_rows", "balanced"), ("discrete_line_search", True), ("flat_dimensions", "draw"),
    )],
    ({"pruned_trials": "curve-linear"}, ValueError, "pruned_trials must be one of ('impute', 'ignore')"),
]


@pytest.mark.parametrize("fields, error, message", SETTINGS_ERRORS, ids=lambda v: next(iter(v)) if isinstance(v, dict) else None)
def test_invalid_settings_raise_clear_errors(fields: dict[str, Any], error: type[Exception], message: str) -> None:
    with pytest.raises(error, match=re.escape(message)):
        VPBOSettings(**fields)
    with pytest.raises(error, match=re.escape(next(iter(fields)))):  # each message names the field
        VPBOSettings().replace(**fields)


@pytest.mark.parametrize(
    "kwargs, error, message",
    [
        ({"preset": "nope"}, ValueError, "Unknown preset 'nope'"),
        ({"preset": 1}, TypeError, "preset must be a str or None, got 1"),
        ({"seed": "x"}, TypeError, "seed must be an int or None, got 'x'"),
        ({"seed": 1.5}, TypeError, "seed must be an int or None, got 1.5"),
        ({"n_startup_trials": -1}, ValueError, "n_startup_trials must be a non-negative integer, got -1"),
        ({"n_startup_trials": 2.0}, TypeError, "n_startup_trials must be an int, got 2.0"),
        ({"record_proposals": 1}, TypeError, "record_proposals must be a bool, got 1"),
        ({"warn_independent_sampling": None}, TypeError, "warn_independent_sampling must be a bool, got None"),
        ({"independent_sampler": "random"}, TypeError, "independent_sampler must be an Optuna sampler or None"),
        ({"constraints_func": [0.0]}, TypeError, "constraints_func must be callable or None"),
        ({"settings": {"n_refine": 0}}, TypeError, "settings must be a VPBOSettings or None, got dict"),
        ({"settings": VPBOSettings(), "preset": "paper"}, ValueError, "Give either preset='paper' or settings, not both"),
        ({"settings": VPBOSettings(), "preset": "default"}, ValueError, "Give either preset='default' or settings"),
        # Settings are not constructor arguments: they go through ``settings=VPBOSettings(...)``.
        ({"n_candidates": 200}, TypeError, "unexpected keyword argument 'n_candidates'"),
    ],
    ids=lambda v: "-".join(v) if isinstance(v, dict) else None,
)
def test_invalid_arguments_raise_clear_errors(kwargs: dict[str, Any], error: type[Exception], message: str) -> None:
    with pytest.raises(error, match=re.escape(message)):
        VPBOSampler(**kwargs)


def test_preset_settings_and_startup_trials_combine_as_documented() -> None:
    paper = VPBOSampler(preset="paper").settings
    assert paper == VPBOSettings.paper() == PRESETS["paper"]
    assert (paper.n_candidates, paper.n_refine, paper.n_restarts) == (200, 0, 5)
    # The paper's algorithm: 24 initial points, Sobol candidates alone, no search policy, no early refits.
    assert (paper.n_startup_trials, paper.is_paper, paper.hyperparameter_prior) == (24, True, "none")
    assert VPBOSampler().settings == VPBOSampler(preset="default").settings == VPBOSettings()
    same_fields = VPBOSettings(
        n_startup_trials=24, n_candidates=200, n_refine=0, n_restarts=5, hyperparameter_prior="none",
        output_transform="standardize", pruned_trials="ignore", failed_trials="ignore", complete_repeats="allowed",
    )
    assert not VPBOSettings().is_paper and not same_fields.is_paper and same_fields != VPBOSettings.paper()
    # settings replace the preset; n_startup_trials replaces the size of the initial design in either.
    changed = VPBOSampler(settings=VPBOSettings.paper().replace(n_candidates=7, n_refine=1)).settings
    assert (changed.n_candidates, changed.n_refine, changed.n_restarts, changed.n_startup_trials) == (7, 1, 5, 24)
    assert changed.is_paper and pickle.loads(pickle.dumps(changed)) == changed
    assert VPBOSampler(preset="paper", n_startup_trials=6).settings == VPBOSettings.paper().replace(n_startup_trials=6)
    given = VPBOSettings(n_startup_trials=30, n_refine=0)
    assert VPBOSampler(settings=given, n_startup_trials=8).settings == given.replace(n_startup_trials=8)
    assert VPBOSampler(settings=given).settings is given
    assert VPBOSettings.paper().replace() == VPBOSettings.paper()


def test_the_constructor_takes_only_the_documented_keyword_arguments() -> None:
    parameters = inspect.signature(VPBOSampler).parameters
    assert list(parameters) == [
        "seed", "n_startup_trials", "constraints_func", "independent_sampler",
        "record_proposals", "preset", "settings", "warn_independent_sampling",
    ]
    assert all(p.kind is inspect.Parameter.KEYWORD_ONLY for p in parameters.values())
    with pytest.raises(TypeError):
        VPBOSampler(0)  # type: ignore[call-arg]  # the positional argument under test


# --- Determinism --------------------------------------------------------------------------


def test_same_seed_same_suggestions_and_different_seed_differs() -> None:
    first, second, other = seeded_run(0, 20), seeded_run(0, 20), seeded_run(1, 20)
    assert first == second
    assert all(a != b for a, b in zip(first[N_STARTUP:], other[N_STARTUP:])), "GP phase ignores the seed"


def test_same_seed_reproduces_in_a_spawned_process() -> None:
    with multiprocessing.get_context("spawn").Pool(1) as pool:
        remote = pool.apply(seeded_run, (7, 12))
    assert remote == seeded_run(7, 12)


def test_pickled_sampler_continues_the_study() -> None:
    sampler = make_sampler(seed=3)
    study = run_study(mixed_objective, 8, sampler)
    restored = pickle.loads(pickle.dumps(sampler))
    assert restored.settings == sampler.settings
    original_next, restored_next = ask_one_relative(study, sampler, restored)
    assert original_next and original_next == restored_next
    study.sampler = restored
    study.optimize(mixed_objective, n_trials=4)
    assert len(study.trials) == 13
    assert [t.state for t in study.trials].count(TrialState.COMPLETE) == 12
    assert all(published_params(t) for t in study.trials[9:])


def test_reseed_rng_changes_subsequent_suggestions() -> None:
    sampler = make_sampler(seed=5)
    study = run_study(mixed_objective, 8, sampler)
    twin = pickle.loads(pickle.dumps(sampler))  # same seed and the same cached GP fit
    before, twin_before = ask_one_relative(study, sampler, twin)
    assert before and before == twin_before
    sampler.reseed_rng()
    after, twin_after = ask_one_relative(study, sampler, twin)
    assert after and after != twin_after


# --- Concurrency and multi-objective ------------------------------------------------------


def test_two_threads_complete_every_trial_with_distinct_points() -> None:
    study = optuna.create_study(sampler=make_sampler())
    study.optimize(mixed_objective, n_trials=30, n_jobs=2)
    assert_all_complete(study, 30)
    points = {tuple(sorted(p.items())) for p in all_params(study)}
    assert len(points) == 30


def test_multi_objective_studies_use_the_gp(caplog: pytest.LogCaptureFixture) -> None:
    def objective(trial: optuna.Trial) -> tuple[float, float]:
        value = mixed_objective(trial)
        return value, trial.params["x"]

    with caplog.at_level(logging.WARNING, logger=SAMPLER_LOGGER):
        study = run_study(objective, 12, directions=["minimize", "maximize"])
    assert_all_complete(study, 12)
    assert_gp_suggestions_used(study)
    assert all(len(t.values) == 2 for t in study.trials)
    assert warned_params(caplog) == set()


def test_a_failing_model_never_fails_the_trial(monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture) -> None:
    def broken(*args: object, **kwargs: object) -> None:
        raise _core.NumericalError("Cholesky: simulated failure")

    monkeypatch.setattr(_core, "value_proposals", broken)
    with caplog.at_level(logging.WARNING, logger=SAMPLER_LOGGER):
        study = run_study(mixed_objective, 10)
    assert_all_complete(study, 10)
    assert "simulated failure" in caplog.text


def test_a_bug_in_the_model_surfaces(monkeypatch: pytest.MonkeyPatch) -> None:
    """Only what the model honestly cannot do (NumericalError, LinAlgError) falls back to the
    independent sampler; any other error is a bug and fails the trial loudly."""
    def broken(*args: object, **kwargs: object) -> None:
        raise ValueError("a shape bug")

    monkeypatch.setattr(_core, "value_proposals", broken)
    with pytest.raises(ValueError, match="a shape bug"):
        run_study(mixed_objective, 10)
