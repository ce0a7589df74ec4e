"""The one registry of the lab's problems: every family registers its problems here, by name.

- the paper's problems (:mod:`.synthetic_problems`, :mod:`.chemistry_problems`, and the
  machine-learning problems of :mod:`.ml_problems`, named here and imported when one is built:
  :mod:`.lazy`);
- the broad suite (:mod:`.suite`), groups ``tuning``, ``held_out`` and ``all``, and the problems
  with stated optima of :mod:`.held_out_sets`, with their specifications (:data:`SPECS`);
- the numeric and int tasks (:mod:`.numeric_problems`: Hartmann6, and scikit-learn
  tasks with Bayesmark's ranges, imported when one is built), group ``numeric``;
- the field's combinatorial tasks (:mod:`.combinatorial`: MCBO's Pest Control and Ackley 20 x 11;
  its Ackley-53 is ``ackley53``), the problem set ``combinatorial``. A problem set
  (:data:`PROBLEM_SETS`, a :class:`~.specs.ProblemSet`) is a group with the rule that chose
  it and the date it was frozen;
- the held-out sets (:mod:`.held_out_sets`), the problem sets ``fresh_held_out``,
  ``adapt_held_out``, ``final_held_out`` and ``policy_held_out``;
- the short-study set (:mod:`.short_studies`: eight mixed problems judged at trials 10-25), the
  problem set ``short_studies``.

The trial-states suite (:mod:`.trial_states`) is a registry of tuning tasks under pruners, run by
its own runner: its tasks are not :class:`~.problem.Problem` objects.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from vpbo_benchmarks import (
    chemistry_problems,
    combinatorial,
    held_out_sets,
    large_spaces,
    numeric_problems,
    short_studies,
    suite,
    synthetic_problems,
)
from vpbo_benchmarks.lazy import deferred
from vpbo_benchmarks.problem import Problem
from vpbo_benchmarks.specs import ProblemSet, SuiteSpec

ProblemFactory = Callable[[], Problem]

# The machine-learning problems (scikit-learn, XGBoost), built by ml_problems.build(name).
ML_PROBLEM_NAMES: tuple[str, ...] = ("svm_boston", "xg_mnist", "nas_like", "automl", "feature_selection_cancer")
ML_PROBLEMS: Mapping[str, ProblemFactory] = {
    name: deferred("vpbo_benchmarks.ml_problems", "build", name=name) for name in ML_PROBLEM_NAMES
}


def register(*families: Mapping[str, ProblemFactory]) -> dict[str, ProblemFactory]:
    """The families' problems in one mapping; a name registered twice raises ValueError."""
    registered: dict[str, ProblemFactory] = {}
    for family in families:
        twice = sorted(set(family) & set(registered))
        if twice:
            raise ValueError(f"problems registered twice: {', '.join(twice)}")
        registered.update(family)
    return registered


PROBLEMS: Mapping[str, ProblemFactory] = register(
    synthetic_problems.PROBLEMS, chemistry_problems.PROBLEMS, ML_PROBLEMS, suite.PROBLEMS, held_out_sets.PROBLEMS,
    numeric_problems.PROBLEMS, combinatorial.PROBLEMS, large_spaces.PROBLEMS, short_studies.PROBLEMS,
)
PROBLEM_NAMES: tuple[str, ...] = tuple(PROBLEMS)
SPECS: Mapping[str, SuiteSpec] = {**suite.SUITE_SPECS, **held_out_sets.SPECS}
PROBLEM_SETS: Mapping[str, ProblemSet] = {
    problem_set.name: problem_set
    for problem_set in (
        *held_out_sets.HELD_OUT_SETS, combinatorial.COMBINATORIAL, large_spaces.LARGE_SPACES, short_studies.SHORT_STUDIES
    )
}
GROUPS: Mapping[str, tuple[str, ...]] = {
    **suite.HALVES,
    "numeric": numeric_problems.NUMERIC,
    **{name: problem_set.problems for name, problem_set in PROBLEM_SETS.items()},
}


def get_problem(name: str) -> Problem:
    """Build the problem registered as ``name`` (one of :data:`PROBLEM_NAMES`)."""
    try:
        factory = PROBLEMS[name]
    except KeyError:
        raise ValueError(f"unknown problem {name!r}; valid names: {', '.join(PROBLEM_NAMES)}") from None
    return factory()


def expand_groups(names: Sequence[str]) -> list[str]:
    """Problem names with each group name of :data:`GROUPS` (``tuning``, ``held_out``,
    ``fresh_held_out``, ``adapt_held_out``, ``final_held_out``, ``numeric``, ...) replaced by its problems."""
    return [problem for name in names for problem in GROUPS.get(name, (name,))]
