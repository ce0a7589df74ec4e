"""The specifications of the broad suite's problems and of the problems with stated optima (the
held-out sets' problems): what the suite's measurements need beyond a :class:`~.problem.Problem`
(the combinations, their bests, the optimum's point), the Problem each specification gives, and
:class:`ProblemSet`, a named list of registered problems with the rule that chose it.
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


@dataclasses.dataclass(frozen=True)
class ProblemSet:
    """A named list of registered problems, the rule that chose them and the date (ISO 8601) the
    list was frozen: a set is run and reported as it was frozen, a changed list is a new set."""

    name: str
    problems: tuple[str, ...]
    rule: str
    frozen: str


def combination_of(params: Mapping[str, Any], keys: Sequence[str]) -> tuple[tuple[str, Any], ...]:
    """The (key, value) pairs of ``keys`` present in ``params``: a trial's combination."""
    return tuple((k, params[k]) for k in keys if k in params)


@dataclasses.dataclass(frozen=True)
class StatedProblem:
    """A problem whose every combination's best is stated: ``suggest`` asks the trial for its
    parameters (define-by-run) and returns them, ``value`` is the noiseless objective (vectorised
    over the numeric parameters: arrays broadcast, the categorical and branch-deciding ones are
    scalars), ``noise_sd`` the observation noise's sd at a point (None: noiseless) and ``noise``
    its law, ``noise(trial, sd)`` (None: Gaussian); the rest as in :class:`SuiteSpec`."""

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
    noise: Callable[[BaseTrial, float], float] | None = None


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


def stated_objective(problem: StatedProblem) -> Callable[[BaseTrial], float]:
    """The Optuna objective: the noiseless value, plus the problem's noise where it has some
    (the noiseless value then goes to the user attribute ``problem.NOISELESS_ATTR``): Gaussian
    (:func:`~.problem.observe`), or the problem's own law ``problem.noise(trial, sd)``."""

    def objective(trial: BaseTrial) -> float:
        params = problem.suggest(trial)
        value = float(problem.value(params))
        if problem.noise_sd is None:
            return value
        if problem.noise is None:
            return observe(trial, value, problem.noise_sd(params))
        trial.set_user_attr(NOISELESS_ATTR, value)
        return value + problem.noise(trial, float(problem.noise_sd(params)))

    return objective


def stated_spec(problem: StatedProblem) -> SuiteSpec:
    """The :class:`SuiteSpec` of a problem with stated optima; its Optuna objective is
    :func:`stated_objective`'s."""
    return SuiteSpec(
        problem.name, problem.family, functools.partial(stated_objective, problem), problem.combination_keys,
        optimum_method=problem.optimum_method, description=problem.description, conditional=problem.conditional,
        noise_sd=problem.max_noise_sd, combinations=problem.combinations, combination_best=problem.combination_best,
        best_point=problem.best_point,
    )
