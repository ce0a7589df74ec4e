"""What other workers, older versions or a damaged database leave in a study's storage never stops
the study: the sampler reads every attribute through one validating reader
(``optuna_vpbo._stored``) and ignores, with one warning naming the attribute, what fails.

Each case below wrote one value into an attribute the sampler reads and then ran a trial as
another worker would; on 74e94fd each made ``study.optimize`` raise or hang (or read a mark that
is not one). The property-based tests of ``test_untrusted_storage_properties.py`` write
arbitrary values into the same attributes.
"""

from __future__ import annotations

import contextlib
import json
import logging
import math
import signal
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np
import optuna
import pytest
from optuna.trial import TrialState

import release_study
from conftest import counted_fits, make_sampler, mixed_objective
from optuna_vpbo import VPBOSampler, _fit, _optuna_compat
from optuna_vpbo._fit import LAMBDA_BOUNDS, LENGTHSCALE_BOUNDS, NOISE_BOUNDS, VARIANCE_BOUNDS
from optuna_vpbo._fit_store import FIT_KEY_PREFIX, valid_fit
from optuna_vpbo._hyperparameters import hyperparameter_layout
from optuna_vpbo._pending import RELATIVE_PARAMS_KEY, pending_points, published_params
from optuna_vpbo._search_tree import SearchTree
from optuna_vpbo._stored import MOVE_KEY, stored_move
from optuna_vpbo._tree_encoder import TreeEncoder
from optuna_vpbo._trial_states import OBJECTIVE_FAILURE_KEY, finished_trials

COUNT_KEY = f"{RELATIVE_PARAMS_KEY}:count"
CHUNK_KEY = f"{RELATIVE_PARAMS_KEY}:0"
# A trial of the mixed objective on a short study takes well under a second.
TRIAL_SECONDS = 10.0
N_BASE_TRIALS = 6
RANDOM = optuna.samplers.RandomSampler(seed=0)
SPACE = {
    "kind": optuna.distributions.CategoricalDistribution(["a", "b", "c"]),
    "flag": optuna.distributions.CategoricalDistribution([True, False]),
    "x": optuna.distributions.FloatDistribution(-2.0, 2.0),
    "lr": optuna.distributions.FloatDistribution(1e-4, 1e-1, log=True),
    "n": optuna.distributions.IntDistribution(1, 8),
}


@contextlib.contextmanager
def time_bound(seconds: float) -> Iterator[None]:
    """Raise TimeoutError in the block after ``seconds`` (a hang fails the test)."""

    def expire(signum: int, frame: Any) -> None:
        raise TimeoutError(f"took more than {seconds:.0f} s")

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


@pytest.fixture(scope="module")
def base_trials() -> list[optuna.trial.FrozenTrial]:
    """The finished trials of a short study past its initial design (the GP phase)."""
    study = optuna.create_study(sampler=make_sampler(seed=0))
    study.optimize(mixed_objective, n_trials=N_BASE_TRIALS)
    return study.trials


def new_study(base_trials: list[optuna.trial.FrozenTrial], **sampler_kwargs: Any) -> optuna.Study:
    study = optuna.create_study(sampler=make_sampler(seed=1, **sampler_kwargs))
    study.add_trials(base_trials)
    return study


def run_trials(study: optuna.Study, n_trials: int = 1) -> None:
    """``n_trials`` trials as another worker: no exception, none slower than TRIAL_SECONDS, every
    value inside the space."""
    n_before = len(study.trials)
    with time_bound(TRIAL_SECONDS * n_trials):
        study.optimize(mixed_objective, n_trials=n_trials)
    for trial in study.trials[n_before:]:
        assert trial.state == TrialState.COMPLETE
        assert all(SPACE[name]._contains(SPACE[name].to_internal_repr(v)) for name, v in trial.params.items())


def ignored_warnings(caplog: pytest.LogCaptureFixture, attribute: str) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING and repr(attribute) in r.getMessage()]


def running_trial_with(study: optuna.Study, attrs: dict[str, Any]) -> None:
    """A running trial (another worker's) whose system attributes hold ``attrs``."""
    trial = study.ask()
    for key, value in attrs.items():
        study._storage.set_trial_system_attr(trial._trial_id, key, value)


