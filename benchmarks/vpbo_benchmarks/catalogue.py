"""What ``vpbo-benchmark list`` prints: the problems with their search space and optimum, and the
samplers with one line each.

A problem's row comes from the stored catalogue, ``data/problem_spaces.json``: probing a space
runs the objective (seconds for the machine-learning problems, and their libraries to import), so
``list`` reads what PROBES random trials found once, and prints the same each time. A problem
missing from the file is probed when listed; ``list --probe`` probes every listed one.
``benchmarks/tests/test_catalogue.py`` checks that the file matches fresh probes; rewrite it with
``python -m vpbo_benchmarks.catalogue --write benchmarks/vpbo_benchmarks/data/problem_spaces.json``.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import optuna
from optuna.distributions import CategoricalDistribution

from vpbo_benchmarks.oracle import ORACLE
from vpbo_benchmarks.problem import Direction
from vpbo_benchmarks.registry import PROBLEM_NAMES, get_problem
from vpbo_benchmarks.samplers import SAMPLER_FACTORIES, make_sampler
from vpbo_benchmarks.vpbo_variants import VARIANTS

# Random trials (RandomSampler, seed 0) that probe a problem's search space: conditional spaces
# show more of their branches with more trials. A fixed number, so that a probe repeats exactly.
PROBES = 12
STORED_SPACES = Path(__file__).resolve().parent / "data" / "problem_spaces.json"
HEADER = [
    "| problem | categorical | combinations | numeric | directions | optimum | description |",
    "|---|---|---|---|---|---|---|",
]

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


def probe_space(
    objective: optuna.study.study.ObjectiveFuncType, directions: Sequence[Direction], n_probes: int = PROBES
) -> SpaceSummary:
    """Run ``n_probes`` random trials of ``objective`` (seed 0) and count the parameters they
    suggest (the union of all trials: a conditional space shows more of its branches with more
    probes)."""
    study = optuna.create_study(directions=list(directions), sampler=optuna.samplers.RandomSampler(seed=0))
    study.optimize(objective, n_trials=n_probes, catch=(Exception,))
    distributions: dict[str, optuna.distributions.BaseDistribution] = {}
    for trial in study.trials:
        distributions.update(trial.distributions)
    categorical = sum(isinstance(d, CategoricalDistribution) for d in distributions.values())
    conditional = len({frozenset(t.distributions) for t in study.trials}) > 1
    return SpaceSummary(categorical, len(distributions) - categorical, conditional, len(study.trials))


def probe_entry(name: str) -> dict[str, Any]:
    """A problem's catalogue entry from the problem itself and PROBES random trials of it."""
    optuna.logging.set_verbosity(optuna.logging.ERROR)
    problem = get_problem(name)
    space = probe_space(problem.objective, problem.directions)
    return {
        "categorical": space.n_categorical,
        "combinations": problem.n_combinations,
        "numeric": space.n_numeric,
        "conditional": space.conditional,
        "directions": list(problem.directions),
        "optimum": problem.optimum,
        "description": problem.description,
    }


def stored_entries(path: Path | None = None) -> dict[str, dict[str, Any]]:
    """The stored catalogue (default STORED_SPACES): each problem's entry by name (none where the
    file is missing)."""
    path = STORED_SPACES if path is None else path
    entries: dict[str, dict[str, Any]] = json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}
    return entries


def entry_row(name: str, entry: Mapping[str, Any]) -> str:
    """A problem's Markdown row."""
    conditional = f" (conditional; {PROBES} probe trials)" if entry["conditional"] else ""
    optimum = "unknown" if entry["optimum"] is None else f"{entry['optimum']:.6g}"
    return (
        f"| {name} | {entry['categorical']} | {entry['combinations']:,} | {entry['numeric']}{conditional} | "
        f"{', '.join(entry['directions'])} | {optimum} | {entry['description']} |"
    )


def problem_lines(names: Sequence[str] = PROBLEM_NAMES, probe: bool = False) -> list[str]:
    """One Markdown table row per problem: space, directions, optimum, description; from the
    stored catalogue, or from fresh probes (``probe``, and for a problem the catalogue lacks)."""
    stored = {} if probe else stored_entries()
    rows = list(HEADER)
    for name in names:
        if name in stored:
            rows.append(entry_row(name, stored[name]))
            continue
        try:
            entry = probe_entry(name)
        except ImportError as error:
            rows.append(f"| {name} | - | - | - | - | - | needs a missing library: {error} |")
            continue
        rows.append(entry_row(name, entry))
    return rows


def write_stored_entries(path: Path, names: Sequence[str] = PROBLEM_NAMES) -> None:
    """Probe every problem and write the catalogue (sorted keys, one problem a line)."""
    entries = {name: probe_entry(name) for name in names}
    lines = [f"  {json.dumps(name)}: {json.dumps(entry, sort_keys=True)}" for name, entry in entries.items()]
    path.write_text("{\n" + ",\n".join(lines) + "\n}\n", encoding="utf-8")


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


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m vpbo_benchmarks.catalogue", description="probe every problem")
    parser.add_argument("--write", type=Path, required=True, help="the catalogue file to rewrite")
    write_stored_entries(parser.parse_args(argv).write)


if __name__ == "__main__":
    main()
