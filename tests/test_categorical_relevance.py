"""The opt-in categorical relevance (``categorical_relevance=True``): the weighted overlap kernel
k_h(h, h') = sum_v w_v [h_v == h'_v], w_v = r_v / sum_u r_u, against NumPy and finite
differences, the combination posteriors of the value proposals against the GP's own posterior,
the fit, the fit store, the setting and whole studies."""

from __future__ import annotations

import itertools
import json
import math

import numpy as np
import optuna
import pytest

from optuna_vpbo import VPBOSampler, _core, _fit, _optuna_compat
from optuna_vpbo._diagnostics import model_markdown
from optuna_vpbo._fit import LONG_STUDY, GPHyperparameters, _restored, fit_hyperparameters
from optuna_vpbo._fit_store import StudyFitStore, attribute_name
from optuna_vpbo._output_transforms import Standardize
from optuna_vpbo._settings import PRESETS, VPBOSettings

SQRT5 = math.sqrt(5.0)


def random_data(rng: np.random.Generator, n: int, n_levels: list[int], d: int):
    h = rng.integers(0, np.array(n_levels, dtype=np.int64), size=(n, len(n_levels))).astype(np.int32)
    return h, rng.random((n, d)), rng.standard_normal(n)


def numpy_weighted_kernel(h1, x1, h2, x2, lengthscales, variance, lam, relevances):
    """The mixed kernel with the weighted overlap written out directly in NumPy."""
    weights = np.asarray(relevances) / np.sum(relevances)
    k_h = ((h1[:, None, :] == h2[None, :, :]) * weights).sum(-1)
    r = np.sqrt((((x1[:, None, :] - x2[None, :, :]) / lengthscales) ** 2).sum(-1))
    k_x = (1 + SQRT5 * r + 5 * r**2 / 3) * np.exp(-SQRT5 * r)
    return variance * ((1 - lam) / 2 * (k_h + k_x) + lam * k_h * k_x)


def numpy_posterior(h, x, y, hq, xq, hp: tuple):
    ls, variance, lam, noise, relevances = hp
    k = numpy_weighted_kernel(h, x, h, x, ls, variance, lam, relevances) + noise * np.eye(len(y))
    cross = numpy_weighted_kernel(h, x, hq, xq, ls, variance, lam, relevances)
    mean = cross.T @ np.linalg.solve(k, y)
    var = variance - np.einsum("ij,ij->j", cross, np.linalg.solve(k, cross))
    return mean, var


def five_point_derivative(f, eps: float = 1e-4) -> float:
    """Central finite difference of f at 0 with O(eps^4) truncation error."""
    return (-f(2 * eps) + 8 * f(eps) - 8 * f(-eps) + f(-2 * eps)) / (12 * eps)


SHAPES = [([3, 2], 3), ([4], 1), ([2, 2, 3], 0), ([5, 3], 2)]


@pytest.mark.parametrize("n_levels,d", SHAPES)
def test_weighted_posterior_and_weights_match_numpy(n_levels, d):
    rng = np.random.default_rng(31)
    h, x, y = random_data(rng, 30, n_levels, d)
    hq, xq, _ = random_data(rng, 12, n_levels, d)
    relevances = rng.uniform(0.05, 5.0, len(n_levels))
    hp = (rng.uniform(0.1, 1, d), 0.8, 0.6, 1e-3, relevances)
    gp = _core.MixedGP(h, x, y, hp[0], hp[1], hp[2], hp[3], relevances)
    np.testing.assert_allclose(gp.categorical_weights, relevances / relevances.sum(), rtol=1e-15)
    mean, var = gp.predict(hq, xq)
    ref_mean, ref_var = numpy_posterior(h, x, y, hq, xq, hp)
    np.testing.assert_allclose(mean, ref_mean, atol=1e-9)
    np.testing.assert_allclose(var, ref_var, atol=1e-9)


