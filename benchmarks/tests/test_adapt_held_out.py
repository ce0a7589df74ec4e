"""Tests of the adapt held-out set of issue 27 (benchmarks/vpbo_benchmarks/adapt_held_out.py,
adapt_landscapes.py and adapt_structures.py; docs/suite.md "The adapt held-out set (issue 27)").

Only random trials and direct evaluations here: no sampler study runs on these problems before
issue 27's defaults are frozen (a study that only evaluates an enqueued point runs under
RandomSampler too). Each combination's stated best is checked against an independent search of
the problem's vectorised value: dense grids polished by SciPy, or full enumeration of the
integers. The last tests check the set's place in the lab's registry.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

import numpy as np
import optuna
import pytest
from scipy.optimize import minimize
from scipy.stats import t as student_t

from vpbo_benchmarks import adapt_held_out as aho
from vpbo_benchmarks import adapt_landscapes as landscapes
from vpbo_benchmarks import adapt_structures as structures
from vpbo_benchmarks import registry
from vpbo_benchmarks.problem import NOISELESS_ATTR
from vpbo_benchmarks.specs import FreshProblem

NAMES = [p.name for p in aho.ADAPT_HELD_OUT_PROBLEMS]
N_RANDOM_TRIALS = 120
# Every problem name and base function of the lab when the set was written (problems.py, suite.py,
# fresh_problems.py): the set must not reuse one.
LAB_PROBLEMS = {
    "func2c", "func3c", "ackley5c", "ackley53", "reizman_suzuki_1", "reizman_suzuki_2", "reizman_suzuki_3",
    "reizman_suzuki_4", "reizman_suzuki_1_mo", "baumgartner", "baumgartner_mo", "svm_boston", "xg_mnist", "nas_like",
    "constrained", "conditional_trap", "automl", "shifted_ackley", "shifted_rastrigin", "shifted_levy", "signed_schwefel",
    "many_levels_styblinski", "many_cats_levy", "int_log_styblinski", "mixed_int_ackley", "branch_choice", "shared_branches",
    "mlp_synthetic", "conv_blocks", "noisy_styblinski", "noisy_mlp", "hgb_breast_cancer", "svr_diabetes", "rotated_griewank",
    "decoy_funnel", "lowrank_valley", "hidden_pair", "tilted_lattice", "hash_resonance", "stacked_stages", "hetero_branin",
}
LAB_BASES = {"ackley", "rastrigin", "levy", "schwefel", "styblinski_tang", "rosenbrock", "six_hump_camel", "beale", "griewank",
             "himmelblau", "branin", "hartmann"}

optuna.logging.set_verbosity(optuna.logging.ERROR)


def _observed(problem: FreshProblem, params: Mapping[str, Any], number: int = 0) -> tuple[float, float]:
    """(observed, noiseless) value of the problem's Optuna objective at ``params``."""
    trial = optuna.trial.FixedTrial(dict(params), number=number)
    value = aho.make_objective(problem)(trial)
    return value, float(trial.user_attrs.get(NOISELESS_ATTR, value))


def _noiseless_objective(problem: FreshProblem) -> Callable[[optuna.Trial], float]:
    def objective(trial: optuna.Trial) -> float:
        return float(problem.value(problem.suggest(trial)))

    return objective


def _noiseless(trial: optuna.trial.FrozenTrial) -> float:
    value = trial.user_attrs.get(NOISELESS_ATTR, trial.value)
    assert value is not None
    return float(value)


def _combination(params: Mapping[str, Any], keys: Sequence[str]) -> tuple[tuple[str, Any], ...]:
    return tuple((k, params[k]) for k in keys if k in params)


Bounds = Sequence[tuple[float, float]]


def _polish(f: Callable[..., Any], starts: Iterable[Sequence[float]], bounds: Bounds, method: str = "L-BFGS-B") -> float:
    """The least of f over local searches from ``starts`` within ``bounds``."""
    if method == "L-BFGS-B":
        options: dict[str, float] = {"ftol": 1e-15, "gtol": 1e-12, "maxiter": 5000}
    else:
        options = {"xatol": 1e-10, "fatol": 1e-13, "maxiter": 20000}
    best = math.inf
    for start in starts:
        result = minimize(lambda z: float(f(*z)), list(start), method=method, bounds=bounds, options=options)
        best = min(best, float(result.fun))
    return best


