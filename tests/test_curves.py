"""What a pruned trial's curve says (``_curves``, ``_pruner_bars``, ``_trial_states.pruned_evidence``):
the maps against independent computations (NumPy least squares, SciPy's truncated normal and
Spearman correlation), their monotonicity, weak evidence where early steps mislead, and the bars
that Optuna's pruners apply."""

from __future__ import annotations

import math
from typing import Literal

import numpy as np
import optuna
import pytest
import scipy.stats
from optuna.study import StudyDirection

from conftest import value_of
from optuna_vpbo import _curves
from optuna_vpbo._pruner_bars import pruner_bar
from optuna_vpbo._trial_states import finished_trials, pruned_evidence

optuna.logging.set_verbosity(optuna.logging.ERROR)


def pairs(rng: np.random.Generator, n: int, correlation: float) -> np.ndarray:
    """(value at s, final value) pairs with the given correlation of their normal parts."""
    early = rng.standard_normal(n)
    final = correlation * early + math.sqrt(1 - correlation**2) * rng.standard_normal(n)
    return np.column_stack([np.exp(early), 0.1 + 0.05 * final])


def test_linear_map_is_least_squares_with_its_prediction_variance() -> None:
    rng = np.random.default_rng(0)
    peers = pairs(rng, 20, 0.8)
    design = np.column_stack([np.ones(20), peers[:, 0]])
    coefficients, residual, *_ = np.linalg.lstsq(design, peers[:, 1], rcond=None)
    value = 2.5
    mean, variance = _curves.predict_linear(peers, value)
    assert mean == pytest.approx(coefficients[0] + coefficients[1] * value, rel=1e-12)
    # Ordinary least squares: s^2 (1 + x0^T (X^T X)^-1 x0), s^2 = RSS / (n - 2).
    x0 = np.array([1.0, value])
    expected = residual[0] / 18 * (1 + x0 @ np.linalg.solve(design.T @ design, x0))
    assert variance == pytest.approx(expected, rel=1e-10)


def test_linear_map_never_has_a_negative_slope() -> None:
    peers = np.column_stack([np.arange(6.0), 1.0 - 0.1 * np.arange(6.0)])  # worse early, better end
    means = [_curves.predict_linear(peers, v)[0] for v in (0.0, 3.0, 9.0)]
    assert means[0] == means[1] == means[2] == pytest.approx(peers[:, 1].mean())


def test_truncation_matches_scipy_truncated_normal() -> None:
    rng = np.random.default_rng(1)
    peers = pairs(rng, 30, 0.6)
    mean, variance = _curves.predict_linear(peers, 1.0)
    bound_at_s = 2.0
    center, slope = peers[:, 0].mean(), np.polyfit(peers[:, 0], peers[:, 1], 1)[0]
    bound = peers[:, 1].mean() + slope * (bound_at_s - center)
    sd = math.sqrt(variance)
    reference = scipy.stats.truncnorm((bound - mean) / sd, np.inf, loc=mean, scale=sd)
    truncated_mean, truncated_variance = _curves.predict_linear(peers, 1.0, bound_at_s)
    # A 64-point quantile rule: accurate to a few thousandths of a standard deviation.
    assert truncated_mean == pytest.approx(reference.mean(), abs=0.01 * sd)
    assert truncated_variance == pytest.approx(reference.var(), rel=0.05)
    assert truncated_mean > mean and truncated_variance < variance


def test_rank_correlation_is_spearman_like_and_lowered_for_few_peers() -> None:
    rng = np.random.default_rng(2)
    peers = pairs(rng, 400, 0.7)
    spearman = scipy.stats.spearmanr(peers[:, 0], peers[:, 1])[0]
    assert _curves.rank_correlation(peers[:, 0], peers[:, 1]) == pytest.approx(spearman, abs=0.05)
    few = peers[:6]
    assert _curves.rank_correlation(few[:, 0], few[:, 1]) < scipy.stats.spearmanr(few[:, 0], few[:, 1])[0]
    assert _curves.rank_correlation(np.arange(5.0), -np.arange(5.0)) == 0.0


@pytest.mark.parametrize("method", _curves.STEP_TO_FINAL_MAPS)
def test_maps_are_monotone(method: str) -> None:
    rng = np.random.default_rng(3)
    peers = pairs(rng, 25, 0.8)
    means = [_curves.predict_final(peers, v, method)[0] for v in np.linspace(0.1, 8.0, 30)]
    assert np.all(np.diff(means) >= -1e-12)