def test_weighted_posterior_gradient_in_x_matches_finite_differences():
    rng = np.random.default_rng(32)
    h, x, y = random_data(rng, 25, [3, 4], 3)
    gp = _core.MixedGP(h, x, y, np.array([0.3, 0.5, 0.7]), 1.1, 0.3, 1e-3, np.array([0.2, 3.0]))
    hq = np.array([[1, 2]], dtype=np.int32)
    xq = rng.random(3)
    mean, var, mean_gradient, var_gradient = gp.predict_with_gradient(hq, xq)
    ref_mean, ref_var = numpy_posterior(h, x, y, hq, xq[None], (np.array([0.3, 0.5, 0.7]), 1.1, 0.3, 1e-3, [0.2, 3.0]))
    assert mean == pytest.approx(ref_mean[0], abs=1e-9) and var == pytest.approx(ref_var[0], abs=1e-9)
    for m, e in enumerate(np.eye(3)):
        assert mean_gradient[m] == pytest.approx(five_point_derivative(lambda t: gp.predict(hq, (xq + t * e)[None])[0][0]), rel=1e-6, abs=1e-8)
        assert var_gradient[m] == pytest.approx(five_point_derivative(lambda t: gp.predict(hq, (xq + t * e)[None])[1][0]), rel=1e-6, abs=1e-8)


def test_equal_relevances_give_the_default_kernel():
    rng = np.random.default_rng(33)
    h, x, y = random_data(rng, 20, [3, 2, 4], 2)
    hq, xq, _ = random_data(rng, 10, [3, 2, 4], 2)
    default = _core.MixedGP(h, x, y, np.array([0.4, 0.6]), 1.0, 0.5, 1e-3)
    equal = _core.MixedGP(h, x, y, np.array([0.4, 0.6]), 1.0, 0.5, 1e-3, np.full(3, 7.0))
    np.testing.assert_allclose(np.column_stack(equal.predict(hq, xq)), np.column_stack(default.predict(hq, xq)), atol=1e-12)


@pytest.mark.parametrize("n_levels,d", SHAPES)
def test_weighted_likelihood_value_matches_numpy(n_levels, d):
    rng = np.random.default_rng(34)
    h, x, y = random_data(rng, 20, n_levels, d)
    ls, variance, noise, lam = rng.uniform(0.1, 1, d), 1.3, 0.05, 0.3
    relevances = rng.uniform(0.05, 5.0, len(n_levels))
    theta = np.concatenate([np.log(ls), [math.log(variance), math.log(noise), lam], np.log(relevances)])
    k = numpy_weighted_kernel(h, x, h, x, ls, variance, lam, relevances) + noise * np.eye(len(y))
    sign, logdet = np.linalg.slogdet(k)
    expected = 0.5 * y @ np.linalg.solve(k, y) + 0.5 * logdet + 0.5 * len(y) * math.log(2 * math.pi)
    evaluator = _core.LikelihoodEvaluator(h, x, y, categorical_relevance=True)
    assert sign > 0 and evaluator.n_params == d + 3 + len(n_levels)
    assert evaluator(theta)[0] == pytest.approx(expected, rel=1e-10)


@pytest.mark.parametrize("n_levels,d", SHAPES)
def test_likelihood_gradient_with_relevances_matches_finite_differences(n_levels, d):
    rng = np.random.default_rng(35)
    h, x, y = random_data(rng, 25, n_levels, d)
    evaluator = _core.LikelihoodEvaluator(h, x, y, categorical_relevance=True)
    for _ in range(3):
        theta = np.concatenate(
            [rng.uniform(-2, 0.5, d), [rng.uniform(-1, 1), rng.uniform(-6, -1), rng.uniform(0.05, 0.95)], rng.uniform(-2, 2, len(n_levels))]
        )
        _, gradient = evaluator(theta)
        assert len(gradient) == len(theta)
        numeric = [five_point_derivative(lambda t: evaluator(theta + t * e)[0]) for e in np.eye(len(theta))]
        np.testing.assert_allclose(gradient, numeric, rtol=1e-6, atol=1e-7)
        # Relevances matter only relative to each other: scaling them all changes nothing.
        assert np.dot(gradient[d + 3 :], np.ones(len(n_levels))) == pytest.approx(0.0, abs=1e-8)


