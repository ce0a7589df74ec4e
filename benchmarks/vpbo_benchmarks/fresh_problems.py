"""The fresh held-out set: eight new synthetic problems of the broad suite's families.

Written before the tuning it holds out and not to be run by any sampler study until that tuning is
over (docs/suite.md, "The fresh held-out set"). This module is the set; :mod:`.registry`
registers its problems with every other family's, and its group ``fresh_held_out``. The problems
are in :mod:`.fresh_landscapes` and :mod:`.fresh_structures`.

Every problem is written as a noiseless ``value(params)`` plus a define-by-run ``suggest(trial)``.
``value`` is vectorised over its numeric parameters (NumPy arrays broadcast, the categorical and
branch-deciding parameters are scalars), so that the tests can search each combination's numeric
part on a dense grid or with SciPy independently of the stated optimum. Each combination's best
value is stated by construction (every numeric penalty is >= 0 and 0 at a point inside the bounds),
by a closed form (``stacked_stages``) or by a bounded enumeration (``tilted_lattice``); the
optimum is the smallest combination best, by enumeration.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping

from vpbo_benchmarks.fresh_landscapes import decoy_funnel, hidden_pair, lowrank_valley, rotated_griewank
from vpbo_benchmarks.fresh_structures import hash_resonance, hetero_branin, stacked_stages, tilted_lattice
from vpbo_benchmarks.problem import Problem
from vpbo_benchmarks.specs import FreshProblem, SuiteSpec, fresh_spec, spec_problem

FRESH_PROBLEMS: Mapping[str, FreshProblem] = {
    p.name: p
    for p in (
        rotated_griewank(), decoy_funnel(), lowrank_valley(), hidden_pair(), tilted_lattice(),
        hash_resonance(), stacked_stages(), hetero_branin(),
    )
}
# The problems built around a narrow basin or a trap (the concern: seeds that stay stuck).
NARROW_OR_TRAP: tuple[str, ...] = ("decoy_funnel", "hidden_pair", "hash_resonance")
# Kept apart from the suite's SUITE_SPECS, so that its TUNING / HELD_OUT rule stays as it was run.
FRESH_SPECS: Mapping[str, SuiteSpec] = {name: fresh_spec(p) for name, p in FRESH_PROBLEMS.items()}
FRESH_HELD_OUT: tuple[str, ...] = tuple(FRESH_SPECS)


def build_problem(name: str) -> Problem:
    """The :class:`~.problem.Problem` of fresh held-out problem ``name`` (minimised)."""
    return spec_problem(FRESH_SPECS[name], "fresh held-out")


PROBLEMS: Mapping[str, Callable[[], Problem]] = {name: functools.partial(build_problem, name) for name in FRESH_SPECS}
