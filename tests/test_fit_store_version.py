"""A stored fit carries the version of the hyperparameter layout and priors; a fit of another
version, or an old unversioned one, is refitted, not read as a vector of a plausible length."""

from __future__ import annotations

import json
import math

import numpy as np
import optuna
import pytest

from conftest import counted_fits
from optuna_vpbo import VPBOSampler, _optuna_compat
from optuna_vpbo._fit import LONG_STUDY, GPHyperparameters
from optuna_vpbo._fit_store import STORED_FIT_VERSION, StudyFitStore, attribute_name

HYPERPARAMETERS = GPHyperparameters(np.array([0.3, 0.5]), 1.3, 1e-4, 0.4)


def write(study: optuna.Study, key: tuple[str, ...], record: dict[str, object]) -> None:
    _optuna_compat.set_study_system_attr(study, attribute_name(key), json.dumps(record))


def test_the_current_version_is_stored_and_read_back() -> None:
    study = optuna.create_study()
    store = StudyFitStore(study)
    store.save(("k",), 400, HYPERPARAMETERS)
    record = json.loads(_optuna_compat.get_study_system_attrs(study)[attribute_name(("k",))])
    assert record["version"] == STORED_FIT_VERSION == "layout-1/priors-1"
    stored = store.load(("k",))
    assert stored is not None
    n, loaded = stored
    assert n == 400 and np.array_equal(loaded.to_theta(), HYPERPARAMETERS.to_theta())


def test_an_unversioned_or_other_version_fit_of_plausible_length_is_ignored() -> None:
    study = optuna.create_study()
    store = StudyFitStore(study)
    theta = HYPERPARAMETERS.to_theta().tolist()
    current = {"version": STORED_FIT_VERSION, "n": 400, "n_numeric": 2, "theta": theta}
    write(study, ("current",), current)
    assert store.load(("current",)) is not None  # the records below differ from it only in the version
    write(study, ("before versions",), {"n": 400, "theta": theta})  # the format before this change
    write(study, ("unversioned",), {key: value for key, value in current.items() if key != "version"})
    for version in ("layout-0/priors-1", "layout-1/priors-2", "layout-2/priors-1", 1, None):
        write(study, (f"version {version}",), {**current, "version": version})
        assert store.load((f"version {version}",)) is None
    assert store.load(("before versions",)) is None
    assert store.load(("unversioned",)) is None


def test_the_previous_releases_records_are_read_and_those_with_relevances_refitted() -> None:
    """Records as the release with categorical relevances wrote them (7dddf86): one without
    relevances is the same format today and is read; one with relevances (``n_relevances``, theta
    longer by one log relevance per categorical) is of a layout that left, and is refitted, also
    when its theta has the length of a fit without them."""
    study = optuna.create_study()
    store = StudyFitStore(study)
    theta = [math.log(0.3), math.log(0.5), math.log(1.3), math.log(1e-4), 0.4]
    write(study, ("plain",), {"version": "layout-1/priors-1", "n": 400, "n_numeric": 2, "theta": theta})
    stored = store.load(("plain",))
    assert stored is not None
    n, loaded = stored
    assert n == 400 and np.array_equal(loaded.to_theta(), theta)
    with_relevances = {"version": "layout-1/priors-1", "n": 400, "n_numeric": 2, "theta": [*theta, 0.0, 1.0], "n_relevances": 2}
    write(study, ("relevances",), with_relevances)
    assert store.load(("relevances",)) is None
    write(study, ("plausible length",), {**with_relevances, "n_numeric": 1, "theta": theta, "n_relevances": 1})
    assert store.load(("plausible length",)) is None


def objective(trial: optuna.Trial) -> float:
    c = trial.suggest_categorical("c", ["a", "b", "c"])
    u, v = trial.suggest_float("u", -1, 1), trial.suggest_float("v", -1, 1)
    return (u - 0.3) ** 2 + (v + 0.2) ** 2 + {"a": 0.0, "b": 0.5, "c": 1.0}[c]


def test_a_long_study_refits_over_an_unversioned_stored_fit(monkeypatch: pytest.MonkeyPatch) -> None:
    """The study's stored fit is rewritten without its version: a new sampler fits instead of
    reading it, and stores its own fit with the current version."""
    optuna.logging.set_verbosity(optuna.logging.ERROR)
    random_study = optuna.create_study(sampler=optuna.samplers.RandomSampler(seed=0))
    random_study.optimize(objective, n_trials=LONG_STUDY + 5)
    study = optuna.create_study()
    study.add_trials(random_study.trials)
    study.sampler = VPBOSampler(seed=1)
    study.optimize(objective, n_trials=1)
    ((name, text),) = [(k, v) for k, v in _optuna_compat.get_study_system_attrs(study).items() if k.startswith("vpbo:fit:")]
    record = json.loads(text)
    del record["version"]
    _optuna_compat.set_study_system_attr(study, name, json.dumps(record))

    fits = counted_fits(monkeypatch)
    study.sampler = VPBOSampler(seed=2)
    study.optimize(objective, n_trials=1)
    assert fits == [1]
    assert json.loads(_optuna_compat.get_study_system_attrs(study)[name])["version"] == STORED_FIT_VERSION
    # With the version back, a new sampler reads the fit and does not fit.
    fits.clear()
    study.sampler = VPBOSampler(seed=3)
    study.optimize(objective, n_trials=1)
    assert fits == []
