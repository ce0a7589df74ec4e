"""The held-out large spaces, checked against references written here: LABS on the Barker
sequence of length 13, the Potts energy and the cut term by term, Levy by its textbook formula,
the feature selection's empty set by the base rate's log loss."""

from __future__ import annotations

import math

import numpy as np
import optuna
import pytest
from sklearn.datasets import load_breast_cancer

from vpbo_benchmarks import large_spaces, ml_problems, registry
from vpbo_benchmarks.problem import single_objective

BARKER_13 = [1, 1, 1, 1, 1, 0, 0, 1, 1, 0, 1, 0, 1]  # + + + + + - - + + - + - +


def test_labs_of_the_barker_sequence_is_its_known_merit_factor() -> None:
    # Every aperiodic autocorrelation of a Barker sequence is 0 or +-1: E = 6, F = 169 / 12.
    assert large_spaces.labs(BARKER_13) == pytest.approx(-169.0 / 12.0, rel=1e-12)


def test_labs_matches_a_double_loop() -> None:
    bits = np.random.default_rng(3).integers(0, 2, size=large_spaces.LABS_LENGTH).tolist()
    s = [2 * b - 1 for b in bits]
    n = len(s)
    energy = sum(sum(s[i] * s[i + k] for i in range(n - k)) ** 2 for k in range(1, n))
    assert large_spaces.labs(bits) == pytest.approx(-n * n / (2 * energy), rel=1e-12)


def test_potts_is_its_fields_and_couplings_term_by_term() -> None:
    fields, pairs, couplings = large_spaces.potts_terms()
    n = large_spaces.POTTS_N_VARIABLES
    assert len({tuple(p) for p in pairs.tolist()}) == len(pairs) == n - 1 + large_spaces.POTTS_N_EXTRA_PAIRS
    levels = np.random.default_rng(4).integers(0, large_spaces.POTTS_N_VALUES, size=n).tolist()
    expected = sum(fields[i][levels[i]] for i in range(n))
    expected += sum(couplings[m][levels[i]][levels[j]] for m, (i, j) in enumerate(pairs.tolist()))
    assert large_spaces.potts(levels) == pytest.approx(expected, rel=1e-12)


def test_maxcut_counts_each_cut_edge_once_and_ignores_the_labels() -> None:
    weights = large_spaces.maxcut_weights()
    sides = np.random.default_rng(5).integers(0, 2, size=large_spaces.MAXCUT_N_NODES).tolist()
    n = len(sides)
    expected = -sum(weights[i][j] for i in range(n) for j in range(i + 1, n) if sides[i] != sides[j])
    assert large_spaces.maxcut(sides) == pytest.approx(expected, rel=1e-12)
    assert large_spaces.maxcut([1 - s for s in sides]) == pytest.approx(expected, rel=1e-12)
    assert large_spaces.maxcut([0] * n) == 0.0


def textbook_levy(z: list[float]) -> float:
    w = [1 + (v - 1) / 4 for v in z]
    total = math.sin(math.pi * w[0]) ** 2
    for wi in w[:-1]:
        total += (wi - 1) ** 2 * (1 + 10 * math.sin(math.pi * wi + 1) ** 2)
    return total + (w[-1] - 1) ** 2 * (1 + math.sin(2 * math.pi * w[-1]) ** 2)


def test_levy_mixed_is_the_textbook_levy_of_the_levels_values() -> None:
    permutations = large_spaces.levy_permutations()
    levels = np.random.default_rng(6).integers(0, len(large_spaces.LEVY_GRID), size=large_spaces.LEVY_N_CATEGORICAL)
    x = [0.3, -2.0, 6.5, 1.0]
    z = [large_spaces.LEVY_GRID[permutations[v][j]] for v, j in enumerate(levels.tolist())] + x
    assert large_spaces.levy_mixed(levels.tolist(), x) == pytest.approx(textbook_levy(z), rel=1e-12)
    at_one = [int(np.flatnonzero(np.asarray(large_spaces.LEVY_GRID)[p] == 1.0)[0]) for p in permutations]
    assert large_spaces.levy_mixed(at_one, [1.0] * large_spaces.LEVY_N_FLOAT) == pytest.approx(0.0, abs=1e-12)
    assert len({tuple(p) for p in permutations.tolist()}) > 1  # the levels carry no shared order


def test_feature_selection_without_features_is_the_base_rates_log_loss() -> None:
    target = load_breast_cancer().target
    p = target.mean()
    base = -(p * math.log(p) + (1 - p) * math.log(1 - p))
    empty = ml_problems.feature_selection([0] * 30, 1.0)
    assert empty == pytest.approx(base, abs=0.01)  # the folds' base rates differ from the whole set's slightly
    assert ml_problems.feature_selection([1] * 30, 1.0) < 0.2 + 30 * ml_problems.FEATURE_COST < empty


@pytest.mark.parametrize("name", large_spaces.LARGE_SPACES.problems)
def test_each_problem_runs_as_a_registered_study(name: str) -> None:
    problem = registry.get_problem(name)
    assert problem.n_combinations > 4096
    study = optuna.create_study(sampler=optuna.samplers.RandomSampler(seed=0))
    study.optimize(single_objective(problem), n_trials=3)
    assert all(t.value is not None and math.isfinite(t.value) for t in study.trials)
    assert registry.PROBLEM_SETS["large_spaces"].problems == large_spaces.LARGE_SPACES.problems