PUBLICATIONS: dict[str, dict[str, Any]] = {
    # Each escaped optimize on 74e94fd, but for "overflowing number" (clipped into the space).
    "NaN": {CHUNK_KEY: '{"kind": "a", "flag": true, "x": NaN, "lr": 0.01, "n": 3}', COUNT_KEY: 1},
    "Infinity": {CHUNK_KEY: '{"kind": "a", "flag": true, "x": Infinity, "lr": 0.01, "n": 3}', COUNT_KEY: 1},
    "overflowing number": {CHUNK_KEY: '{"kind": "a", "flag": true, "x": 1e999, "lr": 0.01, "n": 3}', COUNT_KEY: 1},
    "count a string": {CHUNK_KEY: '{"kind": "a"}', COUNT_KEY: "1"},
    "count a float": {CHUNK_KEY: '{"kind": "a"}', COUNT_KEY: 1.0},
    "count a billion": {COUNT_KEY: 10**9},
    "chunk a number": {CHUNK_KEY: 5, COUNT_KEY: 1},
    "deeply nested JSON": {CHUNK_KEY: "[" * 1500 + "]" * 1500, COUNT_KEY: 1},
}


@pytest.mark.parametrize("case", list(PUBLICATIONS))
def test_a_broken_publication_of_a_running_trial_is_skipped(
    case: str, base_trials: list[optuna.trial.FrozenTrial], caplog: pytest.LogCaptureFixture
) -> None:
    study = new_study(base_trials)
    running_trial_with(study, PUBLICATIONS[case])
    with caplog.at_level(logging.WARNING):
        run_trials(study, n_trials=2)
    warned = ignored_warnings(caplog, CHUNK_KEY) + ignored_warnings(caplog, COUNT_KEY)
    assert len(warned) == 1, warned  # once, not at every trial


def test_a_value_of_a_publication_outside_the_space_is_no_pending_point(base_trials: list[optuna.trial.FrozenTrial]) -> None:
    study = new_study(base_trials)
    inside = {"kind": "a", "flag": True, "x": 0.5, "lr": 0.01, "n": 3}
    outside = [{**inside, "x": 3.0}, {**inside, "n": 9}, {**inside, "n": 2.5}, {**inside, "lr": -1.0}, {**inside, "x": None}]
    for params in [inside, *outside]:
        running_trial_with(study, {CHUNK_KEY: json.dumps(params), COUNT_KEY: 1})
    current = study.ask()
    trials = _optuna_compat.get_trials(study, None, use_cache=False)
    encoder = TreeEncoder(SearchTree(dict(sorted(SPACE.items())), {}))
    frozen = next(t for t in trials if t.number == current.number)
    h, x = pending_points(trials, frozen, encoder, encoder.active_params)
    h_inside, x_inside = encoder.encode([inside])
    assert np.array_equal(h, h_inside) and np.array_equal(x, x_inside)


def stored_fit_study(base_trials: list[optuna.trial.FrozenTrial], monkeypatch: pytest.MonkeyPatch) -> tuple[optuna.Study, str]:
    """A study whose fit is stored (as a long study's: ``LONG_STUDY`` lowered to its size), and
    the name of the fit's attribute."""
    monkeypatch.setattr(_fit, "LONG_STUDY", N_BASE_TRIALS)
    study = new_study(base_trials)
    run_trials(study)
    (name,) = [k for k in _optuna_compat.get_study_system_attrs(study) if k.startswith(FIT_KEY_PREFIX)]
    return study, name


def rewrite_fit(study: optuna.Study, name: str, change: Callable[[dict[str, Any]], None]) -> None:
    record = json.loads(_optuna_compat.get_study_system_attrs(study)[name])
    change(record)
    _optuna_compat.set_study_system_attr(study, name, json.dumps(record))


def set_theta(block: str, value: float) -> Callable[[dict[str, Any]], None]:
    def change(record: dict[str, Any]) -> None:
        layout = hyperparameter_layout(record["n_numeric"])
        index = getattr(layout, block)
        record["theta"][index.start if isinstance(index, slice) else index] = value

    return change


STORED_FITS = {
    # 1e308 and -1e308 escaped optimize on 74e94fd (OverflowError, ValueError from the kernel);
    # the others were used as they were.
    "log lengthscale 1e308": set_theta("log_lengthscales", 1e308),
    "log lengthscale -1e308": set_theta("log_lengthscales", -1e308),
    "log variance 1e308": set_theta("log_variance", 1e308),
    "log noise -1e308": set_theta("log_noise", -1e308),
    "log lengthscale 30 (beyond its bound)": set_theta("log_lengthscales", 30.0),
    "log noise -30 (below its bound)": set_theta("log_noise", -30.0),
    "lambda 5": set_theta("lam", 5.0),
    "n a string": lambda record: record.update(n="400"),
    "n beyond a float": lambda record: record.update(n=10**400),
}


