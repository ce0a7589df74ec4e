"""The policy held-out set (:mod:`vpbo_benchmarks.stall_landscapes`): each combination's stated best
checked by an independent search, random trials, the best point, the registry. Only random trials
and direct evaluations run here: no sampler study runs on this set (lab_testing)."""

from __future__ import annotations

import itertools
import math
from pathlib import Path
from typing import Any

import numpy as np
import optuna
import pytest

import vpbo_benchmarks
from lab_testing import (
    best_and_random,
    grid_then_polish,
    line_minimum,
    noiseless_value,
    random_study,
    two_float_check,
    zoom_minimum,
)
from vpbo_benchmarks import held_out_sets, registry
from vpbo_benchmarks import stall_landscapes as stall
from vpbo_benchmarks.specs import combination_of, stated_objective

NAMES = list(stall.POLICY_NAMES)
PROBLEMS = held_out_sets.PROBLEMS_BY_NAME

# The words another module's source would hold if it used one of this set's base functions.
BASE_WORDS = ("schaffer", "eggholder", "bukin", "xin-she", "xin_she")


def test_the_set_is_registered_with_its_rule() -> None:
    problem_set = registry.PROBLEM_SETS["policy_held_out"]
    assert problem_set is held_out_sets.POLICY_HELD_OUT and problem_set.frozen == "2026-12-03"
    assert problem_set.problems == tuple(NAMES) and len(NAMES) >= 6
    assert registry.GROUPS["policy_held_out"] == tuple(NAMES)
    assert "then once, last" in problem_set.rule
    others = {n for s in registry.PROBLEM_SETS.values() if s.name != "policy_held_out" for n in s.problems}
    assert not others & set(NAMES)
    for name in NAMES:
        problem, spec, built = PROBLEMS[name], registry.SPECS[name], registry.get_problem(name)
        optimum = min(problem.combination_best(c) for c in problem.combinations())
        assert spec.optimum() == optimum and built.optimum == optimum
        assert built.n_combinations == len(problem.combinations()) <= 300 and built.directions == ("minimize",)
        assert built.description.startswith(f"[policy held-out/{problem.family}] ")
        assert spec.best_point is not None and spec.best_point() == problem.best_point()


def test_the_roles_of_the_rule() -> None:
    assert [n for n in NAMES if PROBLEMS[n].conditional] == ["bukin_branch", "layers_powers"]
    for name in NAMES:  # mixed: a categorical with floats or ints
        study = random_study(PROBLEMS[name], 40, 1)
        kinds = {type(d).__name__ for t in study.trials for d in t.distributions.values()}
        assert "CategoricalDistribution" in kinds and kinds & {"FloatDistribution", "IntDistribution"}, name
    study = random_study(PROBLEMS["trid_lattice"], 20, 2)
    lattice = [d for t in study.trials for k, d in t.distributions.items() if k != "unroll"]
    assert all(isinstance(d, optuna.distributions.IntDistribution) and d.step == 2 for d in lattice)
    # The branches decide which parameters exist.
    study = random_study(PROBLEMS["bukin_branch"], 60, 3)
    shapes = {"ridge": {"x", "y"}, "bowl": {"a", "b", "c"}, "steps": {"n", "w"}}
    for trial in study.trials:
        assert set(trial.params) == {"solver", *shapes[trial.params["solver"]]}
    study = random_study(PROBLEMS["layers_powers"], 60, 4)
    for trial in study.trials:
        n = trial.params["n_layers"]
        assert set(trial.params) == {"n_layers", "act", *(f"w{i + 1}" for i in range(n))}
    # The faces: the best point has a float on the box's bound.
    assert abs(PROBLEMS["eggholder_face"].best_point()["x1"]) == 512.0 and PROBLEMS["perm_face"].best_point()["x1"] == 1.0
    # Several good combinations close in value.
    values = sorted(PROBLEMS["xin_she_yang_close"].combination_best(c) for c in PROBLEMS["xin_she_yang_close"].combinations())
    assert values[4] - values[0] < 0.05


def test_the_base_functions_are_right_and_new() -> None:
    assert float(stall.schaffer2(0.0, 0.0)) == 0.0
    assert float(stall.eggholder(512.0, 404.2319)) == pytest.approx(-959.6407, abs=1e-4)
    x = np.array([4.0, 6.0, 6.0, 4.0])  # Trid's argmin i (d + 1 - i) in 4 dimensions, minimum -16
    assert float(stall.trid(x)) == -16.0
    assert float(stall.bukin6(-10.0, 1.0)) == 0.0
    assert float(stall.different_powers(np.zeros(3))) == 0.0 and float(stall.different_powers(np.ones(3))) == 3.0
    assert float(stall.xin_she_yang2(np.zeros(3))) == 0.0
    assert float(stall.perm0(np.array([1.0, 0.5, 1.0 / 3.0]), 10.0)) == pytest.approx(0.0, abs=1e-24)
    folder = Path(vpbo_benchmarks.__file__).parent
    for path in sorted(folder.glob("*.py")):
        if path.name in {"stall_landscapes.py", "held_out_sets.py"}:
            continue
        text = path.read_text(encoding="utf-8").lower()
        assert not [w for w in BASE_WORDS if w in text], path