def _grid_then_polish(f: Callable[..., Any], bounds: Bounds, n_grid: int, n_starts: int = 6, method: str = "L-BFGS-B") -> float:
    """Minimum of the vectorised f(*coordinates) over a box: a dense grid, then local searches from its best points."""
    grids = np.meshgrid(*(np.linspace(low, high, n_grid) for low, high in bounds), indexing="ij")
    values = f(*grids)
    starts = [[g.flat[i] for g in grids] for i in np.argsort(values, axis=None)[:n_starts]]
    return min(float(values.min()), _polish(f, starts, bounds, method))


# ------------------------------------------------------------------ the set and its rule


def test_set_has_the_roles_of_the_rule() -> None:
    assert len(NAMES) >= 8 and len(set(NAMES)) == len(NAMES)
    assert not set(NAMES) & LAB_PROBLEMS
    assert len(aho.MULTIMODAL) >= 3 and set(aho.MULTIMODAL) <= set(NAMES)
    problems = aho.PROBLEMS_BY_NAME
    # An int decides a branch; one hierarchical (nested) conditional space; one noisy problem.
    assert problems["bit_branches"].conditional and problems["beam_hierarchy"].conditional
    assert sum(p.noise_sd is not None for p in aho.ADAPT_HELD_OUT_PROBLEMS) >= 1
    kinds = {}
    for problem in aho.ADAPT_HELD_OUT_PROBLEMS:
        study = optuna.create_study(sampler=optuna.samplers.RandomSampler(seed=1))
        study.optimize(_noiseless_objective(problem), n_trials=40)
        kinds[problem.name] = {type(d).__name__ for t in study.trials for d in t.distributions.values()}
    assert kinds["compact_foxholes"] == {"FloatDistribution", "IntDistribution"}  # numeric: floats and ints
    assert kinds["tile_autotune"] == {"IntDistribution"}
    assert math.prod(b - a + 1 for a, b in (structures.TA_TILE, structures.TA_UNROLL, structures.TA_VECTOR)) <= 400
    assert "IntDistribution" in kinds["bit_branches"] and "CategoricalDistribution" in kinds["peak_field"]


def test_the_int_decides_the_branch_and_the_beam_space_is_nested() -> None:
    branches: dict[str, set[frozenset[str]]] = {}
    study = optuna.create_study(sampler=optuna.samplers.RandomSampler(seed=2))
    study.optimize(_noiseless_objective(aho.PROBLEMS_BY_NAME["bit_branches"]), n_trials=60)
    for trial in study.trials:
        assert isinstance(trial.distributions["bits"], optuna.distributions.IntDistribution)
        branches.setdefault(landscapes.BB_BRANCH_OF_BITS[trial.params["bits"]], set()).add(frozenset(trial.params))
    assert branches == {"binary": {frozenset({"bits", "codebook", "scale"})}, "uniform": {frozenset({"bits", "lr", "clip"})},
                        "float": {frozenset({"bits", "lr", "warmup"})}}
    study = optuna.create_study(sampler=optuna.samplers.RandomSampler(seed=3))
    study.optimize(_noiseless_objective(aho.PROBLEMS_BY_NAME["beam_hierarchy"]), n_trials=80)
    for trial in study.trials:  # two nested levels: layup under cfrp, process under tube
        assert ("layup" in trial.params) == (trial.params["material"] == "cfrp")
        assert ("process" in trial.params) == (trial.params["section"] == "tube")
    assert len(aho.PROBLEMS_BY_NAME["beam_hierarchy"].combinations()) == 24


