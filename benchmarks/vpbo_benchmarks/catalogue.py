"""What ``vpbo-benchmark list`` prints: the problems with their search space and optimum, and the
samplers with one line each."""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Sequence

import optuna
from optuna.distributions import CategoricalDistribution

from vpbo_benchmarks.oracle import ORACLE
from vpbo_benchmarks.problem import Direction
from vpbo_benchmarks.registry import PROBLEM_NAMES, get_problem
from vpbo_benchmarks.samplers import SAMPLER_FACTORIES, make_sampler
from vpbo_benchmarks.vpbo_variants import VARIANTS

# Random trials that probe a problem's search space (conditional spaces differ between trials):
# at least MIN_PROBES, then more while the probing takes less than PROBE_SECONDS, up to MAX_PROBES.
MIN_PROBES = 4
MAX_PROBES = 12
PROBE_SECONDS = 1.0

SAMPLER_DESCRIPTIONS = {
    "vpbo": "VPBOSampler with its defaults",
    **{name: f"VPBOSampler, {variant.description}" for name, variant in VARIANTS.items()},
    "vpbo-intersection": "VPBOSampler (vpbo-v2) on the intersection search space only (conditional parameters at random)",
    "tpe": "Optuna's TPESampler",
    "tpe-group": "Optuna's TPESampler(multivariate=True, group=True)",
    "gp": "Optuna's GPSampler",
    "random": "Optuna's RandomSampler",
    "cocabo-0.5": "CoCaBO with a fixed kernel mix 0.5 (paper baseline)",
    "cocabo-auto": "CoCaBO with the kernel mix learned (paper baseline)",
    "cocabo-s": "CoCaBO-S: CoCaBO with search initialisation (paper baseline)",
    "randombo": "RandomBO: CoCaBO's GP with uniformly random combinations (paper baseline)",
    "onehot-bo": "One-hot BO: one GP over one-hot categoricals (paper baseline)",
    "exp3bo": "EXP3BO: one GP per combination, EXP3 picks the combination (paper baseline)",
    "banditbo": "Bandit-BO: one GP per combination, Thompson sampling picks it (paper baseline)",
    "smac": "SMAC3 (random forest surrogate) through its ask-and-tell API",
    "tpe-auto": "TPESampler(multivariate=True, constant_liar=True): OptunaHub AutoSampler's TPE",
    "catcmawm": "CatCMAwM from cmaes, flat spaces only (the peers extra)",
    "ax": "Ax's default generation strategy (BoTorch), flat spaces only (the peers extra)",
    ORACLE: "the Oracle: a full VPBO run on every combination, the best of them (reference, <= 256 combinations)",
}


@dataclasses.dataclass(frozen=True)
class SpaceSummary:
    """A problem's search space as seen by random probe trials."""

    n_categorical: int
    n_numeric: int
    conditional: bool  # the probe trials did not all have the same parameters
    n_probes: int


def probe_space(objective: optuna.study.study.ObjectiveFuncType, directions: Sequence[Direction]) -> SpaceSummary:
    """Run a few random trials of ``objective`` and count the parameters they suggest (the union
    of all trials: a conditional space shows more of its branches with more probes)."""
    study = optuna.create_study(directions=list(directions), sampler=optuna.samplers.RandomSampler(seed=0))
    start = time.perf_counter()
    while len(study.trials) < MIN_PROBES or (
        len(study.trials) < MAX_PROBES and time.perf_counter() - start < PROBE_SECONDS
    ):
        study.optimize(objective, n_trials=1, catch=(Exception,))
    distributions: dict[str, optuna.distributions.BaseDistribution] = {}
    for trial in study.trials:
        distributions.update(trial.distributions)
    categorical = sum(isinstance(d, CategoricalDistribution) for d in distributions.values())
    conditional = len({frozenset(t.distributions) for t in study.trials}) > 1
    return SpaceSummary(categorical, len(distributions) - categorical, conditional, len(study.trials))


def problem_lines(names: Sequence[str] = PROBLEM_NAMES) -> list[str]:
    """One Markdown table row per problem: space, directions, optimum, description."""
    optuna.logging.set_verbosity(optuna.logging.ERROR)
    rows = [
        "| problem | categorical | combinations | numeric | directions | optimum | description |",
        "|---|---|---|---|---|---|---|",
    ]
    for name in names:
        try:
            problem = get_problem(name)
        except ImportError as error:
            rows.append(f"| {name} | - | - | - | - | - | needs a missing library: {error} |")
            continue
        space = probe_space(problem.objective, problem.directions)
        conditional = f" (conditional; {space.n_probes} probe trials)" if space.conditional else ""
        optimum = "unknown" if problem.optimum is None else f"{problem.optimum:.6g}"
        rows.append(
            f"| {name} | {space.n_categorical} | {problem.n_combinations:,} | {space.n_numeric}{conditional} | "
            f"{', '.join(problem.directions)} | {optimum} | {problem.description} |"
        )
    return rows


def sampler_description(name: str) -> str:
    """The sampler's line: its description, or its class and the first line of its docstring."""
    if name in SAMPLER_DESCRIPTIONS:
        return SAMPLER_DESCRIPTIONS[name]
    sampler = make_sampler(name, 0)
    doc = (type(sampler).__doc__ or "").strip().splitlines()
    return f"{type(sampler).__name__}" + (f": {doc[0]}" if doc else "")


def sampler_lines(names: Sequence[str] = (*SAMPLER_FACTORIES, ORACLE)) -> list[str]:
    width = max(len(n) for n in names)
    return [f"{name:<{width}}  {sampler_description(name)}" for name in names]
