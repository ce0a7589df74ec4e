"""The initial design's categorical rows (``design_rows``): random, or balanced so that a short
design sees every value of a small categorical."""

from __future__ import annotations

import itertools

import numpy as np
import optuna
import pytest
from optuna.distributions import CategoricalDistribution, FloatDistribution

from conftest import make_sampler
from optuna_vpbo import VPBOSettings
from optuna_vpbo._init_design import design_row
from optuna_vpbo._search_tree import SearchTree
from optuna_vpbo._tree_encoder import TreeEncoder

SPACE = {
    "a": CategoricalDistribution(["a0", "a1", "a2"]),
    "b": CategoricalDistribution(["b0", "b1", "b2", "b3", "b4"]),
    "x": FloatDistribution(-1.0, 1.0),
}


def _encoder() -> TreeEncoder:
    return TreeEncoder(SearchTree(dict(sorted(SPACE.items())), {}))


def test_a_balanced_row_is_the_least_taken_combination_of_values() -> None:
    encoder = _encoder()
    taken = np.array([[0, 0], [0, 1], [1, 0], [1, 2], [0, 3], [2, 0]], dtype=np.int32)
    # An independent count: every combination of the 15 (64 draws hold them all for this seed).
    counts = {
        row: sum(int(t[0] == row[0]) + int(t[1] == row[1]) for t in taken) for row in itertools.product(range(3), range(5))
    }
    least = min(counts.values())
    row = design_row(encoder, taken, np.random.default_rng(3), balanced=True)
    assert counts[(int(row[0]), int(row[1]))] == least == 1  # (2, 4): one a2, no b4


def test_a_random_row_is_one_random_draw() -> None:
    encoder = _encoder()
    taken = np.zeros((4, 2), dtype=np.int32)
    row = design_row(encoder, taken, np.random.default_rng(5), balanced=False)
    np.testing.assert_array_equal(row, encoder.random_rows(1, np.random.default_rng(5))[0])


def _values_seen_in_design(design_rows: str, seed: int) -> tuple[int, int]:
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    study = optuna.create_study(sampler=make_sampler(seed=seed, n_startup_trials=8, design_rows=design_rows))

    def objective(trial: optuna.Trial) -> float:
        a = trial.suggest_categorical("a", ["a0", "a1", "a2"])
        b = trial.suggest_categorical("b", ["b0", "b1", "b2", "b3", "b4"])
        return trial.suggest_float("x", -1.0, 1.0) ** 2 + (a != "a1") + (b != "b3")

    study.optimize(objective, n_trials=8)
    return len({t.params["a"] for t in study.trials}), len({t.params["b"] for t in study.trials})


def test_a_balanced_design_sees_every_value_of_small_categoricals() -> None:
    seeds = range(6)
    # Four random trials, then four balanced rows: the five values of b need the balance.
    assert all(_values_seen_in_design("balanced", seed) == (3, 5) for seed in seeds)
    assert any(_values_seen_in_design("random", seed) != (3, 5) for seed in seeds)


@pytest.mark.parametrize("value, error", [("even", ValueError), (1, TypeError)])
def test_design_rows_is_validated(value: object, error: type[Exception]) -> None:
    with pytest.raises(error, match="design_rows"):
        VPBOSettings(design_rows=value)  # type: ignore[arg-type]


def test_the_paper_preset_draws_its_design_rows_at_random() -> None:
    assert VPBOSettings.paper().design_rows == "random"