def test_base_functions_are_new_and_right() -> None:
    names = {"gallagher", "michalewicz", "wendland", "drop_wave", "zakharov", "bohachevsky"}
    assert not names & LAB_BASES
    assert landscapes.drop_wave(0.0, 0.0) == 0.0 and landscapes.zakharov(0.0, 0.0) == 0.0
    assert structures.bohachevsky(0.0, 0.0) == pytest.approx(0.0, abs=1e-15)
    assert float(landscapes.wendland(0.0)) == 1.0
    assert float(landscapes.wendland(1.0)) == 0.0 and float(landscapes.wendland(2.0)) == 0.0
    # Michalewicz in two dimensions (m = 10, i = 1, 2): -1.8013 at (2.20, 1.57) (Surjanovic & Bingham).
    (x1, m1), (x2, m2) = landscapes.michalewicz_term_max(1.0, 10), landscapes.michalewicz_term_max(2.0, 10)
    assert -(m1 + m2) == pytest.approx(-1.8013, abs=1e-4) and (x1, x2) == pytest.approx((2.20, 1.57), abs=0.01)


# ------------------------------------------------------------------ every problem


@pytest.mark.parametrize("name", NAMES)
def test_random_trials_stay_at_or_above_the_stated_bests(name: str) -> None:
    problem = aho.PROBLEMS_BY_NAME[name]
    bests = {_combination(c, problem.combination_keys): problem.combination_best(c) for c in problem.combinations()}
    study = optuna.create_study(sampler=optuna.samplers.RandomSampler(seed=0))
    study.optimize(aho.make_objective(problem), n_trials=N_RANDOM_TRIALS)
    noiseless = [_noiseless(t) for t in study.trials]
    assert all(math.isfinite(v) for v in noiseless)
    for trial, value in zip(study.trials, noiseless):
        combination = _combination(trial.params, problem.combination_keys)
        assert combination in bests
        assert value >= bests[combination] - 1e-9
        assert value == pytest.approx(float(problem.value(trial.params)), abs=1e-12)
    assert min(noiseless) >= min(bests.values()) - 1e-9
    assert len({_combination(t.params, problem.combination_keys) for t in study.trials}) >= min(4, len(bests))
    if problem.noise_sd is None:  # deterministic: the same point gives the same value
        assert _observed(problem, study.trials[0].params, 7)[0] == study.trials[0].value


@pytest.mark.parametrize("name", NAMES)
def test_best_point_gives_the_optimum_and_the_best_combination_is_unique(name: str) -> None:
    problem = aho.PROBLEMS_BY_NAME[name]
    values = sorted(problem.combination_best(c) for c in problem.combinations())
    point = problem.best_point()
    assert _observed(problem, point)[1] == pytest.approx(values[0], abs=1e-9)
    assert values[1] - values[0] > 0.005
    study = optuna.create_study(sampler=optuna.samplers.RandomSampler(seed=0))
    study.enqueue_trial(point)
    study.optimize(_noiseless_objective(problem), n_trials=1)
    assert study.trials[0].params == point  # the point is inside the search space
    for key, value in point.items():
        if isinstance(value, float):
            distribution = study.trials[0].distributions[key]
            assert isinstance(distribution, optuna.distributions.FloatDistribution)
            for step in (-1e-3, 1e-3):
                moved = float(np.clip(value * (1 + step), distribution.low, distribution.high))
                assert _observed(problem, dict(point, **{key: moved}))[1] >= values[0] - 1e-12


# ------------------------------------------------------------------ optima by independent searches


def test_peak_field_every_combination_by_grid_and_lbfgsb() -> None:
    problem = aho.PROBLEMS_BY_NAME["peak_field"]
    for c in problem.combinations():
        found = _grid_then_polish(
            lambda *x, c=c: problem.value({**c, **dict(zip(landscapes.PF_FLOATS, x))}), [(0.0, 1.0)] * 4, 13, 4
        )
        assert found >= problem.combination_best(c) - 1e-9, c
        assert found == pytest.approx(problem.combination_best(c), abs=2e-6), c