@pytest.mark.parametrize("method", _curves.STEP_TO_FINAL_MAPS)
def test_misleading_early_steps_give_weak_evidence(method: str) -> None:
    """Where values at s do not rank the final values, the prediction for a value at s beyond the
    peers' worst keeps their mean final value within one predictive standard deviation and has
    nearly their whole spread: weak, not wrong."""
    rng = np.random.default_rng(4)
    peers = pairs(rng, 40, 0.0)
    final = peers[:, 1]
    mean, variance = _curves.predict_final(peers, float(peers[:, 0].max()) * 1.2, method)
    assert abs(mean - final.mean()) < math.sqrt(variance)
    assert variance > 0.5 * final.var()
    informative = pairs(rng, 40, 0.95)
    informative[:, 0] = np.log(informative[:, 0])  # linear in the value at s
    _, tight = _curves.predict_final(informative, float(np.median(informative[:, 0])), method)
    assert tight < 0.3 * informative[:, 1].var()


def test_rank_map_stays_within_the_observed_final_values() -> None:
    rng = np.random.default_rng(5)
    peers = pairs(rng, 15, 0.99)
    for value in (1e-3, 1e3):
        mean, _ = _curves.predict_rank(peers, value)
        assert peers[:, 1].min() <= mean <= peers[:, 1].max()


def test_few_peers_fall_back_to_the_median_offset_and_the_default_variance() -> None:
    peers = np.array([[1.0, 0.5], [2.0, 1.0]])
    mean, variance = _curves.predict_final(peers, 3.0, "linear", default_variance=4.0)
    assert mean == pytest.approx(2.25) and variance == 4.0


def curve_objective(trial: optuna.Trial) -> float:
    x = trial.suggest_float("x", 0.0, 1.0)
    kind = trial.suggest_categorical("kind", ["a", "b"])
    final = (x - 0.3) ** 2 + (0.1 if kind == "b" else 0.0)
    for step in range(1, 11):
        trial.report(final + 0.5 / step, step)
        if trial.should_prune():
            raise optuna.TrialPruned()
    return final


def random_study(
    pruner: optuna.pruners.BasePruner, n_trials: int = 40, direction: Literal["minimize", "maximize"] = "minimize"
) -> optuna.Study:
    study = optuna.create_study(sampler=optuna.samplers.RandomSampler(seed=0), pruner=pruner, direction=direction)
    sign = 1.0 if direction == "minimize" else -1.0
    study.optimize(lambda t: sign * curve_objective(t) if direction == "minimize" else _negated(t), n_trials=n_trials)
    return study


def _negated(trial: optuna.Trial) -> float:
    x = trial.suggest_float("x", 0.0, 1.0)
    kind = trial.suggest_categorical("kind", ["a", "b"])
    final = (x - 0.3) ** 2 + (0.1 if kind == "b" else 0.0)
    for step in range(1, 11):
        trial.report(-(final + 0.5 / step), step)
        if trial.should_prune():
            raise optuna.TrialPruned()
    return -final


@pytest.mark.parametrize("direction", ["minimize", "maximize"])
@pytest.mark.parametrize("percentile", [50.0, 25.0])
def test_percentile_bar_is_the_one_that_pruned(direction: Literal["minimize", "maximize"], percentile: float) -> None:
    """Every pruned trial's best value so far is worse than the bar recomputed from the trials
    complete before it, as Optuna's PercentilePruner decided."""
    pruner = optuna.pruners.PercentilePruner(percentile, n_startup_trials=3, n_warmup_steps=1)
    study = random_study(pruner, direction=direction)
    pruned = [t for t in study.trials if t.state == optuna.trial.TrialState.PRUNED]
    assert pruned
    for trial in pruned:
        bar = pruner_bar(study.pruner, trial, study.trials, study.direction)
        best = min(trial.intermediate_values.values()) if direction == "minimize" else max(trial.intermediate_values.values())
        assert (best > bar) if direction == "minimize" else (best < bar)
        assert trial.last_step is not None
        earlier = [t.intermediate_values[trial.last_step] for t in study.trials
                   if t.state == optuna.trial.TrialState.COMPLETE and t.number < trial.number]
        expected = np.percentile(earlier, percentile if direction == "minimize" else 100 - percentile)
        assert bar == pytest.approx(expected)


def plateau_objective(trial: optuna.Trial) -> float:
    """Curves that get worse after step 3 (a patient pruner's case)."""
    x = trial.suggest_float("x", 0.0, 1.0)
    for step in range(1, 11):
        trial.report(x + 1.0 / min(step, 3) + 0.01 * max(step - 3, 0), step)
        if trial.should_prune():
            raise optuna.TrialPruned()
    return x + 1.0 / 3 + 0.07


