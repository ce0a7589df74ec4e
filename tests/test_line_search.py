"""The discrete line search of the acquisition optimiser (``_proposals.line_search``) and the grids
it searches (``grid_units``), checked against exhaustive enumeration and Optuna's own grids."""

from __future__ import annotations

from typing import Any

import numpy as np
import optuna
import pytest
from optuna.distributions import FloatDistribution, IntDistribution

from optuna_vpbo import VPBOSampler, VPBOSettings, _core
from optuna_vpbo._proposals import MAX_LINE_POINTS, N_LINE_NEIGHBOURS, line_points, line_search
from optuna_vpbo.search_space import MixedSpaceEncoder

DISTRIBUTIONS = {
    "a_int": IntDistribution(0, 30),
    "b_int_step": IntDistribution(-3, 9, step=3),
    "c_int_log": IntDistribution(1, 4096, log=True),
    "d_float_step": FloatDistribution(0.0, 1.0, step=0.1),
    "e_float": FloatDistribution(-2.0, 2.0),
}


def test_grid_units_decode_to_every_grid_value_in_order() -> None:
    encoder = MixedSpaceEncoder(DISTRIBUTIONS)
    grids = dict(zip(encoder.numeric_names, encoder.grid_units()))
    continuous = grids.pop("e_float")
    expected: dict[str, list[float]] = {
        "a_int": list(range(0, 31)),
        "b_int_step": [-3, 0, 3, 6, 9],
        "c_int_log": list(range(1, 4097)),
        "d_float_step": [round(0.1 * k, 10) for k in range(11)],
    }
    assert continuous is None
    for name, values in expected.items():
        units = grids[name]
        assert units is not None
        assert np.all(np.diff(units) > 0)
        j = encoder.numeric_names.index(name)
        decoded: list[float] = []
        for u in units:
            x = np.full(encoder.n_numeric, 0.5)
            x[j] = u
            decoded.append(encoder.decode(np.zeros(0, np.int32), x)[name])
        np.testing.assert_allclose(decoded, values, atol=1e-12)
        # Grid points are fixed points of the snap the candidates go through.
        column = np.full((len(units), encoder.n_numeric), 0.5)
        column[:, j] = units
        np.testing.assert_allclose(encoder.round_to_grid(column)[:, j], units, atol=1e-12)


def test_line_points_keep_small_grids_and_thin_large_ones_around_the_current_value() -> None:
    small = np.linspace(0, 1, MAX_LINE_POINTS)
    np.testing.assert_array_equal(line_points(small, 0.3), small)
    large = np.linspace(0, 1, 1001)
    points = line_points(large, large[500] + 1e-9)
    assert points[0] == 0.0 and points[-1] == 1.0
    assert np.all(np.diff(points) > 0) and set(points) <= set(large)
    for k in range(501 - N_LINE_NEIGHBOURS, 501 + N_LINE_NEIGHBOURS):
        assert large[k] in points
    assert len(points) <= MAX_LINE_POINTS + 2 * N_LINE_NEIGHBOURS


def _two_int_acquisition(seed: int) -> tuple[_core.Acquisition, np.ndarray, list[np.ndarray]]:
    """Log EI of a GP on a 2-d grid of 13 x 9 points with a ridge, and the grids."""
    rng = np.random.default_rng(seed)
    grids = [np.linspace(0.02, 0.98, 13), np.linspace(0.05, 0.95, 9)]
    x = np.column_stack([rng.choice(grids[0], 12), rng.choice(grids[1], 12)])
    y = -((x[:, 0] - x[:, 1]) ** 2) * 20 - (x[:, 0] + x[:, 1] - 1.0) ** 2 + 0.01 * rng.standard_normal(12)
    h = np.zeros((12, 1), np.int32)
    gp = _core.MixedGP(h, x, y, np.array([0.3, 0.3]), 1.0, 0.5, 1e-4)
    return _core.LogExpectedImprovement(gp, float(y.max())), np.zeros(1, np.int32), grids