def test_michalewicz_gates_is_separable_and_its_terms_reach_the_stated_maxima() -> None:
    problem = aho.PROBLEMS_BY_NAME["michalewicz_gates"]
    rng = np.random.default_rng(9)
    for c in problem.combinations():
        a, b = rng.uniform(0.0, math.pi, (2, 4))
        for k in range(4):  # f(a) + f(b) = f(a with b's k-th) + f(b with a's k-th) for a sum of one-coordinate terms
            swapped_a, swapped_b = a.copy(), b.copy()
            swapped_a[k], swapped_b[k] = b[k], a[k]
            values = [float(problem.value({**c, **dict(zip(landscapes.MG_FLOATS, x))})) for x in (a, b, swapped_a, swapped_b)]
            assert values[0] + values[1] == pytest.approx(values[2] + values[3], abs=1e-12)
    grid = np.linspace(0.0, math.pi, 1_000_001)
    for frequency, m in itertools.product(landscapes.MG_FREQUENCIES, landscapes.MG_STEEPNESS):
        term = landscapes.michalewicz_term(grid, frequency, m)
        start = grid[np.argmax(term)]
        polished = minimize(lambda v, f=frequency, m=m: -float(landscapes.michalewicz_term(v[0], f, m)), [start],
                            method="L-BFGS-B",
                            bounds=[(start - 1e-5, start + 1e-5)], options={"ftol": 1e-15, "gtol": 1e-12})
        stated = landscapes.michalewicz_term_max(frequency, m)[1]
        assert max(float(term.max()), -float(polished.fun)) == pytest.approx(stated, abs=1e-12)
        assert float(term.max()) <= stated + 1e-12
    for c in problem.combinations():  # every float at its term's argmax gives the stated best
        order = landscapes.michalewicz_gates_tables()["order"][c["order"]]
        m = landscapes.MG_STEEPNESS[c["steep"]]
        x = {n: landscapes.michalewicz_term_max(float(f), m)[0] for n, f in zip(landscapes.MG_FLOATS, order)}
        assert float(problem.value({**c, **x})) == pytest.approx(problem.combination_best(c), abs=1e-12)


def test_compact_foxholes_every_level_by_enumerating_k_and_a_grid_on_the_floats() -> None:
    problem, t = aho.PROBLEMS_BY_NAME["compact_foxholes"], landscapes.compact_foxholes_tables()
    # The construction: the decoys' supports are disjoint from each other and from the widest best hole's.
    for i, j in itertools.combinations(range(landscapes.FH_N_DECOYS), 2):
        assert np.linalg.norm(t["centre"][i] - t["centre"][j]) > t["radius"][i] + t["radius"][j]
    assert np.all(np.linalg.norm(t["centre"] - t["best"], axis=1) > t["radius"] + max(landscapes.FH_LEVEL_RADIUS))
    assert t["depth"].max() < min(landscapes.FH_LEVEL_DEPTH)
    g = np.linspace(0.0, 1.0, 31)
    x1, x2, x3, k = np.meshgrid(g, g, g, np.arange(landscapes.FH_K_MAX + 1), indexing="ij")
    for c in problem.combinations():
        values = problem.value({**c, "x1": x1, "x2": x2, "x3": x3, "k": k})
        found = float(values.min())
        for index in np.argsort(values, axis=None)[:4]:
            kk = int(k.flat[index])
            found = min(found, _polish(lambda *x, kk=kk, c=c: problem.value({**c, "k": kk, **dict(zip(landscapes.FH_FLOATS, x))}),
                                       [[x1.flat[index], x2.flat[index], x3.flat[index]]], [(0.0, 1.0)] * 3))
        assert found >= problem.combination_best(c) - 1e-9
        assert found == pytest.approx(problem.combination_best(c), abs=1e-7)