def test_bar_inside_a_patient_pruner_and_survivors_bar_of_successive_halving() -> None:
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", optuna.exceptions.ExperimentalWarning)
        patient = optuna.pruners.PatientPruner(optuna.pruners.MedianPruner(n_startup_trials=3), patience=1)
    study = optuna.create_study(sampler=optuna.samplers.RandomSampler(seed=0), pruner=patient)
    study.optimize(plateau_objective, n_trials=30)
    trial = next(t for t in study.trials if t.state == optuna.trial.TrialState.PRUNED)
    assert trial.last_step is not None
    complete = [t.intermediate_values[trial.last_step] for t in study.trials[: trial.number] if t.value is not None]
    assert pruner_bar(study.pruner, trial, study.trials, study.direction) == pytest.approx(np.median(complete))
    study = random_study(optuna.pruners.SuccessiveHalvingPruner(min_resource=1, reduction_factor=2))
    for trial in (t for t in study.trials if t.state == optuna.trial.TrialState.PRUNED):
        step = trial.last_step
        assert step is not None
        survivors = [
            t.intermediate_values[step] for t in study.trials[: trial.number] if t.last_step is not None and t.last_step > step
        ]
        bar = pruner_bar(study.pruner, trial, study.trials, study.direction)
        assert (math.isnan(bar) and not survivors) or bar == max(survivors)


@pytest.mark.parametrize("mode", ["curve-linear", "curve-rank", "curve-linear-bound", "curve-rank-bound"])
def test_pruned_evidence_in_the_study_direction(mode: str) -> None:
    minimised = random_study(optuna.pruners.MedianPruner(n_startup_trials=3, n_warmup_steps=1))
    maximised = random_study(optuna.pruners.MedianPruner(n_startup_trials=3, n_warmup_steps=1), direction="maximize")
    results = []
    for study in (minimised, maximised):
        trials = finished_trials(study.trials)
        assert trials.pruned
        evidence = pruned_evidence(trials.complete, trials.pruned, study.direction, mode, study.pruner, study.trials)
        assert len(evidence.values) == len(trials.pruned) and np.all(evidence.variances >= 0)
        results.append(evidence)
    # The same curves, negated: the same evidence, negated.
    np.testing.assert_allclose(results[1].values, -results[0].values, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(results[1].variances, results[0].variances, rtol=1e-9, atol=1e-15)
    # Never worse than the worst complete value.
    worst = max(value_of(t) for t in finished_trials(minimised.trials).complete)
    assert np.all(results[0].values <= worst + 1e-12)
    assert minimised.direction == StudyDirection.MINIMIZE


@pytest.mark.parametrize("bound", [None, 1.0, 3.0])
def test_rank_map_against_numerical_integration(bound: float | None) -> None:
    """The rank map's moments against SciPy's quadrature of the same model: the final's normal
    score N(rho z, 1 - rho^2) (truncated below at rho z_bound), mapped through the peers'
    empirical quantile function, integrated independently of the map's 64-point quantile rule."""
    import scipy.integrate

    rng = np.random.default_rng(6)
    peers = pairs(rng, 25, 0.7)
    value = float(np.quantile(peers[:, 0], 0.7))
    mean, variance = _curves.predict_rank(peers, value, bound)
    rho = _curves.rank_correlation(peers[:, 0], peers[:, 1])
    n = len(peers)

    def score(v: float) -> float:  # the normal score of a value among the peers' values at s
        below = np.sum(peers[:, 0] < v) + 0.5 * np.sum(peers[:, 0] == v)
        return float(scipy.stats.norm.ppf((below + 0.5) / (n + 1)))

    loc, scale = rho * score(value), math.sqrt(1 - rho**2)
    low = -np.inf if bound is None else (rho * score(bound) - loc) / scale
    distribution = scipy.stats.truncnorm(low, np.inf, loc=loc, scale=scale)
    ordered = np.sort(peers[:, 1])
    positions = np.arange(1, n + 1) / (n + 1)

    def final(s: float) -> float:
        return float(np.interp(scipy.stats.norm.cdf(s), positions, ordered))

    lower, upper = distribution.ppf(1e-12), distribution.ppf(1 - 1e-12)
    # The integrand's kinks: the scores of the quantile function's knots.
    points = [s for s in scipy.stats.norm.ppf(positions) if lower < s < upper]
    first = scipy.integrate.quad(lambda s: final(s) * distribution.pdf(s), lower, upper, points=points, limit=500)[0]
    second = scipy.integrate.quad(lambda s: final(s) ** 2 * distribution.pdf(s), lower, upper, points=points, limit=500)[0]
    spread = float(np.ptp(peers[:, 1]))
    assert mean == pytest.approx(first, abs=0.001 * spread)
    assert variance == pytest.approx(second - first**2, rel=0.03)  # the quantile rule: 1.4 % low untruncated
