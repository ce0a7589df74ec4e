"""Long studies (docs/decisions.md, "Long studies"): the O(n^2) growth of a GP's Cholesky factor
against a from-scratch factorisation and NumPy, the refit schedule, the training subsets, the fit
kept in the study for a new process, and determinism for a seed."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import numpy as np
import optuna
import pytest

from optuna_vpbo import VPBOSampler, _core, _fit, _optuna_compat
from optuna_vpbo._fit import LONG_STUDY, GPHyperparameters, ModelCache, RefitSchedule, training_subset
from optuna_vpbo._fit_store import StudyFitStore, attribute_name
from optuna_vpbo._output_transforms import ConstraintStandardize, Standardize
from test_native_numerics import numpy_posterior, random_data

HYPERPARAMETERS = GPHyperparameters(np.array([0.3, 0.5]), 1.3, 1e-4, 0.4)


def gp_of(h: np.ndarray, x: np.ndarray, y: np.ndarray, hp: GPHyperparameters = HYPERPARAMETERS) -> _core.MixedGP:
    return hp.gp_in_order(h, x, y)


@pytest.mark.parametrize("n_levels,m", [([3, 2], 5), ([4], 1), ([], 3), ([3, 2], 0)])
def test_extended_gp_matches_a_from_scratch_factorisation_and_numpy(n_levels: list[int], m: int) -> None:
    rng = np.random.default_rng(0)
    h, x, _ = random_data(rng, 60 + m, n_levels, 2)
    y = rng.standard_normal(60 + m)
    hq, xq, _ = random_data(rng, 25, n_levels, 2)
    grown = gp_of(h[:60], x[:60], rng.standard_normal(60)).extended(h[60:], x[60:], y)  # new targets for all points
    scratch = gp_of(h, x, y)
    for (mean, var), (ref_mean, ref_var) in [(grown.predict(hq, xq), scratch.predict(hq, xq))]:
        np.testing.assert_allclose(mean, ref_mean, atol=1e-10, rtol=0)
        np.testing.assert_allclose(var, ref_var, atol=1e-10, rtol=0)
    hp = HYPERPARAMETERS
    np_mean, np_var = numpy_posterior(h, x, y, hq, xq, hp.lengthscales, hp.variance, hp.lam, hp.noise)
    mean, var = grown.predict(hq, xq)
    np.testing.assert_allclose(mean, np_mean, atol=1e-8, rtol=0)
    np.testing.assert_allclose(var, np_var, atol=1e-8, rtol=0)
    assert grown.n_train == 60 + m


def test_extended_gp_rejects_bad_input() -> None:
    rng = np.random.default_rng(1)
    h, x, y = random_data(rng, 10, [3], 2)
    gp = gp_of(h, x, y)
    with pytest.raises(ValueError, match="one value per training point"):
        gp.extended(h[:2], x[:2], y)
    with pytest.raises(ValueError, match="wrong number of columns"):
        gp.extended(h[:2], x[:2, :1], np.zeros(12))
    with pytest.raises(ArithmeticError, match="not positive definite"):
        # the same point twice at no noise: the grown matrix is singular
        GPHyperparameters(np.array([0.3, 0.5]), 1.0, 0.0, 0.4).gp_in_order(h, x, y).extended(h[:1], x[:1], np.zeros(11))


def test_refit_schedule_is_the_papers_for_short_studies_and_grows_beyond() -> None:
    schedule = RefitSchedule(refit_interval=10, n_restarts=3)
    assert [schedule.interval(n) for n in (24, 150, LONG_STUDY - 1)] == [10, 10, 10]
    assert [schedule.interval(n) for n in (LONG_STUDY, 1000, 5000)] == [15, 50, 250]
    assert RefitSchedule(100, 3).interval(1000) == 100  # never below refit_interval
    assert not schedule.is_due(1000, 1049) and schedule.is_due(1000, 1050) and schedule.is_due(1000, 999)
    assert schedule.restarts(LONG_STUDY - 1, warm=True) == 3
    assert schedule.restarts(LONG_STUDY, warm=True) == 1
    assert schedule.restarts(5000, warm=False) == 3


def test_early_refits_refit_every_tenth_of_the_data_up_to_the_interval() -> None:
    schedule = RefitSchedule(refit_interval=10, n_restarts=3, early_refits=True)
    assert [schedule.interval(n) for n in (5, 10, 19, 20, 35, 99, 100, 250)] == [1, 1, 1, 2, 3, 9, 10, 10]
    # Long studies are scheduled as without early refits.
    assert [schedule.interval(n) for n in (LONG_STUDY, 1000)] == [15, 50]
    assert schedule.is_due(12, 13) and not RefitSchedule(10, 3).is_due(12, 13)


def test_model_cache_refits_when_and_as_scheduled(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[tuple[int, int, bool]] = []
    real_fit = _fit.fit_hyperparameters

    def counting_fit(h: np.ndarray, x: np.ndarray, y: np.ndarray, **kwargs: Any) -> GPHyperparameters:  # passed on
        calls.append((len(h), kwargs["n_restarts"], kwargs["warm_start"] is not None))
        return real_fit(h, x, y, **kwargs)

    monkeypatch.setattr(_fit, "fit_hyperparameters", counting_fit)
    rng = np.random.default_rng(2)
    h, x, values = random_data(rng, 360, [3], 2)
    cache = ModelCache(refit_interval=10, n_restarts=3)
    refitted_at = []
    for n in range(280, 361):
        before = len(calls)
        cache.fit_or_reuse(("k",), h[:n], x[:n], values[:n], ConstraintStandardize(), rng)
        if len(calls) > before:
            refitted_at.append(n)
    assert refitted_at == [280, 290, 300, 315, 331, 348]
    # paper starts while short; one warm start beyond; the likelihood on at most FIT_MAX_POINTS
    assert [c[1:] for c in calls] == [(3, False), (3, True), (1, True), (1, True), (1, True), (1, True)]
    assert [c[0] for c in calls] == [280, 290, 300, 300, 300, 300]


def test_training_subset_keeps_incumbents_of_every_combination_and_the_latest() -> None:
    rng = np.random.default_rng(3)
    n, n_max = 1000, 200
    h = rng.integers(0, 4, size=(n, 2)).astype(np.int32)
    y = rng.standard_normal(n)
    subset = training_subset(h, y, n_max)
    assert len(subset) == n_max and len(np.unique(subset)) == n_max and np.all(np.diff(subset) > 0)
    assert np.array_equal(subset, training_subset(h, y, n_max))  # deterministic
    assert int(np.argmax(y)) in subset
    for combination in np.unique(h, axis=0):  # 16 combinations, 100 best points: each one's two best are in
        members = np.flatnonzero(np.all(h == combination, axis=1))
        assert set(members[np.argsort(-y[members])][:2]) <= set(subset.tolist())
    assert set(range(n - 50, n)) <= set(subset.tolist())  # the latest quarter of the budget
    assert subset.min() < 100  # and a spread over the early history
    assert np.array_equal(training_subset(h[:150], y[:150], n_max), np.arange(150))
    assert len(training_subset(np.zeros((500, 0), np.int32), y[:500], 64)) == 64
    with pytest.raises(ValueError, match="n_max must be a positive integer"):
        training_subset(h, y, 0)


def test_model_cache_grows_the_gp_between_refits_as_a_from_scratch_gp(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_fit, "LONG_STUDY", 40)
    rng = np.random.default_rng(4)
    h, x, y = random_data(rng, 80, [3, 2], 2)
    numbers = np.arange(80) * 3  # trial numbers, not positions
    cache = ModelCache(10, 3)
    cache.gp(("k",), numbers[:50], (h[:50], x[:50], y[:50]), HYPERPARAMETERS)
    # one of the new trials finished earlier than others: it sits in the middle of the data
    keep = np.r_[0:50, 55:80, 50:55]
    gp, order = cache.gp(("k",), numbers[keep], (h[keep], x[keep], y[keep]), HYPERPARAMETERS)
    assert gp.n_train == 80 and np.array_equal(np.sort(order), np.arange(80))
    assert np.array_equal(order[50:], np.arange(50, 80))  # the new trials appended in their order
    hq, xq, _ = random_data(rng, 20, [3, 2], 2)
    for actual, expected in zip(gp.predict(hq, xq), HYPERPARAMETERS.make_gp(h, x, y).predict(hq, xq)):
        np.testing.assert_allclose(actual, expected, atol=1e-10, rtol=0)
    # a short study's GP is built anew at every trial
    short, short_order = cache.gp(("short",), numbers[:39], (h[:39], x[:39], y[:39]), HYPERPARAMETERS)
    _, short_order = cache.gp(("short",), numbers[:41], (h[:41], x[:41], y[:41]), HYPERPARAMETERS)
    assert np.array_equal(short_order, _fit.grouped_by_level(h[:41]))
    # a trial left the data, or the hyperparameters changed: the GP is built anew, grouped by level
    _, order = cache.gp(("k",), numbers[1:], (h[1:], x[1:], y[1:]), HYPERPARAMETERS)
    assert np.array_equal(order, _fit.grouped_by_level(h[1:]))


def test_trials_left_out_of_the_gp_subset_stay_out_until_the_next_rebuild(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_fit, "GP_MAX_POINTS", 30)
    monkeypatch.setattr(_fit, "LONG_STUDY", 30)
    rng = np.random.default_rng(6)
    h, x, y = random_data(rng, 60, [3], 2)
    numbers = np.arange(60)
    cache = ModelCache(10, 3)
    gp, order = cache.gp(("k",), numbers[:50], (h[:50], x[:50], y[:50]), HYPERPARAMETERS)
    assert gp.n_train == 30 and np.array_equal(np.sort(order), training_subset(h[:50], y[:50], 30))
    grown, grown_order = cache.gp(("k",), numbers[:52], (h[:52], x[:52], y[:52]), HYPERPARAMETERS)
    assert grown.n_train == 32 and np.array_equal(grown_order, np.r_[order, 50, 51])
    hq, xq, _ = random_data(rng, 10, [3], 2)
    reference = HYPERPARAMETERS.gp_in_order(h[grown_order], x[grown_order], y[grown_order])
    for actual, expected in zip(grown.predict(hq, xq), reference.predict(hq, xq)):
        np.testing.assert_allclose(actual, expected, atol=1e-10, rtol=0)
    other = GPHyperparameters(np.array([0.2, 0.2]), 1.0, 1e-3, 0.5)  # a refit: a new subset of all 60
    rebuilt, _ = cache.gp(("k",), numbers, (h, x, y), other)
    assert rebuilt.n_train == 30


def test_the_believer_is_the_gp_grown_by_the_pending_points() -> None:
    from optuna_vpbo._models import ModelData, objective_model

    rng = np.random.default_rng(5)
    h, x, values = random_data(rng, 40, [3], 2)
    h_pending, x_pending, _ = random_data(rng, 3, [3], 2)
    data = ModelData(np.arange(40), h, x)
    transform = Standardize(optuna.study.StudyDirection.MINIMIZE)
    model = objective_model(ModelCache(10, 1), ("k",), data, values, transform, (h_pending, x_pending), rng)
    hp = model.hyperparameters
    base = hp.make_gp(h, x, model.targets)
    believed, _ = base.predict(h_pending, x_pending)
    np.testing.assert_allclose(model.believed, believed, atol=1e-10)
    reference = hp.make_gp(np.vstack([h, h_pending]), np.vstack([x, x_pending]), np.concatenate([model.targets, believed]))
    hq, xq, _ = random_data(rng, 15, [3], 2)
    for actual, expected in zip(model.gp.predict(hq, xq), reference.predict(hq, xq)):
        np.testing.assert_allclose(actual, expected, atol=1e-10, rtol=0)


def func2c_like(trial: optuna.Trial) -> float:
    c = trial.suggest_categorical("c", ["a", "b", "c"])
    u, v = trial.suggest_float("u", -1, 1), trial.suggest_float("v", -1, 1)
    return (u - 0.3) ** 2 + (v + 0.2) ** 2 + {"a": 0.0, "b": 0.5, "c": 1.0}[c]


def prefilled_study(storage: str | optuna.storages.BaseStorage | None = None, n: int = LONG_STUDY + 5) -> optuna.Study:
    random_study = optuna.create_study(sampler=optuna.samplers.RandomSampler(seed=0))
    random_study.optimize(func2c_like, n_trials=n)
    study = optuna.create_study(storage=storage, study_name="long")
    study.add_trials(random_study.trials)
    return study


def test_a_long_study_is_deterministic_for_a_seed() -> None:
    optuna.logging.set_verbosity(optuna.logging.ERROR)
    params = []
    for _ in range(2):
        study = prefilled_study()
        study.sampler = VPBOSampler(seed=7)
        study.optimize(func2c_like, n_trials=3)
        params.append([t.params for t in study.trials[-3:]])
    assert params[0] == params[1]


@pytest.mark.slow
def test_a_new_process_reads_the_fit_back_instead_of_fitting(tmp_path: Path) -> None:
    """Process 1 runs a long study and stores its fit; process 2 proposes its first trial from
    the stored fit without any likelihood fit."""
    optuna.logging.set_verbosity(optuna.logging.ERROR)
    url = f"sqlite:///{tmp_path / 'study.db'}"
    study = prefilled_study(url)
    study.sampler = VPBOSampler(seed=1, record_proposals=True)
    study.optimize(func2c_like, n_trials=1)
    stored = {k: v for k, v in _optuna_compat.get_study_system_attrs(study).items() if k.startswith("vpbo:fit:")}
    assert len(stored) == 1 and json.loads(next(iter(stored.values())))["n"] == LONG_STUDY + 5
    script = textwrap.dedent(
        f"""
        import json, optuna
        from optuna_vpbo import VPBOSampler, _fit
        from test_long_studies import func2c_like
        fits = []
        real = _fit.fit_hyperparameters
        _fit.fit_hyperparameters = lambda *a, **k: fits.append(1) or real(*a, **k)
        optuna.logging.set_verbosity(optuna.logging.ERROR)
        study = optuna.load_study(study_name="long", storage={url!r}, sampler=VPBOSampler(seed=1, record_proposals=True))
        study.optimize(func2c_like, n_trials=1)
        print(json.dumps({{"fits": len(fits), "diagnostics": study.trials[-1].user_attrs["vpbo"]}}))
        """
    )
    tests_folder = str(__import__("pathlib").Path(__file__).parent)
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True, cwd=tests_folder)
    result = json.loads(out.stdout.strip().splitlines()[-1])
    assert result["fits"] == 0 and result["diagnostics"]["phase"] == "proposals"
    (stored_fit,) = stored.values()
    assert result["diagnostics"]["lambda"] == round(json.loads(stored_fit)["theta"][-1], 4)


def test_a_stored_fit_of_another_shape_or_version_is_ignored() -> None:
    study = optuna.create_study()
    store = StudyFitStore(study)
    assert store.load(("x",)) is None
    store.save(("x",), 400, HYPERPARAMETERS)
    stored = store.load(("x",))
    assert stored is not None
    n, loaded = stored
    assert n == 400 and np.array_equal(loaded.to_theta(), HYPERPARAMETERS.to_theta())
    study._storage.set_study_system_attr(study._study_id, attribute_name(("y",)), "not json")
    assert store.load(("y",)) is None