def test_bit_branches_every_leaf_by_grids_and_enumeration() -> None:
    problem = aho.PROBLEMS_BY_NAME["bit_branches"]
    log_lr, log_scale = tuple(np.log10(landscapes.BB_LR_BOUNDS)), tuple(np.log10(landscapes.BB_SCALE_BOUNDS))
    warmups = range(landscapes.BB_WARMUP_BOUNDS[0], landscapes.BB_WARMUP_BOUNDS[1] + 1)
    for c in problem.combinations():
        branch = landscapes.BB_BRANCH_OF_BITS[c["bits"]]
        if branch == "binary":
            found = _grid_then_polish(lambda s, c=c: problem.value({**c, "scale": 10.0**s}), [log_scale], 4001)
        elif branch == "uniform":
            found = _grid_then_polish(lambda a, u, c=c: problem.value({**c, "clip": a, "lr": 10.0**u}), [(0.0, 1.0), log_lr], 801)
        else:
            found = min(_grid_then_polish(lambda u, w=w, c=c: problem.value({**c, "lr": 10.0**u, "warmup": w}), [log_lr], 4001)
                        for w in warmups)
        assert found >= problem.combination_best(c) - 1e-9, c
        assert found == pytest.approx(problem.combination_best(c), abs=1e-8), c


def test_beam_hierarchy_every_leaf_by_grid_and_nelder_mead() -> None:
    problem = aho.PROBLEMS_BY_NAME["beam_hierarchy"]
    names = {"round": ("diameter",), "tube": ("outer_diameter", "wall"), "rect": ("width", "height")}
    for c in problem.combinations():
        keys = names[c["section"]]
        bounds = [structures.BH_MM[k] for k in keys]
        found = _grid_then_polish(lambda *x, c=c, keys=keys: problem.value({**c, **dict(zip(keys, x))}), bounds,
                                  4001 if len(keys) == 1 else 401, 6, "Nelder-Mead")
        stated = problem.combination_best(c)
        assert found >= stated - 1e-9, c
        assert found == pytest.approx(stated, rel=1e-6), c
        # The stated point meets every requirement (to round-off): the penalty is not what makes it best.
        point = {**c, **structures.beam_best_dimensions(c)}
        assert float(problem.value(point)) == pytest.approx(float(structures.beam_cost(point)), abs=1e-9)


def test_tile_autotune_by_full_enumeration_through_the_objective() -> None:
    problem = aho.PROBLEMS_BY_NAME["tile_autotune"]
    ranges = [range(low, high + 1) for low, high in (structures.TA_TILE, structures.TA_UNROLL, structures.TA_VECTOR)]
    names = ("tile", "unroll", "vector")
    values = {point: _observed(problem, dict(zip(names, point)))[0] for point in itertools.product(*ranges)}
    assert len(values) == 384
    for c in problem.combinations():
        assert min(v for p, v in values.items() if p[2] == c["vector"]) == pytest.approx(problem.combination_best(c), abs=1e-12)
    best = min(values, key=lambda p: values[p])
    assert dict(zip(names, best)) == problem.best_point()
    # Jagged: several strict local minima over the 26 neighbours, and the best point not at a bound of tile or unroll.
    steps = [d for d in itertools.product((-1, 0, 1), repeat=3) if any(d)]
    local = [p for p, v in values.items() if all(values.get(tuple(np.add(p, d)), math.inf) > v for d in steps)]
    assert len(local) >= 5
    assert structures.TA_TILE[0] < best[0] < structures.TA_TILE[1] and structures.TA_UNROLL[0] < best[1] < structures.TA_UNROLL[1]


def test_noisy_batch_every_combination_by_enumeration_and_grid() -> None:
    problem = aho.PROBLEMS_BY_NAME["noisy_batch"]
    batches = np.arange(structures.NB_BATCH[0], structures.NB_BATCH[1] + 1)
    for c in problem.combinations():
        start = {**c, "batch": 64, "lr": 0.01, "warmup": 0.15}
        # The value is a batch term plus an (lr, warmup) term: each searched over its whole range.
        bounds = [tuple(np.log10(structures.NB_LR)), structures.NB_WARMUP]
        numeric = _grid_then_polish(lambda u, w, s=start: problem.value({**s, "lr": 10.0**u, "warmup": w}), bounds, 801)
        batch = float(np.min(problem.value({**start, "batch": batches}))) - float(problem.value(start))
        found = numeric + batch
        assert found >= problem.combination_best(c) - 1e-9
        assert found == pytest.approx(problem.combination_best(c), abs=1e-8)


