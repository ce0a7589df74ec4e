"""Failures a user should know about are reported once, with their reason (a hyperparameter fit
whose every start fails, a running trial that cannot be encoded, infinite objective or constraint
values), and values near the float limit are handled without a word."""

from __future__ import annotations

import logging
import math
import warnings
from collections.abc import Iterator
from typing import NoReturn

import numpy as np
import optuna
import pytest
import scipy.stats
from optuna.distributions import CategoricalDistribution, FloatDistribution
from optuna.study import StudyDirection

from optuna_vpbo import VPBOSampler, _core
from optuna_vpbo._fit import GPHyperparameters, fit_hyperparameters, theta_bounds
from optuna_vpbo._optuna_compat import get_trials
from optuna_vpbo._output_transforms import ConstraintStandardize, Standardize, YeoJohnson
from optuna_vpbo._pending import pending_points, publish
from optuna_vpbo._search_tree import SearchTree
from optuna_vpbo._targets import scalarized_values
from optuna_vpbo._tree_encoder import TreeEncoder


@pytest.fixture
def optuna_logs(caplog: pytest.LogCaptureFixture) -> Iterator[pytest.LogCaptureFixture]:
    """Every record from debug level up (this package's loggers are not under "optuna")."""
    with caplog.at_level(logging.DEBUG):
        yield caplog


class FailingLikelihood:
    def __init__(self, *args: object, **kwargs: object) -> None:
        pass

    def __call__(self, theta: np.ndarray) -> NoReturn:
        raise _core.NumericalError("K + noise I is not positive definite (simulated)")


def test_a_fit_whose_every_start_fails_says_why_once_and_keeps_the_warm_start(
    monkeypatch: pytest.MonkeyPatch, optuna_logs: pytest.LogCaptureFixture
) -> None:
    rng = np.random.default_rng(0)
    h, x, y = np.zeros((12, 1), np.int32), rng.random((12, 2)), rng.standard_normal(12)
    warm = GPHyperparameters(np.array([0.3, 0.4]), 1.2, 1e-3, 0.6)
    monkeypatch.setattr(_core, "LikelihoodEvaluator", FailingLikelihood)  # the module _fit calls
    fitted = fit_hyperparameters(h, x, y, rng=rng, n_restarts=3, warm_start=warm)
    np.testing.assert_allclose(fitted.to_theta(), warm.to_theta(), rtol=1e-15)
    warnings_logged = [r for r in optuna_logs.records if r.levelno == logging.WARNING and r.name == "optuna_vpbo._fit"]
    assert len(warnings_logged) == 1
    message = warnings_logged[0].getMessage()
    assert "3 start(s)" in message and "(simulated)" in message and "previous hyperparameters" in message


def test_a_fit_with_a_good_start_is_silent(optuna_logs: pytest.LogCaptureFixture) -> None:
    rng = np.random.default_rng(0)
    h, x, y = np.zeros((12, 1), np.int32), rng.random((12, 2)), rng.standard_normal(12)
    fitted = fit_hyperparameters(h, x, y, rng=rng, n_restarts=2)
    lows, highs = np.array(theta_bounds(fitted.layout)).T
    assert np.all((lows <= fitted.to_theta()) & (fitted.to_theta() <= highs))
    assert not [r for r in optuna_logs.records if r.name == "optuna_vpbo._fit"]


FLAT = {"c": CategoricalDistribution(["a", "b"]), "x": FloatDistribution(-2.0, 2.0)}


def test_a_running_trial_left_out_of_the_pending_points_is_logged_once_with_the_reason(
    optuna_logs: pytest.LogCaptureFixture,
) -> None:
    study = optuna.create_study()
    for _ in range(4):
        study.ask()
    current, fine, foreign, broken = get_trials(study, None, use_cache=False)
    publish(study, fine, {"c": "a", "x": 0.5})
    publish(study, foreign, {"c": "z", "x": 0.5})  # "z" is no choice of this space: no leaf
    publish(study, broken, {"c": "b", "x": "abc"})  # a leaf, but no float to encode
    encoder = TreeEncoder(SearchTree(dict(sorted(FLAT.items())), {}))
    current_frozen = next(t for t in get_trials(study, None, use_cache=False) if t.number == current.number)
    for _ in range(3):  # three trials read the same running trials
        h, x = pending_points(get_trials(study, None, use_cache=False), current_frozen, encoder, encoder.active_params)
        assert len(h) == 1  # only the encodable one is pending
    logged = [(r.levelno, r.getMessage()) for r in optuna_logs.records if r.name == "optuna_vpbo._pending"]
    assert len(logged) == 2
    (debug,) = [m for level, m in logged if level == logging.DEBUG]
    (warning,) = [m for level, m in logged if level == logging.WARNING]
    assert f"Trial#{foreign.number}" in debug and "'z'" in debug
    assert f"Trial#{broken.number}" in warning and "cannot be encoded" in warning
    assert "could not convert string to float" in warning