@pytest.mark.parametrize("case", list(STORED_FITS))
def test_a_broken_stored_fit_is_refitted(
    case: str, base_trials: list[optuna.trial.FrozenTrial], monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    study, name = stored_fit_study(base_trials, monkeypatch)
    rewrite_fit(study, name, STORED_FITS[case])
    study.sampler = make_sampler(seed=2)  # a new process: it reads the stored fit
    fits = counted_fits(monkeypatch)
    with caplog.at_level(logging.WARNING):
        run_trials(study, n_trials=2)
    assert fits == [1], "refitted once, then the new fit is reused"
    assert len(ignored_warnings(caplog, name)) == 1
    record = json.loads(_optuna_compat.get_study_system_attrs(study)[name])
    layout = hyperparameter_layout(record["n_numeric"])
    theta = np.array(record["theta"])
    assert np.all(np.exp(theta[layout.log_lengthscales]) <= LENGTHSCALE_BOUNDS[1] * (1 + 1e-9))
    assert VARIANCE_BOUNDS[0] <= math.exp(theta[layout.log_variance]) * (1 + 1e-9)
    assert NOISE_BOUNDS[0] <= math.exp(theta[layout.log_noise]) * (1 + 1e-9)
    assert LAMBDA_BOUNDS[0] <= theta[layout.lam] <= LAMBDA_BOUNDS[1]


def finished_trial_with(study: optuna.Study, attrs: dict[str, Any], state: TrialState, value: float = 1.0) -> None:
    """A trial of the space, finished at the storage (as another worker or Optuna's heartbeat
    would: no sampler's ``after_trial``), whose system attributes hold ``attrs``."""
    storage = study._storage
    trial_id = storage.create_new_trial(study._study_id)
    frozen = storage.get_trial(trial_id)
    for name, distribution in SPACE.items():  # random values
        drawn = RANDOM.sample_independent(study, frozen, name, distribution)
        storage.set_trial_param(trial_id, name, distribution.to_internal_repr(drawn), distribution)
    for key, attr in attrs.items():
        storage.set_trial_system_attr(trial_id, key, attr)
    storage.set_trial_state_values(trial_id, state, [value] if state == TrialState.COMPLETE else None)


@pytest.mark.parametrize("value", [[1], {"number": 1}, "1", 10**30, -1, True, 1.5, None])
def test_a_broken_retried_trial_number_is_ignored(
    value: Any, base_trials: list[optuna.trial.FrozenTrial], caplog: pytest.LogCaptureFixture
) -> None:
    # A list or an object escaped optimize on 74e94fd (unhashable); the others were read as
    # numbers of no failed trial (True and 1.5 as trial 1 and no trial).
    study = new_study(base_trials)
    finished_trial_with(study, {OBJECTIVE_FAILURE_KEY: True}, TrialState.FAIL)
    finished_trial_with(study, {"failed_trial": value}, TrialState.COMPLETE)
    with caplog.at_level(logging.WARNING):
        run_trials(study, n_trials=2)
    assert len(ignored_warnings(caplog, "failed_trial")) == 1


@pytest.mark.parametrize("value", ["false", 1, [True], {"failed": True}, None])
def test_a_failure_mark_that_is_not_a_bool_is_not_read(
    value: Any, base_trials: list[optuna.trial.FrozenTrial], caplog: pytest.LogCaptureFixture
) -> None:
    study = new_study(base_trials)
    finished_trial_with(study, {OBJECTIVE_FAILURE_KEY: value}, TrialState.FAIL)
    with caplog.at_level(logging.WARNING):
        assert finished_trials(study.trials).failed == []  # "false" read as a failure on 74e94fd
        run_trials(study)
    assert len(ignored_warnings(caplog, OBJECTIVE_FAILURE_KEY)) == 1


@pytest.mark.parametrize("value", ["proposals", ["proposals"], ["proposals", 1], [3, True], ["x" * 41, True], None])
def test_a_broken_stored_move_is_not_read(
    value: Any, base_trials: list[optuna.trial.FrozenTrial], caplog: pytest.LogCaptureFixture
) -> None:
    study = new_study(base_trials)
    finished_trial_with(study, {MOVE_KEY: value}, TrialState.COMPLETE)
    with caplog.at_level(logging.WARNING):
        assert stored_move(study.trials[-1]) is None
        run_trials(study)
    assert len(ignored_warnings(caplog, MOVE_KEY)) == 1


CONSTRAINTS: dict[str, tuple[dict[str, Any], dict[str, Any]]] = {
    # (the first trial's attributes, the two others'). Each escaped optimize on 74e94fd: a string
    # in numpy's comparison, Optuna's reader on an int, a constraint whose only value is NaN
    # (found by the property-based tests: a GP fitted on no observation).
    "a string value": ({"constraints:c": "x"}, {"constraints:c": -1.0}),
    "an old-format list that is an int": ({"constraints": 3}, {"constraints": [-1.0]}),
    "an old-format list of strings": ({"constraints": ["a"]}, {"constraints": [-1.0]}),
    "an int beyond a float": ({"constraints:c": 10**400}, {"constraints:c": -1.0}),
    "a NaN, the constraint's only value": ({"constraints:c": math.nan}, {}),
}


@pytest.mark.parametrize("case", list(CONSTRAINTS))
def test_broken_constraint_values_are_ignored(
    case: str, base_trials: list[optuna.trial.FrozenTrial], caplog: pytest.LogCaptureFixture
) -> None:
    first, others = CONSTRAINTS[case]
    if not _optuna_compat.HAS_NAMED_CONSTRAINTS and any(":" in key for key in first):
        pytest.skip("Optuna 4 has no named constraints")
    study = new_study(base_trials)
    for i in range(3):
        finished_trial_with(study, first if i == 0 else others, TrialState.COMPLETE, value=0.5 + i)
    with caplog.at_level(logging.WARNING):
        run_trials(study, n_trials=2)
    # Optuna keeps named constraints under "constraints:<name>": the warning names "constraints".
    assert len([m for m in ignored_warnings(caplog, "constraints") if "Trial#" in m]) == 1


def test_a_broken_dashboard_note_version_skips_the_note(
    base_trials: list[optuna.trial.FrozenTrial], caplog: pytest.LogCaptureFixture
) -> None:
    pytest.importorskip("optuna_dashboard")
    study = new_study(base_trials, record_proposals=True)
    next_id = max(t._trial_id for t in study.trials) + 1
    for trial_id in range(next_id, next_id + 2):  # escaped optimize on 74e94fd (str + int)
        _optuna_compat.set_study_system_attr(study, f"dashboard:{trial_id}:note_ver", "x")
    with caplog.at_level(logging.WARNING):
        run_trials(study, n_trials=2)
    assert all(t.user_attrs["vpbo"]["phase"] == "proposals" for t in study.trials[-2:])  # the diagnostics stay
    assert len(ignored_warnings(caplog, f"dashboard:{next_id}:note_ver")) == 1


@pytest.mark.parametrize("storage_kind", ["memory", "sqlite"])
def test_a_study_written_by_the_previous_release_is_continued(
    storage_kind: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """74e94fd's stored fits, publications of running trials and failure mark
    (``release_study``) are read as they are: the running trials are pending points, the failed
    trial is a failure of the objective, both stored fits (objective and success models) are
    reused without a fit, and nothing is ignored."""
    study = release_study.load(f"sqlite:///{tmp_path / 'study.db'}" if storage_kind == "sqlite" else None)
    running = [t for t in study.trials if t.state == TrialState.RUNNING]
    assert len(running) == release_study.N_RUNNING and all(published_params(t) for t in running)
    assert [t.number for t in finished_trials(study.trials).failed] == [release_study.FAILING_TRIAL]
    encoder = TreeEncoder(SearchTree(dict(sorted(SPACE.items())), {}))
    current = study.ask()
    trials = _optuna_compat.get_trials(study, None, use_cache=False)
    h, _ = pending_points(trials, next(t for t in trials if t.number == current.number), encoder, encoder.active_params)
    assert len(h) == release_study.N_RUNNING  # the current trial is no pending point of itself
    study._storage.set_trial_state_values(current._trial_id, TrialState.FAIL)  # as Optuna's heartbeat would
    stored = {k: v for k, v in _optuna_compat.get_study_system_attrs(study).items() if k.startswith(FIT_KEY_PREFIX)}
    assert len(stored) == 2 and all(valid_fit(json.loads(text))[0] >= _fit.LONG_STUDY for text in stored.values())

    fits = counted_fits(monkeypatch)
    study.sampler = VPBOSampler(seed=3, record_proposals=True)
    with caplog.at_level(logging.WARNING), time_bound(60.0):
        study.optimize(release_study.objective, n_trials=2)
    assert not [r for r in caplog.records if r.name == "optuna_vpbo._stored"]
    new = study.trials[-2:]
    assert all(t.state == TrialState.COMPLETE and t.user_attrs["vpbo"]["phase"] == "proposals" for t in new)
    assert fits == [], "both stored fits are reused"
    after = {k: v for k, v in _optuna_compat.get_study_system_attrs(study).items() if k.startswith(FIT_KEY_PREFIX)}
    assert after == stored
    lengthscales = list(new[0].user_attrs["vpbo"]["lengthscales"].values())
    assert any(lengthscales == [round(float(v), 4) for v in valid_fit(json.loads(t))[1].lengthscales] for t in stored.values())
