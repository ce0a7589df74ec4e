"""Tests of the held-out problem sets (vpbo_benchmarks/held_out_sets.py; docs/suite.md "The fresh
held-out set", "The adapt held-out set", "The final held-out set"): each set's rule (its roles,
that its problems and base functions are new), every problem's random trials and best point, and
the sets' place in the lab's registry. The problems' stated optima against independent searches,
and what makes each hard: the tests named by what the problems are (test_shifted_landscapes.py,
test_multimodal_landscapes.py, test_rugged_landscapes.py, test_branching_problems.py,
test_hierarchical_designs.py, test_integer_lattices.py, test_noisy_problems.py,
test_plateau_problems.py).

Only random trials and direct evaluations here: no sampler study runs on these problems before
the defaults they hold out are frozen (a study that only evaluates an enqueued point runs under
RandomSampler too).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import optuna
import pytest

import vpbo_benchmarks
from lab_testing import (
    noiseless_objective,
    noiseless_value,
    objective_value,
    observed,
    present,
    random_study,
)
from vpbo_benchmarks import branching_problems as branching
from vpbo_benchmarks import (
    chemistry_problems,
    held_out_sets,
    ml_problems,
    numeric_problems,
    registry,
    specs,
    suite,
    suite_functions,
    synthetic_problems,
    trial_states,
)
from vpbo_benchmarks import hierarchical_designs as designs
from vpbo_benchmarks import integer_lattices as lattices
from vpbo_benchmarks import multimodal_landscapes as multimodal
from vpbo_benchmarks import noisy_problems as noisy
from vpbo_benchmarks import plateau_problems as plateaus
from vpbo_benchmarks import rugged_landscapes as rugged
from vpbo_benchmarks import shifted_landscapes as shifted
from vpbo_benchmarks.cli import main as cli_main
from vpbo_benchmarks.records import append_record
from vpbo_benchmarks.runner import run_one
from vpbo_benchmarks.specs import StatedProblem, combination_of, stated_objective

optuna.logging.set_verbosity(optuna.logging.ERROR)

ADAPT_PROBLEMS = [held_out_sets.PROBLEMS_BY_NAME[n] for n in held_out_sets.ADAPT_HELD_OUT.problems]
FINAL_PROBLEMS = [held_out_sets.PROBLEMS_BY_NAME[n] for n in held_out_sets.FINAL_HELD_OUT.problems]


# ------------------------------------------------------------------ the fresh held-out set


FRESH = list(held_out_sets.FRESH_HELD_OUT.problems)


SYNTHETIC_FAMILIES = {s.family for s in suite.SUITE_SPECS.values() if s.family != "real"}


N_RANDOM_TRIALS = 120


def test_group_is_fresh_disjoint_and_covers_the_synthetic_families() -> None:
    assert len(FRESH) >= 6
    assert not set(FRESH) & set(suite.TUNING)
    assert not set(FRESH) & set(suite.HELD_OUT)
    assert not set(FRESH) & set(suite.SUITE_SPECS)
    assert registry.GROUPS["fresh_held_out"] == held_out_sets.FRESH_HELD_OUT.problems
    # The broad suite's split is unchanged by the addition.
    assert suite.HALVES["all"] == suite.TUNING + suite.HELD_OUT
    assert sorted(suite.TUNING + suite.HELD_OUT) == sorted(suite.SUITE_SPECS)
    families = {held_out_sets.SPECS[n].family for n in FRESH}
    assert families == SYNTHETIC_FAMILIES
    assert sum(held_out_sets.SPECS[n].conditional for n in FRESH) >= 2
    assert any(held_out_sets.SPECS[n].noise_sd > 0 for n in FRESH)
    assert len(held_out_sets.FRESH_NARROW_OR_TRAP) >= 2 and set(held_out_sets.FRESH_NARROW_OR_TRAP) <= set(FRESH)


def test_fresh_group_is_registered_and_builds() -> None:
    for name in FRESH:
        assert name in registry.PROBLEM_NAMES
        problem = registry.get_problem(name)
        assert problem.name == name and problem.directions == ("minimize",)
        assert problem.optimum is not None and math.isfinite(problem.optimum)
        assert problem.n_combinations == len(present(held_out_sets.SPECS[name].combinations)())
        assert "[fresh held-out/" in problem.description


def test_fresh_new_base_functions_are_not_the_suites() -> None:
    # Griewank, Rosenbrock, Himmelblau and Branin: none is among the broad suite's bases.
    assert not {"griewank", "rosenbrock", "himmelblau", "branin"} & set(suite_functions.BASE_FUNCTIONS)
    assert shifted.griewank_2d(0.0, 0.0) == 0.0
    assert shifted.himmelblau(3.0, 2.0) == 0.0
    # Branin's three minima (Surjanovic & Bingham): 0.397887 at (-pi, 12.275), (pi, 2.275), (9.42478, 2.475).
    for x in ((-math.pi, 12.275), (math.pi, 2.275), (9.42478, 2.475)):
        assert noisy.branin(*x) == pytest.approx(0.397887, abs=1e-6)
    assert noisy.BRANIN_MINIMUM == pytest.approx(0.397887, abs=1e-6)


@pytest.mark.parametrize("name", FRESH)
def test_fresh_problem_runs_with_random_trials(name: str) -> None:
    spec = held_out_sets.SPECS[name]
    problem = held_out_sets.build_problem(name)
    study = optuna.create_study(sampler=optuna.samplers.RandomSampler(seed=0))
    study.optimize(problem.objective, n_trials=N_RANDOM_TRIALS)
    combination_best = present(spec.combination_best)
    bests = {specs.combination_of(c, spec.combination_keys): combination_best(c) for c in present(spec.combinations)()}
    noiseless = [noiseless_value(t) for t in study.trials]
    assert all(math.isfinite(v) for v in noiseless)
    for trial, value in zip(study.trials, noiseless):
        combination = specs.combination_of(trial.params, spec.combination_keys)
        assert combination in bests  # every trial's combination is a listed one
        assert value >= bests[combination] - 1e-9
        assert value == pytest.approx(float(held_out_sets.PROBLEMS_BY_NAME[name].value(trial.params)), abs=1e-12)
    assert min(noiseless) > present(problem.optimum) + 1e-6
    assert len({c for c in (specs.combination_of(t.params, spec.combination_keys) for t in study.trials)}) >= min(4, len(bests))


@pytest.mark.parametrize("name", FRESH)
def test_fresh_best_point_gives_the_optimum_and_the_best_combination_is_unique(name: str) -> None:
    spec = held_out_sets.SPECS[name]
    optimum = present(held_out_sets.build_problem(name).optimum)
    best_point, combination_best = present(spec.best_point), present(spec.combination_best)
    assert objective_value(name, best_point()) == pytest.approx(optimum, abs=1e-9)
    values = sorted(combination_best(c) for c in present(spec.combinations)())
    assert values[0] == optimum
    assert values[1] - values[0] > 0.005  # a unique best combination, by a margin
    for key, value in best_point().items():
        if isinstance(value, float):
            for step in (-1e-3, 1e-3):
                assert objective_value(name, dict(best_point(), **{key: value * (1 + step)})) >= optimum - 1e-12


def test_fresh_runner_and_suite_report_accept_the_group(tmp_path: Path) -> None:
    noisy = run_one("hetero_branin", "random", 0, 5)
    assert len(noisy["noiseless"]) == 5 and noisy["noiseless"] != [v[0] for v in noisy["values"]]
    append_record(tmp_path, noisy)
    append_record(tmp_path, run_one("stacked_stages", "random", 0, 5))
    report = tmp_path / "fresh.md"
    cli_main(["report", "--sections", "suite", "--half", "fresh_held_out", "--samplers", "random", "--out", str(tmp_path),
              "--report", str(report), "--checkpoints", "5"])
    text = report.read_text()
    for name in FRESH:
        assert name in text
    assert f"{held_out_sets.build_problem('stacked_stages').optimum:.10g}" in text


# ------------------------------------------------------------------ the adapt held-out set


ADAPT_NAMES = [p.name for p in ADAPT_PROBLEMS]


# Every problem name and base function of the lab when the set was written (the paper's problems,
# the broad suite, the fresh held-out set): the set must not reuse one.
LAB_PROBLEMS = {
    "func2c", "func3c", "ackley5c", "ackley53", "reizman_suzuki_1", "reizman_suzuki_2", "reizman_suzuki_3",
    "reizman_suzuki_4", "reizman_suzuki_1_mo", "baumgartner", "baumgartner_mo", "svm_boston", "xg_mnist", "nas_like",
    "constrained", "conditional_trap", "automl", "shifted_ackley", "shifted_rastrigin", "shifted_levy", "signed_schwefel",
    "many_levels_styblinski", "many_cats_levy", "int_log_styblinski", "mixed_int_ackley", "branch_choice", "shared_branches",
    "mlp_synthetic", "conv_blocks", "noisy_styblinski", "noisy_mlp", "hgb_breast_cancer", "svr_diabetes", "rotated_griewank",
    "decoy_funnel", "lowrank_valley", "hidden_pair", "tilted_lattice", "hash_resonance", "stacked_stages", "hetero_branin",
}


ADAPT_LAB_BASES = {
    "ackley", "rastrigin", "levy", "schwefel", "styblinski_tang", "rosenbrock", "six_hump_camel", "beale", "griewank",
    "himmelblau", "branin", "hartmann",
}


def test_adapt_set_has_the_roles_of_the_rule() -> None:
    assert len(ADAPT_NAMES) >= 8 and len(set(ADAPT_NAMES)) == len(ADAPT_NAMES)
    assert not set(ADAPT_NAMES) & LAB_PROBLEMS
    assert len(held_out_sets.ADAPT_MULTIMODAL) >= 3 and set(held_out_sets.ADAPT_MULTIMODAL) <= set(ADAPT_NAMES)
    problems = held_out_sets.PROBLEMS_BY_NAME
    # An int decides a branch; one hierarchical (nested) conditional space; one noisy problem.
    assert problems["bit_branches"].conditional and problems["beam_hierarchy"].conditional
    assert sum(p.noise_sd is not None for p in ADAPT_PROBLEMS) >= 1
    kinds = {}
    for problem in ADAPT_PROBLEMS:
        study = optuna.create_study(sampler=optuna.samplers.RandomSampler(seed=1))
        study.optimize(noiseless_objective(problem), n_trials=40)
        kinds[problem.name] = {type(d).__name__ for t in study.trials for d in t.distributions.values()}
    assert kinds["compact_foxholes"] == {"FloatDistribution", "IntDistribution"}  # numeric: floats and ints
    assert kinds["tile_autotune"] == {"IntDistribution"}
    assert math.prod(b - a + 1 for a, b in (lattices.TA_TILE, lattices.TA_UNROLL, lattices.TA_VECTOR)) <= 400
    assert "IntDistribution" in kinds["bit_branches"] and "CategoricalDistribution" in kinds["peak_field"]


def test_adapt_the_int_decides_the_branch_and_the_beam_space_is_nested() -> None:
    branches: dict[str, set[frozenset[str]]] = {}
    study = optuna.create_study(sampler=optuna.samplers.RandomSampler(seed=2))
    study.optimize(noiseless_objective(held_out_sets.PROBLEMS_BY_NAME["bit_branches"]), n_trials=60)
    for trial in study.trials:
        assert isinstance(trial.distributions["bits"], optuna.distributions.IntDistribution)
        branches.setdefault(branching.BB_BRANCH_OF_BITS[trial.params["bits"]], set()).add(frozenset(trial.params))
    assert branches == {"binary": {frozenset({"bits", "codebook", "scale"})}, "uniform": {frozenset({"bits", "lr", "clip"})},
                        "float": {frozenset({"bits", "lr", "warmup"})}}
    study = optuna.create_study(sampler=optuna.samplers.RandomSampler(seed=3))
    study.optimize(noiseless_objective(held_out_sets.PROBLEMS_BY_NAME["beam_hierarchy"]), n_trials=80)
    for trial in study.trials:  # two nested levels: layup under cfrp, process under tube
        assert ("layup" in trial.params) == (trial.params["material"] == "cfrp")
        assert ("process" in trial.params) == (trial.params["section"] == "tube")
    assert len(held_out_sets.PROBLEMS_BY_NAME["beam_hierarchy"].combinations()) == 24


def test_adapt_base_functions_are_new_and_right() -> None:
    names = {"gallagher", "michalewicz", "wendland", "drop_wave", "zakharov", "bohachevsky",
}
    assert not names & ADAPT_LAB_BASES
    assert branching.drop_wave(0.0, 0.0) == 0.0 and branching.zakharov(0.0, 0.0) == 0.0
    assert noisy.bohachevsky(0.0, 0.0) == pytest.approx(0.0, abs=1e-15)
    assert float(multimodal.wendland(0.0)) == 1.0
    assert float(multimodal.wendland(1.0)) == 0.0 and float(multimodal.wendland(2.0)) == 0.0
    # Michalewicz in two dimensions (m = 10, i = 1, 2): -1.8013 at (2.20, 1.57) (Surjanovic & Bingham).
    (x1, m1), (x2, m2) = multimodal.michalewicz_term_max(1.0, 10), multimodal.michalewicz_term_max(2.0, 10)
    assert -(m1 + m2) == pytest.approx(-1.8013, abs=1e-4) and (x1, x2) == pytest.approx((2.20, 1.57), abs=0.01)


@pytest.mark.parametrize("name", ADAPT_NAMES)
def test_adapt_the_registered_objective_is_the_set_s_objective(name: str) -> None:
    """The same observed value and noiseless attribute at the same points and trial numbers
    (noisy_batch's Student-t noise included)."""
    problem, built = held_out_sets.PROBLEMS_BY_NAME[name], registry.get_problem(name)
    study = optuna.create_study(sampler=optuna.samplers.RandomSampler(seed=11))
    study.optimize(built.objective, n_trials=20)
    for trial in study.trials:
        assert (trial.value, noiseless_value(trial)) == observed(problem, trial.params, trial.number)


# ------------------------------------------------------------------ the final held-out set


FINAL_NAMES = [p.name for p in FINAL_PROBLEMS]
POLICY_NAMES = list(held_out_sets.POLICY_HELD_OUT.problems)


# The base functions the lab used before this set (docs/suite.md: the suite, the fresh and the
# adapt held-out sets, the paper's problems, the numeric group), and this set's.
FINAL_LAB_BASES = {
    "ackley", "rastrigin", "levy", "schwefel", "styblinski_tang", "rosenbrock", "six_hump_camel", "beale", "griewank",
    "himmelblau", "branin", "hartmann", "gallagher", "michalewicz", "wendland", "drop_wave", "zakharov", "bohachevsky",
}


# name: the word another module's source would hold if it used the base
NEW_BASES = {"shubert": "shubert", "weierstrass": "weierstrass", "qing": "qing", "dixon_price": "dixon",
             "goldstein_price": "goldstein", "pressure_vessel": "sandgren", "salomon": "salomon", "easom": "easom"}


# The modules that define the held-out sets' problems (this set's among them) and what they share.
HELD_OUT_MODULES = {
    f"{name}.py" for name in (
        "held_out_sets", "landscape_parts", "shifted_landscapes", "multimodal_landscapes", "rugged_landscapes",
        "branching_problems", "hierarchical_designs", "integer_lattices", "noisy_problems", "plateau_problems",
    )
}


FAMILY_MODULE_ENDINGS = ("problems", "landscapes", "structures", "functions", "families", "tasks", "models")


def test_final_set_has_the_roles_of_the_rule() -> None:
    assert len(FINAL_NAMES) >= 8 and len(set(FINAL_NAMES)) == len(FINAL_NAMES)
    others = [synthetic_problems.PROBLEMS, chemistry_problems.PROBLEMS, ml_problems.PROBLEMS, suite.PROBLEMS,
              held_out_sets.FRESH_HELD_OUT.problems, held_out_sets.ADAPT_HELD_OUT.problems, numeric_problems.PROBLEMS,
              trial_states.PROBLEMS]
    assert not set(FINAL_NAMES) & {name for family in others for name in family}
    assert len(held_out_sets.FINAL_MULTIMODAL) >= 3 and set(held_out_sets.FINAL_MULTIMODAL) <= set(FINAL_NAMES)
    problems = held_out_sets.PROBLEMS_BY_NAME
    # An int decides a branch; one hierarchical (nested) conditional space; one noisy problem.
    assert problems["parity_branches"].conditional and problems["vessel_hierarchy"].conditional
    assert [p.name for p in FINAL_PROBLEMS if p.noise_sd is not None] == ["skewed_salomon"]
    kinds, logs, steps = {}, set(), set()
    for problem in FINAL_PROBLEMS:
        study = random_study(problem, 60, 1)
        distributions = [d for t in study.trials for d in t.distributions.values()]
        kinds[problem.name] = {type(d).__name__ for d in distributions}
        logs |= {problem.name for d in distributions if isinstance(d, optuna.distributions.FloatDistribution) and d.log}
        steps |= {problem.name for d in distributions if isinstance(d, optuna.distributions.FloatDistribution) and d.step}
    assert kinds["qing_powers"] == {"FloatDistribution", "IntDistribution"}  # numeric: floats and ints
    assert kinds["flag_cliffs"] == {"IntDistribution"}
    assert 200 <= math.prod(b - a + 1 for a, b in (lattices.FC_OPT, lattices.FC_INLINE, lattices.FC_UNROLL,
                                                   lattices.FC_VECTORIZE)) <= 400
    assert "IntDistribution" in kinds["parity_branches"]
    # The multimodal problem with several categoricals and 3-5 floats.
    point = problems["shubert_pairs"].best_point()
    assert sum(isinstance(v, str) for v in point.values()) == 3 and sum(isinstance(v, float) for v in point.values()) == 4
    assert {"CategoricalDistribution", "FloatDistribution"} <= kinds["shubert_pairs"]
    assert len(logs) >= 3 and {"vessel_hierarchy", "capped_easom"} <= steps


def test_final_the_parity_decides_the_branch_and_the_vessel_space_is_nested() -> None:
    study = random_study(held_out_sets.PROBLEMS_BY_NAME["parity_branches"], 80, 2)
    for trial in study.trials:
        order = trial.params["order"]
        assert isinstance(trial.distributions["order"], optuna.distributions.IntDistribution)
        if order % 2:
            assert set(trial.params) == {"order", *branching.PB_VALLEY_FLOATS[:(order + 1) // 2]}
        else:
            assert set(trial.params) == {"order", "scheme", "step", "damping"}
    assert {t.params["order"] for t in study.trials} == set(range(1, 9))
    study = random_study(held_out_sets.PROBLEMS_BY_NAME["vessel_hierarchy"], 80, 3)
    for trial in study.trials:  # cladding under clad; every leaf has the four dimensions
        assert ("cladding" in trial.params) == (trial.params["material"] == "clad")
        assert {"shell_thickness", "head_thickness", "radius", "length"} <= set(trial.params)
    assert len(held_out_sets.PROBLEMS_BY_NAME["vessel_hierarchy"].combinations()) == 12


def test_final_base_functions_are_new_and_right() -> None:
    assert not set(NEW_BASES) & FINAL_LAB_BASES
    # The modules that define the other families' problems (not the reports, which may name this set's).
    folder = Path(vpbo_benchmarks.__file__).parent
    families = [path for path in sorted(folder.glob("*.py")) if path.name not in HELD_OUT_MODULES and (
        path.stem.endswith(FAMILY_MODULE_ENDINGS) or path.stem in {"emulators", "trial_states", "suite"})]
    assert len(families) >= 12
    for path in families:
        text = path.read_text(encoding="utf-8").lower()
        assert not [w for w in NEW_BASES.values() if w in text], path
    # Shubert in two dimensions: -186.7309 (Surjanovic & Bingham), the least factor times the largest.
    low, high = rugged.shubert_range()
    assert low * high == pytest.approx(-186.7309, abs=1e-4) and high**2 > low**2
    assert float(rugged.weierstrass_term(0.0, 0.5)) == pytest.approx(0.0, abs=1e-15)
    assert float(rugged.weierstrass_term(1.0, 0.5)) == pytest.approx(0.0, abs=1e-12)
    assert float(rugged.weierstrass_term(0.5, 0.5)) == pytest.approx(1.0, abs=1e-12)  # every cosine at +1
    assert float(branching.dixon_price(branching.dixon_price_argmin(4)[None])[0]) == pytest.approx(0.0, abs=1e-15)
    assert branching.dixon_price_argmin(2) == pytest.approx([1.0, 2**-0.5])
    assert float(branching.goldstein_price(0.0, -1.0)) == 3.0
    assert float(branching.goldstein_price(-0.6, -0.4)) == pytest.approx(30.0)
    # Sandgren's vessel: the literature's design (0.8125, 0.4375, 42.0984, 176.6366 in) costs
    # $6059.71 in carbon steel with hemispherical heads (here plus the heads' forming cost).
    classic = {"material": "carbon", "head": "hemispherical", "shell_thickness": 0.8125, "head_thickness": 0.4375,
               "radius": 42.0984456, "length": 176.6365958}
    forming = designs.PV_HEADS["hemispherical"][3]
    assert float(designs.vessel_cost(classic)) - forming == pytest.approx(6059.714, abs=1e-2)
    assert float(noisy.salomon(0.0)) == 0.0 and float(noisy.salomon(1.0)) == pytest.approx(0.1)
    assert float(plateaus.easom(np.zeros(3))) == -1.0
    assert float(plateaus.easom(np.array([math.pi, 0.0]))) == pytest.approx(math.exp(-math.pi**2))


@pytest.mark.parametrize("name", ADAPT_NAMES + FINAL_NAMES)
def test_random_trials_stay_at_or_above_the_stated_bests(name: str) -> None:
    problem = held_out_sets.PROBLEMS_BY_NAME[name]
    bests = {combination_of(c, problem.combination_keys): problem.combination_best(c) for c in problem.combinations()}
    study = optuna.create_study(sampler=optuna.samplers.RandomSampler(seed=0))
    study.optimize(stated_objective(problem), n_trials=N_RANDOM_TRIALS)
    noiseless = [noiseless_value(t) for t in study.trials]
    assert all(math.isfinite(v) for v in noiseless)
    for trial, value in zip(study.trials, noiseless):
        combination = combination_of(trial.params, problem.combination_keys)
        assert combination in bests
        assert value >= bests[combination] - 1e-9
        assert value == pytest.approx(float(problem.value(trial.params)), abs=1e-12)
    assert min(noiseless) >= min(bests.values()) - 1e-9
    assert len({combination_of(t.params, problem.combination_keys) for t in study.trials}) >= min(4, len(bests))
    if problem.noise_sd is None:  # deterministic: the same point gives the same value
        assert observed(problem, study.trials[0].params, 7)[0] == study.trials[0].value


@pytest.mark.parametrize("name", ADAPT_NAMES + FINAL_NAMES + POLICY_NAMES)
def test_best_point_gives_the_optimum_and_the_best_combination_is_unique(name: str) -> None:
    problem = held_out_sets.PROBLEMS_BY_NAME[name]
    values = sorted(problem.combination_best(c) for c in problem.combinations())
    point = problem.best_point()
    assert observed(problem, point)[1] == pytest.approx(values[0], abs=1e-9)
    assert values[1] - values[0] > 0.005
    study = optuna.create_study(sampler=optuna.samplers.RandomSampler(seed=0))
    study.enqueue_trial(point)
    study.optimize(noiseless_objective(problem), n_trials=1)
    assert study.trials[0].params == point  # the point is inside the search space
    for key, value in point.items():
        distribution = study.trials[0].distributions[key]
        if isinstance(distribution, optuna.distributions.FloatDistribution) and distribution.step is None:
            for step in (-1e-3, 1e-3):
                moved = float(np.clip(value * (1 + step), distribution.low, distribution.high))
                assert observed(problem, dict(point, **{key: moved}))[1] >= values[0] - 1e-12


@pytest.mark.parametrize(
    ("group", "problems", "label"),
    [("adapt_held_out", ADAPT_PROBLEMS, "adapt held-out"), ("final_held_out", FINAL_PROBLEMS, "final held-out")],
)
def test_the_registry_holds_the_set_with_its_specs_and_group(group: str, problems: Sequence[StatedProblem], label: str) -> None:
    assert registry.GROUPS[group] == tuple(p.name for p in problems)
    for problem in problems:
        spec, built = registry.SPECS[problem.name], registry.get_problem(problem.name)
        optimum = min(problem.combination_best(c) for c in problem.combinations())
        assert spec.optimum() == optimum and built.optimum == optimum
        assert built.n_combinations == len(problem.combinations()) and built.directions == ("minimize",)
        assert built.description.startswith(f"[{label}/{problem.family}] ")
        assert spec.combination_keys == problem.combination_keys and spec.noise_sd == problem.max_noise_sd
        assert spec.best_point is not None and spec.best_point() == problem.best_point()


@pytest.mark.parametrize("name", FINAL_NAMES)
def test_final_the_registered_objective_is_the_set_s_objective(name: str) -> None:
    """The same observed value and noiseless attribute at the same points and trial numbers
    (skewed_salomon's gamma noise included), and the same again: the noise is reproducible."""
    problem, built = held_out_sets.PROBLEMS_BY_NAME[name], registry.get_problem(name)
    study = optuna.create_study(sampler=optuna.samplers.RandomSampler(seed=11))
    study.optimize(built.objective, n_trials=20)
    for trial in study.trials:
        assert (trial.value, noiseless_value(trial)) == observed(problem, trial.params, trial.number)
    again = optuna.create_study(sampler=optuna.samplers.RandomSampler(seed=11))
    again.optimize(registry.get_problem(name).objective, n_trials=20)
    assert [t.value for t in again.trials] == [t.value for t in study.trials]


def test_final_the_tables_are_drawn_once_from_their_seeds() -> None:
    """Rebuilding a problem gives the same tables and values: the generators are seeded, and the
    tables are cached, not redrawn."""
    tables = [rugged.shubert_pairs_tables, rugged.weierstrass_grain_tables, multimodal.qing_powers_tables,
              branching.parity_branches_tables, noisy.skewed_salomon_tables, plateaus.capped_easom_tables]
    first = [{k: np.copy(v) for k, v in f().items()} for f in tables]
    for f in tables:
        f.cache_clear()
    for f, before in zip(tables, first):
        after = f()
        assert before.keys() == after.keys() and all(np.array_equal(before[k], after[k]) for k in before)
