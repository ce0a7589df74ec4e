"""Flat dimensions drawn, not optimised (``_flat_dimensions``): which dimensions the rule calls
flat, checked against scikit-learn's posterior on a numeric space; what the draw changes; and a
study that uses it."""

from __future__ import annotations

import math

import numpy as np
import optuna
import pytest

from optuna_vpbo import VPBOSampler, VPBOSettings
from optuna_vpbo._fit import GPHyperparameters
from optuna_vpbo._flat_dimensions import FLAT_LENGTHSCALE, N_LINE_POINTS, flat_dimensions, with_flat_drawn
from optuna_vpbo._models import ObjectiveModel
from optuna_vpbo._proposals import Proposal

VARIANCE, LAM = 1.0, 1.0


def model_on(x: np.ndarray, y: np.ndarray, lengthscales: np.ndarray, noise: float) -> ObjectiveModel:
    h = np.zeros((len(x), 0), dtype=np.int32)
    hyperparameters = GPHyperparameters(lengthscales, VARIANCE, noise, LAM)
    return ObjectiveModel(hyperparameters.make_gp(h, x, y), y, hyperparameters, np.zeros(0))


def trend_data(rng: np.random.Generator, n: int = 40) -> tuple[np.ndarray, np.ndarray]:
    """Targets that rise along dimension 0 and ignore dimensions 1 and 2."""
    x = rng.uniform(size=(n, 3))
    return x, 2.0 * x[:, 0] - 1.0 + 0.01 * rng.standard_normal(n)


def scikit_learn_flat(x: np.ndarray, y: np.ndarray, lengthscales: np.ndarray, noise: float, at: np.ndarray) -> list[int]:
    """The rule computed on scikit-learn's posterior mean (no categorical: k = variance k_x at
    lambda = 1)."""
    gpr_module = pytest.importorskip("sklearn.gaussian_process")
    kernels = pytest.importorskip("sklearn.gaussian_process.kernels")
    kernel = kernels.ConstantKernel(VARIANCE, "fixed") * kernels.Matern(lengthscales, "fixed", nu=2.5)
    reference = gpr_module.GaussianProcessRegressor(kernel, alpha=noise, optimizer=None).fit(x, y)
    flat = []
    for j in range(x.shape[1]):
        points = np.repeat(at.reshape(1, -1), N_LINE_POINTS, axis=0)
        points[:, j] = np.linspace(0.0, 1.0, N_LINE_POINTS)
        mean = reference.predict(points)
        if lengthscales[j] >= FLAT_LENGTHSCALE and np.ptp(mean) < math.sqrt(noise):
            flat.append(j)
    return flat


@pytest.mark.parametrize("lengthscales", [[5.0, 5.0, 5.0], [5.0, 0.5, 5.0], [0.3, 8.0, 3.0]])
def test_flat_dimensions_match_the_rule_on_scikit_learn_posterior(lengthscales: list[float]) -> None:
    rng = np.random.default_rng(0)
    x, y = trend_data(rng)
    ls, noise = np.array(lengthscales), 0.01
    at = np.array([0.9, 0.95, 0.02])
    flat = flat_dimensions(model_on(x, y, ls, noise), np.zeros(0, np.int32), at, np.arange(3))
    assert flat.tolist() == scikit_learn_flat(x, y, ls, noise, at)


def test_a_trend_is_not_flat_an_ignored_dimension_is_and_a_short_lengthscale_never_is() -> None:
    x, y = trend_data(np.random.default_rng(1))
    model = model_on(x, y, np.array([5.0, 5.0, 0.5]), 0.01)
    flat = flat_dimensions(model, np.zeros(0, np.int32), np.array([0.5, 0.5, 0.5]), np.arange(3))
    assert flat.tolist() == [1]
    # Inactive dimensions are not looked at.
    assert flat_dimensions(model, np.zeros(0, np.int32), np.full(3, 0.5), np.array([0, 2])).size == 0


def snap_to_tenths(points: np.ndarray, active: np.ndarray) -> np.ndarray:
    out = np.round(points, 1)
    out[:, ~active] = 0.5
    return out


def nothing_blocked(row: np.ndarray, points: np.ndarray) -> np.ndarray:
    return np.zeros(len(points), dtype=bool)


def everything_blocked(row: np.ndarray, points: np.ndarray) -> np.ndarray:
    return np.ones(len(points), dtype=bool)


def test_the_draw_replaces_only_the_flat_coordinates_snapped_and_respects_blocked_points() -> None:
    x, y = trend_data(np.random.default_rng(2))
    model = model_on(x, y, np.array([5.0, 5.0, 0.5]), 0.01)
    start = np.array([0.9, 1.0, 0.4])
    proposal = Proposal(np.zeros(0, np.int32), start, -1.0, start, [])
    active = np.ones(3, dtype=bool)
    drawn, dims = with_flat_drawn(proposal, model, active, snap_to_tenths, np.random.default_rng(7), nothing_blocked)
    expected = np.round(np.random.default_rng(7).uniform(size=1)[0], 1)
    assert dims.tolist() == [1]
    assert drawn.x.tolist() == [0.9, expected, 0.4]
    assert drawn.value == proposal.value and drawn.row is proposal.row
    kept, none = with_flat_drawn(proposal, model, active, snap_to_tenths, np.random.default_rng(7), everything_blocked)
    assert kept is proposal and none.size == 0


def ignored_float(trial: optuna.Trial) -> float:
    kind = trial.suggest_categorical("kind", ["a", "b"])
    u = trial.suggest_float("u", -1.0, 1.0)
    trial.suggest_float("ignored", 0.0, 10.0)
    return (u - 0.3) ** 2 + (0.0 if kind == "a" else 0.5)


def run(settings: VPBOSettings, seed: int, n_trials: int = 40) -> optuna.Study:
    sampler = VPBOSampler(seed=seed, settings=settings, record_proposals=True)
    study = optuna.create_study(sampler=sampler)
    study.optimize(ignored_float, n_trials=n_trials)
    return study


def test_a_study_draws_the_dimension_it_ignores_and_repeats_by_seed() -> None:
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    settings = VPBOSettings(n_startup_trials=8, flat_dimensions="draw")
    study = run(settings, seed=3)
    drawn = [t for t in study.trials if "ignored" in t.user_attrs.get("vpbo", {}).get("drawn", [])]
    assert len(drawn) >= 5
    assert all("u" not in t.user_attrs["vpbo"]["drawn"] for t in drawn[-5:])
    values = np.array([t.params["ignored"] for t in drawn])
    assert np.mean((values < 0.1) | (values > 9.9)) < 0.5  # uniform draws, not the box's faces
    again = run(settings, seed=3)
    assert [t.params for t in again.trials] == [t.params for t in study.trials]
    assert study.best_value < 0.05


def test_the_setting_is_validated_and_off_in_the_paper_preset() -> None:
    with pytest.raises(ValueError, match="flat_dimensions must be one of"):
        VPBOSettings(flat_dimensions="random")
    with pytest.raises(TypeError, match="flat_dimensions must be a str"):
        VPBOSettings(flat_dimensions=True)  # type: ignore[arg-type]
    assert VPBOSettings.paper().flat_dimensions == "optimise"

