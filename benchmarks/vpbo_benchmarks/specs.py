"""The specifications of the broad suite's problems and of the fresh, adapt
and final held-out sets: what the suite's measurements need beyond a
:class:`~.problem.Problem` (the combinations, their bests, the optimum's point), and the Problem
each specification gives.
"""

from __future__ import annotations

import dataclasses
import functools
import itertools
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from optuna.trial import BaseTrial

from vpbo_benchmarks.problem import MINIMIZE, NOISELESS_ATTR, Problem, observe

Params = Mapping[str, Any]


@dataclasses.dataclass(frozen=True)
class SuiteSpec:
    """A suite problem with what the measurements need beyond :class:`~.problem.Problem`.

    ``combination_keys``: the parameters whose values make a trial's combination (the
    categoricals, and the int that decides a conditional space); a trial's combination is the
    (key, value) pairs of those keys it has. ``combination_best`` gives a combination's best
    value where it is known; ``combinations`` lists them all (for enumeration); ``best_point`` the
    parameters of the global optimum; ``noise_sd`` the standard deviation of the observation noise
    (regret is measured on the noiseless value, stored in the user attribute NOISELESS_ATTR)."""

    name: str
    family: str
    objective: Callable[[], Callable[[BaseTrial], float]]
    combination_keys: tuple[str, ...]
    optimum_method: str
    description: str
    conditional: bool = False
    noise_sd: float = 0.0
    combinations: Callable[[], list[dict[str, Any]]] | None = None
    combination_best: Callable[[Mapping[str, Any]], float] | None = None
    best_point: Callable[[], dict[str, Any]] | None = None

    def optimum(self) -> float | None:
        """The smallest combination best over all combinations (enumeration), or None."""
        if self.combinations is None or self.combination_best is None:
            return None
        return min(self.combination_best(c) for c in self.combinations())

    def n_combinations(self) -> int:
        return len(self.combinations()) if self.combinations is not None else 0


def combination_of(params: Mapping[str, Any], keys: Sequence[str]) -> tuple[tuple[str, Any], ...]:
    """The (key, value) pairs of ``keys`` present in ``params``: a trial's combination."""
    return tuple((k, params[k]) for k in keys if k in params)


@dataclasses.dataclass(frozen=True)
class FreshProblem:
    """A fresh problem: ``suggest`` asks the trial for its parameters and returns them,
    ``value`` is the noiseless objective, ``noise_sd`` the observation noise at a point (None:
    noiseless); the rest as in :class:`SuiteSpec`."""

    name: str
    family: str
    suggest: Callable[[BaseTrial], dict[str, Any]]
    value: Callable[[Params], Any]
    combination_keys: tuple[str, ...]
    combinations: Callable[[], list[dict[str, Any]]]
    combination_best: Callable[[Params], float]
    best_point: Callable[[], dict[str, Any]]
    description: str
    optimum_method: str
    hardness: str
    conditional: bool = False
    noise_sd: Callable[[Params], float] | None = None
    max_noise_sd: float = 0.0


def product_combinations(keys: Sequence[str], levels: Sequence[Sequence[Any]]) -> list[dict[str, Any]]:
    """Every combination of ``levels`` (one sequence per key), as dictionaries."""
    return [dict(zip(keys, values)) for values in itertools.product(*levels)]


def spec_problem(spec: SuiteSpec, group: str) -> Problem:
    """The (minimised) :class:`~.problem.Problem` of ``spec``; ``group`` (``suite``, ``fresh
    held-out``) opens its description."""
    return Problem(
        name=spec.name, directions=(MINIMIZE,), optimum=spec.optimum(), n_combinations=spec.n_combinations(),
        objective=spec.objective(), description=f"[{group}/{spec.family}] {spec.description}",
    )


def fresh_objective(
    problem: FreshProblem, noise: Callable[[BaseTrial, float], float] | None = None
) -> Callable[[BaseTrial], float]:
    """The Optuna objective: the noiseless value, plus the problem's noise where it has some
    (the noiseless value then goes to the user attribute ``problem.NOISELESS_ATTR``): Gaussian
    (:func:`~.problem.observe`), or ``noise(trial, sd)`` (a held-out set's own law)."""

    def objective(trial: BaseTrial) -> float:
        params = problem.suggest(trial)
        value = float(problem.value(params))
        if problem.noise_sd is None:
            return value
        if noise is None:
            return observe(trial, value, problem.noise_sd(params))
        trial.set_user_attr(NOISELESS_ATTR, value)
        return value + noise(trial, float(problem.noise_sd(params)))

    return objective


def fresh_spec(
    problem: FreshProblem, make_objective: Callable[[FreshProblem], Callable[[BaseTrial], float]] = fresh_objective,
) -> SuiteSpec:
    """The :class:`SuiteSpec` of a fresh problem; ``make_objective(problem)`` builds its Optuna
    objective (:func:`fresh_objective`: Gaussian noise where the problem has some)."""
    return SuiteSpec(
        problem.name, problem.family, functools.partial(make_objective, problem), problem.combination_keys,
        optimum_method=problem.optimum_method, description=problem.description, conditional=problem.conditional,
        noise_sd=problem.max_noise_sd, combinations=problem.combinations, combination_best=problem.combination_best,
        best_point=problem.best_point,
    )