def _value(acquisition: _core.Acquisition, row: np.ndarray, x: np.ndarray) -> float:
    return float(acquisition.evaluate(row.reshape(1, -1), x.reshape(1, -1))[0])


@pytest.mark.parametrize("seed", range(5))
def test_line_search_ends_at_a_coordinatewise_maximum_of_the_grid(seed: int) -> None:
    acquisition, row, grids = _two_int_acquisition(seed)
    rng = np.random.default_rng(100 + seed)
    start = np.array([rng.choice(grids[0]), rng.choice(grids[1])])
    x, value = line_search(acquisition, row, start, _value(acquisition, row, start), [0, 1], grids)
    assert value == pytest.approx(_value(acquisition, row, x), rel=1e-12)
    assert value >= _value(acquisition, row, start)
    assert x[0] in grids[0] and x[1] in grids[1]
    # No single-coordinate move on the grid improves (enumerated independently).
    for j in (0, 1):
        for g in grids[j]:
            moved = x.copy()
            moved[j] = g
            assert _value(acquisition, row, moved) <= value + 1e-12
    # At least the best point of the line through the start along the first dimension searched.
    best_on_line = max(_value(acquisition, row, np.array([g, start[1]])) for g in grids[0])
    assert value >= best_on_line - 1e-12


def test_line_search_never_moves_to_a_blocked_point() -> None:
    acquisition, row, grids = _two_int_acquisition(0)
    start = np.array([grids[0][0], grids[1][0]])
    free_x, _ = line_search(acquisition, row, start, _value(acquisition, row, start), [0, 1], grids)
    blocked_point = free_x.copy()

    def blocked(_: np.ndarray, points: np.ndarray) -> np.ndarray:
        return np.all(np.abs(points - blocked_point) < 1e-12, axis=1)

    x, _ = line_search(acquisition, row, start, _value(acquisition, row, start), [0, 1], grids, blocked)
    assert not np.allclose(x, blocked_point)


def test_line_search_leaves_continuous_and_inactive_dimensions_alone() -> None:
    acquisition, row, grids = _two_int_acquisition(1)
    start = np.array([0.5, 0.5])
    value = _value(acquisition, row, start)
    x, same = line_search(acquisition, row, start, value, [0, 1], [None, None])
    np.testing.assert_array_equal(x, start)
    assert same == value
    x, _ = line_search(acquisition, row, start, value, [1], grids)
    assert x[0] == 0.5


def test_studies_with_the_line_search_suggest_on_the_grids_and_repeat_by_seed() -> None:
    def objective(trial: optuna.Trial) -> float:
        kind = trial.suggest_categorical("kind", ["a", "b"])
        k = trial.suggest_int("k", 0, 40)
        n = trial.suggest_int("n", 1, 2048, log=True)
        s = trial.suggest_float("s", 0.0, 1.0, step=0.05)
        r = trial.suggest_float("r", -1.0, 1.0)
        return (k - 17.3) ** 2 / 100 + (np.log2(n) - 6.6) ** 2 + (s - 0.42) ** 2 + r**2 + (kind == "b")

    def run() -> list[dict[str, Any]]:
        settings = VPBOSettings(n_startup_trials=6).replace(discrete_line_search=True)
        study = optuna.create_study(sampler=VPBOSampler(seed=3, settings=settings))
        study.optimize(objective, n_trials=24)
        return [t.params for t in study.trials]

    first = run()
    assert first == run()
    for params in first:
        assert isinstance(params["k"], int) and isinstance(params["n"], int)
        assert abs(params["s"] / 0.05 - round(params["s"] / 0.05)) < 1e-9
    # No complete configuration proposed twice on this deterministic objective.
    keys = [tuple(sorted(p.items())) for p in first]
    assert len(set(keys)) == len(keys)