def test_likelihood_rejects_a_theta_of_the_wrong_length():
    rng = np.random.default_rng(36)
    h, x, y = random_data(rng, 10, [3, 2], 2)
    theta = np.array([0.0, 0.0, 0.0, -3.0, 0.5])
    with pytest.raises(ValueError, match="theta must have 7 entries"):
        _core.LikelihoodEvaluator(h, x, y, categorical_relevance=True)(theta)
    assert _core.LikelihoodEvaluator(h, x, y)(theta)[0] > -np.inf


@pytest.mark.parametrize("relevances", [np.array([1.0]), np.array([1.0, 0.0]), np.array([1.0, np.nan]), np.array([1.0, 2.0, 3.0])])
def test_bad_relevances_are_rejected(relevances):
    rng = np.random.default_rng(37)
    h, x, y = random_data(rng, 10, [3, 2], 2)
    with pytest.raises(ValueError, match="relevances"):
        _core.MixedGP(h, x, y, np.ones(2), 1.0, 0.5, 1e-3, relevances)


@pytest.mark.parametrize("grouped", [False, True])
@pytest.mark.parametrize(
    "data_levels,combination_levels",
    [([3, 4], [3, 4]), ([3, 4], [4, 4]), ([3, 4], [2, 4]), ([6, 2, 3], [6, 2, 3])],
)
def test_value_proposals_match_the_gp_posterior_with_relevances(data_levels, combination_levels, grouped):
    """Every combination's best candidate and log EI from the value proposals (the combination
    posteriors assembled from per-level pieces) equal those of the GP's own posterior at the
    explicit points, with very unequal weights."""
    rng = np.random.default_rng(38)
    h, x, y = random_data(rng, 60, data_levels, 2)
    if grouped:
        order = np.argsort(h[:, int(np.argmax(data_levels))], kind="stable")
        h, x, y = np.ascontiguousarray(h[order]), x[order], y[order]
    relevances = np.array([4.0, 0.1, 1.5][: len(data_levels)])
    gp = _core.MixedGP(h, x, y, np.array([0.3, 0.5]), 1.3, 0.4, 1e-5, relevances)
    acquisition = _core.LogExpectedImprovement(gp, float(y.max()))
    combos = np.array(list(itertools.product(*[range(m) for m in combination_levels])), dtype=np.int32)
    candidates = rng.random((300, 2))
    index, value = _core.value_proposals(acquisition, combos, candidates, max_block_bytes=4e5)
    for c, combo in enumerate(combos):
        explicit = acquisition.evaluate(np.repeat(combo[None], len(candidates), 0), candidates)
        assert index[c] == int(np.argmax(explicit))
        assert value[c] == pytest.approx(explicit.max(), rel=1e-9)
    # and the GP's posterior is the NumPy one at the chosen points
    chosen_h, chosen_x = combos, candidates[index]
    mean, var = gp.predict(chosen_h, chosen_x)
    ref_mean, ref_var = numpy_posterior(h, x, y, chosen_h, chosen_x, (np.array([0.3, 0.5]), 1.3, 0.4, 1e-5, relevances))
    np.testing.assert_allclose(mean, ref_mean, atol=1e-8)
    np.testing.assert_allclose(var, ref_var, atol=1e-8)


def one_categorical_matters(n: int, seed: int):
    """y depends on the first categorical (5 levels) and x only; the second (5 levels) is noise-free
    irrelevant."""
    rng = np.random.default_rng(seed)
    h, x, _ = random_data(rng, n, [5, 5], 2)
    effect = np.array([-1.5, 0.0, 1.0, 2.0, -0.5])
    y = effect[h[:, 0]] + np.sin(3 * x[:, 0]) + 0.05 * rng.standard_normal(n)
    return h, x, (y - y.mean()) / y.std()


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_the_fit_gives_the_relevant_categorical_the_larger_relevance(seed):
    h, x, y = one_categorical_matters(60, seed)
    fitted = fit_hyperparameters(h, x, y, rng=np.random.default_rng(seed), n_restarts=3, categorical_relevance=True)
    assert fitted.n_relevances == 2
    weights = fitted.gp_in_order(h, x, y).categorical_weights
    assert weights[0] > 0.95 > 0.05 > weights[1]
    # the relevance fit explains the data better than equal weights
    theta = fitted.to_theta()
    equal = theta.copy()
    equal[-2:] = 0.0
    evaluator = _core.LikelihoodEvaluator(h, x, y, categorical_relevance=True)
    assert evaluator(theta)[0] < evaluator(equal)[0]