def test_infinite_values_warn_once_per_trial_and_name_objective_or_constraint() -> None:
    """Trial 1's constraint and trial 2's objective are infinite: every later trial whose models
    read them (the design's too) warns once for each, though the models read the values several
    times a trial."""
    optuna.logging.set_verbosity(optuna.logging.ERROR)

    def objective(trial: optuna.Trial) -> float:
        x = trial.suggest_float("x", -1.0, 1.0)
        c = trial.suggest_categorical("c", ["a", "b"])
        # Distinct infinite values per run, so that no earlier test's values are the same.
        trial.set_user_attr("g", math.inf if trial.number == 1 else x - 0.77)
        return -math.inf if trial.number == 2 else x**2 + (0.5 if c == "a" else 0.0) + 0.0123

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)  # constraints_func is deprecated in Optuna 5
        sampler = VPBOSampler(seed=3, n_startup_trials=5, constraints_func=lambda t: (t.user_attrs["g"],))
    study = optuna.create_study(sampler=sampler)
    per_trial = []
    for number in range(12):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            trial = study.ask()  # the sampler proposes here
            value = objective(trial)
        study.tell(trial, value)
        messages = [str(w.message) for w in caught if "infinite" in str(w.message)]
        per_trial.append(messages)
        assert sum("objective values are infinite" in m for m in messages) == (number >= 3)
        assert sum("constraint values are infinite" in m for m in messages) == (number >= 2)
        assert len(messages) == (number >= 3) + (number >= 2)
    assert sorted(per_trial[5]) == [
        "1 of 5 constraint values are infinite; VPBOSampler clips them to the most extreme finite constraint values observed.",
        "1 of 5 objective values are infinite; VPBOSampler clips them to the most extreme finite objective values observed.",
    ]


def huge(trial: optuna.Trial) -> float:
    c = trial.suggest_categorical("c", ["a", "b"])
    x = trial.suggest_float("x", -1.0, 1.0)
    trial.set_user_attr("g", 1e300 * (x - 0.3))
    return 1e300 * (x**2 + (0.5 if c == "a" else 0.0) + 0.1)


@pytest.mark.parametrize("preset", ["default", "paper"])
def test_values_on_a_1e300_scale_raise_no_runtime_warning(preset: str) -> None:
    optuna.logging.set_verbosity(optuna.logging.ERROR)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        study = optuna.create_study(sampler=VPBOSampler(seed=0, preset=preset))
        study.optimize(huge, n_trials=30)
    assert [str(w.message) for w in caught if issubclass(w.category, RuntimeWarning)] == []
    # Targets that were all 0 (an overflowed spread) would leave the search at random: the GP
    # trials come close to the minimum 1e299 at x = 0, c = "b".
    assert study.best_value < 1.01e299


@pytest.mark.parametrize("scale", [1e300, 5e307, 1e-300])
def test_transforms_of_extreme_values_are_finite_and_scale_free(scale: float) -> None:
    rng = np.random.default_rng(1)
    base = rng.standard_normal(40) + 0.5
    values = base * scale
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        for transform in (Standardize(StudyDirection.MINIMIZE), YeoJohnson(StudyDirection.MAXIMIZE)):
            targets = transform.fit(values)(values)
            reference = transform.fit(base)(base)
            assert np.all(np.isfinite(targets))
            np.testing.assert_allclose(targets, reference, rtol=1e-9, atol=1e-9)
        constraint = ConstraintStandardize().fit(values)
        np.testing.assert_allclose(constraint(values), scipy.stats.zscore(base), rtol=1e-9, atol=1e-12)
        assert constraint.threshold(values) == pytest.approx(-base.mean() / base.std(), rel=1e-9)
        scalar = scalarized_values(np.column_stack([values, -values]), [StudyDirection.MINIMIZE] * 2, np.array([0.5, 0.5]))
        expected = scalarized_values(np.column_stack([base, -base]), [StudyDirection.MINIMIZE] * 2, np.array([0.5, 0.5]))
        np.testing.assert_allclose(scalar, expected, rtol=1e-12)
