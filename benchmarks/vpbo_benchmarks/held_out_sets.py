"""The held-out problem sets: each a named list of problems with stated optima (a
:class:`~.specs.ProblemSet`: its problems, the rule that chose them, the date the list was
frozen), written before the tuning it holds out and not to be run by any sampler study until that
tuning is over; then once, last, whatever the results (docs/suite.md: "The fresh held-out set",
"The adapt held-out set", "The final held-out set", with each rule in full and its rule of use).
The tests run only random trials and direct evaluations on them.

- ``fresh_held_out`` (:data:`FRESH_HELD_OUT`): one or two new problems for each synthetic family
  of the broad suite, three of them narrow basins or traps (:data:`FRESH_NARROW_OR_TRAP`);
  random tables from ``np.random.default_rng(2101 ... 2108)``.
- ``adapt_held_out`` (:data:`ADAPT_HELD_OUT`): new base functions (Gallagher's peaks,
  Michalewicz, Wendland holes, Drop-Wave, Zakharov, Bohachevsky, a roofline cost model, cantilever
  sizing, an error terrace) in the roles multimodal (:data:`ADAPT_MULTIMODAL`), an int deciding
  the branch, hierarchical engineering, floats and ints only, a deterministic int-only space,
  noise and a plateau; random tables from ``np.random.default_rng(2701 ... 2708)``.
- ``final_held_out`` (:data:`FINAL_HELD_OUT`): written after the adapt held-out set had been run,
  in the same roles with base functions no set had used (Shubert, Weierstrass, Qing, Dixon-Price,
  Goldstein-Price, Sandgren's pressure vessel, a compiler-settings cost model, Salomon, Easom),
  :data:`FINAL_MULTIMODAL` the multimodal ones; random tables from
  ``np.random.default_rng(2711 ... 2718)``.
- ``policy_held_out`` (:data:`POLICY_HELD_OUT`): written before the sampler's search policy (the
  move a trial makes once a study stalls) was rebuilt: mixed problems on which a study can stall
  (:mod:`.stall_landscapes`: Schaffer N.2, Eggholder, Trid, Bukin N.6, the sum of different powers,
  Xin-She Yang N.2, Perm); random tables from ``np.random.default_rng(3101 ... 3107)``.

In every set each combination's best is stated (by construction, a closed form or a bounded
enumeration), the optimum is the smallest and the best combination unique by more than 0.005; the
tests check each stated best by an independent search. The problems are defined by what they are,
in :mod:`.shifted_landscapes`, :mod:`.multimodal_landscapes`, :mod:`.rugged_landscapes`,
:mod:`.branching_problems`, :mod:`.hierarchical_designs`, :mod:`.integer_lattices`,
:mod:`.noisy_problems`, :mod:`.plateau_problems` and :mod:`.stall_landscapes`; :mod:`.registry` registers them with every
other family's, and the sets with the other problem sets. The sets are kept apart from the broad
suite's SUITE_SPECS, so that its TUNING / HELD_OUT rule stays as it was run.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping

from vpbo_benchmarks.branching_problems import bit_branches, hash_resonance, parity_branches, stacked_stages
from vpbo_benchmarks.hierarchical_designs import beam_hierarchy, vessel_hierarchy
from vpbo_benchmarks.integer_lattices import flag_cliffs, tile_autotune, tilted_lattice
from vpbo_benchmarks.multimodal_landscapes import compact_foxholes, michalewicz_gates, peak_field, qing_powers
from vpbo_benchmarks.noisy_problems import hetero_branin, noisy_batch, skewed_salomon
from vpbo_benchmarks.plateau_problems import capped_easom, plateau_steps
from vpbo_benchmarks.problem import Problem
from vpbo_benchmarks.rugged_landscapes import shubert_pairs, weierstrass_grain
from vpbo_benchmarks.shifted_landscapes import decoy_funnel, hidden_pair, lowrank_valley, rotated_griewank
from vpbo_benchmarks.specs import ProblemSet, StatedProblem, SuiteSpec, spec_problem, stated_spec
from vpbo_benchmarks.stall_landscapes import (
    bukin_branch,
    eggholder_face,
    layers_powers,
    perm_face,
    schaffer_rings,
    trid_lattice,
    xin_she_yang_close,
)

PROBLEMS_BY_NAME: Mapping[str, StatedProblem] = {
    p.name: p
    for p in (
        rotated_griewank(), decoy_funnel(), lowrank_valley(), hidden_pair(), tilted_lattice(),
        hash_resonance(), stacked_stages(), hetero_branin(),
        peak_field(), michalewicz_gates(), compact_foxholes(), bit_branches(),
        beam_hierarchy(), tile_autotune(), noisy_batch(), plateau_steps(),
        shubert_pairs(), weierstrass_grain(), qing_powers(), parity_branches(),
        vessel_hierarchy(), flag_cliffs(), skewed_salomon(), capped_easom(),
        schaffer_rings(), eggholder_face(), trid_lattice(), bukin_branch(), xin_she_yang_close(), layers_powers(),
        perm_face(),
    )
}

FRESH_HELD_OUT = ProblemSet(
    name="fresh_held_out",
    problems=(
        "rotated_griewank", "decoy_funnel", "lowrank_valley", "hidden_pair", "tilted_lattice", "hash_resonance",
        "stacked_stages", "hetero_branin",
    ),
    rule=(
        "one or two new problems for each synthetic family of the broad suite (shifted, many_levels, int_log, "
        "conditional_cat, conditional_int, noisy), new base functions and new ways for the categoricals to act, at least "
        "two narrow basins or traps, every combination's best stated; written before the every-seed tuning it holds out"
    ),
    frozen="2026-11-26",
)
ADAPT_HELD_OUT = ProblemSet(
    name="adapt_held_out",
    problems=(
        "peak_field", "michalewicz_gates", "compact_foxholes", "bit_branches", "beam_hierarchy", "tile_autotune",
        "noisy_batch", "plateau_steps",
    ),
    rule=(
        "eight new problems, none a re-parametrisation of a problem the lab had, with base functions it had not used: "
        "multimodal mixed problems, an int deciding the branch, hierarchical engineering, floats and ints only, a "
        "deterministic int-only space, noise, a plateau; every combination's best stated; written before the tuning of "
        "the adaptive defaults it checks"
    ),
    frozen="2026-11-27",
)
FINAL_HELD_OUT = ProblemSet(
    name="final_held_out",
    problems=(
        "shubert_pairs", "weierstrass_grain", "qing_powers", "parity_branches", "vessel_hierarchy", "flag_cliffs",
        "skewed_salomon", "capped_easom",
    ),
    rule=(
        "eight new problems in the adapt held-out set's roles (the parity of an int deciding the branch, stepped floats "
        "in the hierarchy, skewed noise), none a re-parametrisation of a problem the lab had, with base functions it had "
        "not used; every combination's best stated; written after the adapt held-out set was run and before the defaults "
        "it checks were frozen, to be run once, last"
    ),
    frozen="2026-11-27",
)
POLICY_HELD_OUT = ProblemSet(
    name="policy_held_out",
    problems=(
        "schaffer_rings", "eggholder_face", "trid_lattice", "bukin_branch", "xin_she_yang_close", "layers_powers",
        "perm_face",
    ),
    rule=(
        "seven new mixed problems on which a study can stall (a narrow well in a branch that looks bad on a few points, "
        "a float's minimum on a face of the box, ints on a lattice, several good combinations close in value, two "
        "conditional spaces), with base functions no other set uses; every combination's best stated; written before "
        "the sampler's search policy was rebuilt, not to be run by any sampler until it is built; then once, last"
    ),
    frozen="2026-12-03",
)
HELD_OUT_SETS: tuple[ProblemSet, ...] = (FRESH_HELD_OUT, ADAPT_HELD_OUT, FINAL_HELD_OUT, POLICY_HELD_OUT)

# The roles of the sets' rules: the problems built around a narrow basin or a trap (the concern:
# seeds that stay stuck), and the multimodal ones.
FRESH_NARROW_OR_TRAP: tuple[str, ...] = ("decoy_funnel", "hidden_pair", "hash_resonance")
ADAPT_MULTIMODAL: tuple[str, ...] = ("peak_field", "michalewicz_gates", "compact_foxholes", "bit_branches")
FINAL_MULTIMODAL: tuple[str, ...] = ("shubert_pairs", "weierstrass_grain", "qing_powers", "parity_branches", "skewed_salomon")

SPECS: Mapping[str, SuiteSpec] = {
    name: stated_spec(PROBLEMS_BY_NAME[name]) for problem_set in HELD_OUT_SETS for name in problem_set.problems
}
# Each problem's set, whose name opens the problem's description: "[fresh held-out/shifted] ...".
SET_OF: Mapping[str, ProblemSet] = {name: s for s in HELD_OUT_SETS for name in s.problems}


def build_problem(name: str) -> Problem:
    """The :class:`~.problem.Problem` of held-out problem ``name`` (minimised)."""
    return spec_problem(SPECS[name], SET_OF[name].name.replace("_held_out", " held-out"))


PROBLEMS: Mapping[str, Callable[[], Problem]] = {name: functools.partial(build_problem, name) for name in SPECS}