def test_a_warm_start_or_stored_fit_of_the_other_shape_is_not_used():
    h, x, y = one_categorical_matters(30, 3)
    plain = GPHyperparameters.default(2)
    fitted = fit_hyperparameters(h, x, y, rng=np.random.default_rng(0), n_restarts=1, warm_start=plain, categorical_relevance=True)
    assert fitted.n_relevances == 2 and fitted.fits(2, 2) and not plain.fits(2, 2)
    values = y.copy()
    assert _restored((400, plain), (2, 2), Standardize(), values) is None
    assert _restored((400, fitted), (2, 0), Standardize(), values) is None
    assert _restored((400, fitted), (2, 2), Standardize(), values).hyperparameters is fitted


def test_the_fit_store_keeps_the_relevances():
    study = optuna.create_study()
    store = StudyFitStore(study)
    weighted = GPHyperparameters(np.array([0.3, 0.5]), 1.3, 1e-4, 0.4, np.array([2.0, 0.05, 1.0]))
    store.save(("w",), 400, weighted)
    n, loaded = store.load(("w",))
    assert n == 400 and loaded.n_relevances == 3 and len(loaded.lengthscales) == 2
    np.testing.assert_allclose(loaded.to_theta(), weighted.to_theta(), rtol=1e-15)
    plain = GPHyperparameters(np.array([0.3, 0.5]), 1.3, 1e-4, 0.4)
    store.save(("p",), 400, plain)
    record = json.loads(_optuna_compat.get_study_system_attrs(study)[attribute_name(("p",))])
    assert "n_relevances" not in record and store.load(("p",))[1].n_relevances == 0
    study._storage.set_study_system_attr(study._study_id, attribute_name(("bad",)), json.dumps({"n": 1, "theta": [0.0] * 4, "n_relevances": 2}))
    assert store.load(("bad",)) is None


def test_the_setting_is_validated_and_off_by_default():
    assert VPBOSettings().categorical_relevance is False
    assert PRESETS["paper"].categorical_relevance is False and PRESETS["default"].categorical_relevance is False
    relevant = VPBOSettings(categorical_relevance=True)
    assert VPBOSampler(settings=relevant).settings.categorical_relevance is True
    for bad in (0, 1, "yes", None):
        with pytest.raises(TypeError, match="categorical_relevance must be a bool"):
            VPBOSettings(categorical_relevance=bad)  # type: ignore[arg-type]


def flat_objective(trial: optuna.Trial) -> float:
    kind = trial.suggest_categorical("kind", ["a", "b", "c"])
    colour = trial.suggest_categorical("colour", ["red", "green", "blue", "grey"])
    x = trial.suggest_float("x", -2.0, 2.0)
    n = trial.suggest_int("n", 1, 8)
    return {"a": 0.0, "b": 1.0, "c": 2.5}[kind] + (x - 0.5) ** 2 + 0.1 * abs(n - 3) + 0.0 * len(colour)


def conditional_objective(trial: optuna.Trial) -> float:
    model = trial.suggest_categorical("model", ["linear", "tree", "constant"])
    if model == "linear":
        return (trial.suggest_float("w", 0.0, 1.0) - 0.3) ** 2
    if model == "constant":
        return 0.8
    kind = trial.suggest_categorical("kind", ["shallow", "deep"])
    depth = trial.suggest_int("depth", 1, 8)
    return 0.1 * abs(depth - 4) + (0.5 if kind == "shallow" else (math.log10(trial.suggest_float("lr", 1e-3, 1.0, log=True)) + 2.0) ** 2)