def _pick(params: Mapping[str, Any], like: Iterable[str]) -> dict[str, Any]:
    return {k: params[k] for k in like}


def test_plateau_steps_every_combination_by_enumeration_and_grids() -> None:
    problem = aho.PROBLEMS_BY_NAME["plateau_steps"]
    axes = (np.arange(1, 31), np.arange(1, 257), np.linspace(0.1, 1.0, 19), 10.0 ** np.linspace(-6.0, -1.0, 26))
    grid = dict(zip(("max_depth", "min_samples_leaf", "max_features", "ccp_alpha"), np.meshgrid(*axes, indexing="ij")))
    for c in problem.combinations():
        values = problem.value({**c, **grid})
        assert float(values.min()) == pytest.approx(problem.combination_best(c), abs=1e-12)
        counts = values * structures.PS_N_VALIDATION
        assert np.all(np.isclose(counts, np.round(counts)))  # whole counts


# ------------------------------------------------------------------ what makes them hard


def test_peak_field_best_combination_is_multimodal_with_a_small_basin() -> None:
    problem = aho.PROBLEMS_BY_NAME["peak_field"]
    c = _pick(problem.best_point(), problem.combination_keys)
    rng = np.random.default_rng(4)

    def f(*x: Any) -> Any:
        return problem.value({**c, **dict(zip(landscapes.PF_FLOATS, x))})

    minima = set()
    for start in rng.uniform(0.0, 1.0, (40, 4)):
        result = minimize(lambda z: float(f(*z)), start, method="L-BFGS-B", bounds=[(0.0, 1.0)] * 4)
        minima.add(round(float(result.fun), 4))
    assert len(minima) >= 4
    # The tallest peak's basin: where its term is the largest of the seven, 2-15 % of the box.
    t = landscapes.peak_field_tables()
    x = rng.uniform(0.0, 1.0, (200_000, 4))
    tallest = t["tallest"][c["layout"], c["focus"]]
    u = (x - t["position"][c["layout"], tallest]) @ t["rotation"][c["layout"], tallest]
    on_top = 1.0 - np.exp(-0.5 * np.sum((u / landscapes.PF_GLOBAL_SD) ** 2, axis=-1)) + problem.combination_best(c)
    share = float(np.mean(np.isclose(f(*x.T), on_top)))
    assert 0.02 <= share <= 0.15


def test_michalewicz_gates_sharpest_level_is_best_but_worst_on_average() -> None:
    problem = aho.PROBLEMS_BY_NAME["michalewicz_gates"]
    best = problem.best_point()
    assert landscapes.MG_STEEPNESS[best["steep"]] == max(landscapes.MG_STEEPNESS)
    x = np.random.default_rng(5).uniform(0.0, math.pi, (4, 20_000))
    floats = dict(zip(landscapes.MG_FLOATS, x))
    means = [float(np.mean(problem.value({"order": best["order"], "steep": s, **floats}))) for s in range(3)]
    assert means[best["steep"]] == max(means)
    # 2 x 3 x 5 x 7 local minima: each term's strict local maxima on a fine grid, for every steepness.
    grid = np.linspace(0.0, math.pi, 1_000_001)
    for m in landscapes.MG_STEEPNESS:
        counts = []
        for frequency in landscapes.MG_FREQUENCIES:
            term = landscapes.michalewicz_term(grid, frequency, m)
            counts.append(int(np.sum((term[1:-1] > term[:-2]) & (term[1:-1] > term[2:]))))
        assert counts == list(landscapes.MG_FREQUENCIES)


def test_compact_foxholes_best_hole_is_small_and_the_floor_pulls_elsewhere() -> None:
    t = landscapes.compact_foxholes_tables()
    z = np.random.default_rng(6).uniform(0.0, 1.0, (200_000, 4))
    level = aho.PROBLEMS_BY_NAME["compact_foxholes"].best_point()["level"]
    assert float(np.mean(np.linalg.norm(z - t["best"], axis=1) < landscapes.FH_LEVEL_RADIUS[level - 1])) < 0.05
    to_pull = np.sum((z - t["pull"]) ** 2, axis=1) + landscapes.FH_BOWL_FLOOR < np.sum((z - t["best"]) ** 2, axis=1)
    assert float(np.mean(to_pull)) > 0.25  # the floor descends towards a decoy over about a third of the box