@pytest.mark.parametrize("name", NAMES)
def test_random_trials_stay_at_or_above_the_stated_bests(name: str) -> None:
    problem = PROBLEMS[name]
    bests = {combination_of(c, problem.combination_keys): problem.combination_best(c) for c in problem.combinations()}
    study = optuna.create_study(sampler=optuna.samplers.RandomSampler(seed=0))
    study.optimize(stated_objective(problem), n_trials=200)
    for trial in study.trials:
        value = noiseless_value(trial)
        assert math.isfinite(value)
        combination = combination_of(trial.params, problem.combination_keys)
        assert combination in bests and value >= bests[combination] - 1e-9
        assert value == pytest.approx(float(problem.value(trial.params)), abs=1e-12)
    assert len({combination_of(t.params, problem.combination_keys) for t in study.trials}) >= min(4, len(bests))


# ------------------------------------------------------------------ independent searches of the stated bests


def test_schaffer_rings_bests() -> None:
    problem = PROBLEMS["schaffer_rings"]
    two_float_check("schaffer_rings", stall.SR_BOUNDS, 801, best_and_random(problem, 2, 3))


def test_eggholder_face_bests() -> None:
    problem = PROBLEMS["eggholder_face"]
    combinations = sorted(problem.combinations(), key=problem.combination_best)
    picked = [combinations[0]] + [c for c in combinations if c["mirror"] != combinations[0]["mirror"]][:1]
    two_float_check("eggholder_face", stall.EF_BOUNDS, 2001, picked)


def test_trid_lattice_bests_by_a_second_enumeration() -> None:
    problem = PROBLEMS["trid_lattice"]
    axis = range(stall.TL_LOW, stall.TL_HIGH + 1, stall.TL_STEP)
    points = np.array(list(itertools.product(axis, repeat=4)), dtype=float)
    for c in problem.combinations():
        values = problem.value({**c, **{k: points[:, i] for i, k in enumerate(stall.TL_INTS)}})
        assert float(np.min(values)) == pytest.approx(problem.combination_best(c), abs=1e-12)


def test_bukin_branch_bests() -> None:
    problem = PROBLEMS["bukin_branch"]
    ridge = zoom_minimum(lambda x, y: problem.value({"solver": "ridge", "x": x, "y": y}), [(-15.0, -5.0), (-3.0, 3.0)],
                         n_grid=401, n_zooms=12)
    assert ridge >= -1e-12  # a box search stalls along the ridge-valley: follow the valley y = 0.01 x^2 instead
    valley = line_minimum(lambda x: problem.value({"solver": "ridge", "x": x, "y": 0.01 * x * x}), -15.0, -5.0)
    assert valley == pytest.approx(0.0, abs=1e-9)
    rng = np.random.default_rng(0)  # and off the valley the ridge's term only adds
    x, y = rng.uniform(-15.0, -5.0, 10_000), rng.uniform(-3.0, 3.0, 10_000)
    assert np.all(problem.value({"solver": "ridge", "x": x, "y": y}) >= 0.2 * 0.01 * np.abs(x + 10.0) - 1e-12)
    bowl = grid_then_polish(lambda a, b, c: problem.value({"solver": "bowl", "a": a, "b": b, "c": c}),
                            [(-1.0, 1.0)] * 3, 41)
    assert bowl >= 0.4 - 1e-12 and bowl == pytest.approx(0.4, abs=1e-5)

    def steps_at(n: int) -> float:
        return line_minimum(lambda w: problem.value({"solver": "steps", "n": n, "w": w}), 0.0, 1.0)

    steps = min(steps_at(n) for n in range(1, 21))
    assert steps >= 0.25 - 1e-12 and steps == pytest.approx(0.25, abs=1e-9)


def test_xin_she_yang_close_bests() -> None:
    problem = PROBLEMS["xin_she_yang_close"]
    for c in best_and_random(problem, 2, 2):
        found = zoom_minimum(lambda a, b, d, c=c: problem.value({**c, "z1": a, "z2": b, "z3": d}), [(-6.0, 6.0)] * 3,
                             n_grid=61, n_zooms=12)
        stated = problem.combination_best(c)
        assert found >= stated - 1e-12 and found == pytest.approx(stated, abs=1e-5), c


def test_layers_powers_bests() -> None:
    problem = PROBLEMS["layers_powers"]
    for c in problem.combinations():
        n = c["n_layers"]

        def f(*w: np.ndarray, c: dict[str, Any] = c, n: int = n) -> Any:
            return problem.value({**c, **{f"w{i + 1}": w[i] for i in range(n)}})

        found = zoom_minimum(f, [(0.0, 1.0)] * n, n_grid=41, n_zooms=12)
        stated = problem.combination_best(c)
        assert found >= stated - 1e-12 and found == pytest.approx(stated, abs=1e-6), c


def test_perm_face_bests() -> None:
    problem = PROBLEMS["perm_face"]
    for c in problem.combinations():
        k = int(stall.perm_face_tables()["k"][c["precision"]])
        at_zero = {**c, "x1": 1.0, "x2": 0.5, "x3": 1.0 / 3.0}
        ks = [problem.value({**at_zero, "k": j}) for j in range(stall.PF_INT[0], stall.PF_INT[1] + 1)]
        assert int(np.argmin(ks)) + stall.PF_INT[0] == k  # the int's best, by enumeration
        found = grid_then_polish(lambda a, b, d, c=c, k=k: problem.value({**c, "x1": a, "x2": b, "x3": d, "k": k}),
                                 [(-1.0, 1.0)] * 3, 61, n_starts=8)
        stated = problem.combination_best(c)
        assert found >= stated - 1e-12 and found == pytest.approx(stated, abs=1e-5), c