@pytest.mark.parametrize("objective", [flat_objective, conditional_objective])
def test_a_study_with_categorical_relevance_runs_and_reports_the_weights(objective):
    optuna.logging.set_verbosity(optuna.logging.ERROR)
    sampler = VPBOSampler(
        seed=0, n_startup_trials=8, settings=VPBOSettings(categorical_relevance=True), record_proposals=True
    )
    study = optuna.create_study(sampler=sampler)
    study.optimize(objective, n_trials=30)
    assert len(study.trials) == 30 and all(t.state == optuna.trial.TrialState.COMPLETE for t in study.trials)
    proposed = [t.user_attrs["vpbo"] for t in study.trials if t.user_attrs["vpbo"]["phase"] == "proposals"]
    assert len(proposed) >= 20
    for diagnostics in proposed:
        weights = diagnostics["categorical_relevance"]
        assert set(weights) and all(0.0 <= w <= 1.0 for w in weights.values())
        assert sum(weights.values()) == pytest.approx(1.0, abs=1e-3)  # rounded to 4 decimals
    if objective is flat_objective:
        assert set(proposed[-1]["categorical_relevance"]) == {"kind", "colour"}


def test_without_the_setting_the_diagnostics_have_no_relevance():
    optuna.logging.set_verbosity(optuna.logging.ERROR)
    study = optuna.create_study(sampler=VPBOSampler(seed=0, n_startup_trials=6, record_proposals=True))
    study.optimize(flat_objective, n_trials=8)
    assert study.trials[-1].user_attrs["vpbo"]["phase"] == "proposals"
    assert "categorical_relevance" not in study.trials[-1].user_attrs["vpbo"]


def test_a_long_study_reuses_a_stored_relevance_fit_only_with_the_setting(monkeypatch):
    """A long study stores its relevance fit; a new sampler with the setting proposes from it
    without fitting, one without the setting cannot use it (another shape) and fits."""
    optuna.logging.set_verbosity(optuna.logging.ERROR)
    random_study = optuna.create_study(sampler=optuna.samplers.RandomSampler(seed=0))
    random_study.optimize(flat_objective, n_trials=LONG_STUDY + 5)
    study = optuna.create_study()
    study.add_trials(random_study.trials)
    study.sampler = VPBOSampler(seed=1, settings=VPBOSettings(categorical_relevance=True))
    study.optimize(flat_objective, n_trials=1)
    (stored,) = [json.loads(v) for k, v in _optuna_compat.get_study_system_attrs(study).items() if k.startswith("vpbo:fit:")]
    assert stored["n_relevances"] == 2 and len(stored["theta"]) == 2 + 3 + 2
    fits: list[bool] = []
    real_fit = _fit.fit_hyperparameters
    monkeypatch.setattr(_fit, "fit_hyperparameters", lambda *a, **k: fits.append(k["categorical_relevance"]) or real_fit(*a, **k))
    for categorical_relevance, expected_fits in ((True, []), (False, [False])):
        fits.clear()
        settings = VPBOSettings(categorical_relevance=categorical_relevance)
        study.sampler = VPBOSampler(seed=2, settings=settings, record_proposals=True)
        study.optimize(flat_objective, n_trials=1)
        diagnostics = study.trials[-1].user_attrs["vpbo"]
        assert fits == expected_fits and diagnostics["phase"] == "proposals"
        assert ("categorical_relevance" in diagnostics) == categorical_relevance


def test_the_note_lists_the_relevance_of_each_categorical():
    rows = model_markdown([{"lambda": 0.5, "noise": 0.01, "lengthscales": {"x": 0.3}, "categorical_relevance": {"kind": 0.9, "colour": 0.1}}], ["model"])
    text = "\n".join(rows)
    assert "| relevance `kind` | 0.9 |" in text and "| relevance `colour` | 0.1 |" in text
    assert text.index("lengthscale `x`") < text.index("relevance `kind`")