def test_bit_branches_best_branch_has_rings_of_local_minima() -> None:
    problem = aho.PROBLEMS_BY_NAME["bit_branches"]
    point = problem.best_point()
    clip = point["clip"] + np.linspace(0.0, 1.0 - point["clip"], 20_001)
    profile = problem.value({**point, "clip": clip})
    rings = np.flatnonzero((profile[1:-1] < profile[:-2]) & (profile[1:-1] < profile[2:]))
    assert len(rings) >= 3 and profile[rings[0] + 1] - profile[0] > 0.02


def test_noisy_batch_noise_grows_as_the_batch_shrinks_and_has_heavy_tails() -> None:
    problem = aho.PROBLEMS_BY_NAME["noisy_batch"]
    point = problem.best_point()
    # The median absolute deviation of Student-t noise scaled to unit standard deviation.
    scale_mad = float(student_t.ppf(0.75, structures.NB_T_DOF)) / math.sqrt(structures.NB_T_DOF / (structures.NB_T_DOF - 2))
    for batch in (8, 64, 512):
        deviations = np.array([np.subtract(*_observed(problem, dict(point, batch=batch), n)) for n in range(3000)])
        sd = structures.NB_NOISE_SD_AT_64 * math.sqrt(64 / batch)
        assert float(np.median(np.abs(deviations))) == pytest.approx(sd * scale_mad, rel=0.1)
        assert float(np.mean(np.abs(deviations) > 3 * sd)) > 0.01  # a Gaussian's share: 0.0027
    assert problem.max_noise_sd == pytest.approx(structures.NB_NOISE_SD_AT_64 * math.sqrt(8.0))


def test_plateau_steps_plateau_covers_most_of_the_space() -> None:
    rng = np.random.default_rng(7)
    n = 200_000
    params = {"criterion": "gini", "splitter": "best", "max_depth": rng.integers(1, 31, n),
              "min_samples_leaf": np.round(np.exp(rng.uniform(math.log(0.5), math.log(256.5), n))).clip(1, 256),
              "max_features": rng.uniform(0.1, 1.0, n), "ccp_alpha": 10.0 ** rng.uniform(-6.0, -1.0, n)}
    values = aho.PROBLEMS_BY_NAME["plateau_steps"].value(params)
    assert 0.7 <= float(np.mean(values == structures.PS_PLATEAU_COUNT / structures.PS_N_VALIDATION)) <= 0.9


# ------------------------------------------------------------------ in the lab's registry


def test_the_registry_holds_the_set_with_its_specs_and_group() -> None:
    assert registry.GROUPS["adapt_held_out"] == tuple(NAMES)
    for problem in aho.ADAPT_HELD_OUT_PROBLEMS:
        spec, built = registry.SPECS[problem.name], registry.get_problem(problem.name)
        optimum = min(problem.combination_best(c) for c in problem.combinations())
        assert spec.optimum() == optimum and built.optimum == optimum
        assert built.n_combinations == len(problem.combinations()) and built.directions == ("minimize",)
        assert built.description.startswith(f"[adapt held-out/{problem.family}] ")
        assert spec.combination_keys == problem.combination_keys and spec.noise_sd == problem.max_noise_sd
        assert spec.best_point is not None and spec.best_point() == problem.best_point()


@pytest.mark.parametrize("name", NAMES)
def test_the_registered_objective_is_the_set_s_objective(name: str) -> None:
    """The same observed value and noiseless attribute at the same points and trial numbers
    (noisy_batch's Student-t noise included)."""
    problem, built = aho.PROBLEMS_BY_NAME[name], registry.get_problem(name)
    study = optuna.create_study(sampler=optuna.samplers.RandomSampler(seed=11))
    study.optimize(built.objective, n_trials=20)
    for trial in study.trials:
        assert (trial.value, _noiseless(trial)) == _observed(problem, trial.params, trial.number)
