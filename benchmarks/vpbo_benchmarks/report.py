"""Tables of stored benchmark runs, and the loading and trace conventions the figures share.

Conventions (the figures of :mod:`.plots` follow them too):

- Iteration: ``t = trial - n_init`` with trials counted from 1 and ``n_init = 24``, the paper's
  initial design; ``t = 1`` is the first trial after it, ``t <= 0`` the initial design, and the
  paper's ``T = 200`` iterations are trials 25 .. 224. Every sampler is counted this way, whatever
  its own initial design (EXP3BO and Bandit-BO spend 3 of the same trials per arm on theirs).
- Metric: simple regret of the best-so-far first-objective value where the problem's optimum is
  known, the best-so-far value otherwise. Multi-objective problems use their first objective
  only (no hypervolume); failed trials keep the previous best.
- Mean +- standard error over the seeds; where runs have different lengths, each point uses the
  runs that reach it.
- The Oracle (sampler ``oracle``) is loaded apart from the compared samplers: it is a reference
  line and a row of the regret table, not a sampler of the overhead table.
"""

from __future__ import annotations

import dataclasses
import math
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
from scipy.stats import mannwhitneyu

from vpbo_benchmarks.oracle import ORACLE
from vpbo_benchmarks.problem import MINIMIZE, Problem
from vpbo_benchmarks.records import load_problem, records_path
from vpbo_benchmarks.registry import get_problem

N_INIT = 24  # the paper's initial design: 24 trials before iteration 1
CHECKPOINTS = (50, 100, 200)  # iterations after the paper's initial design (its T = 200)
# The report command's default checkpoints: these trial counts, as far as the runs go, and the
# length of the longest run (see default_checkpoints).
CHECKPOINT_LADDER = (25, 50, 100, 200, 500, 1000, 2000, 5000, 10000)
REPORT_NAME = "REPORT.md"
REFERENCE_SAMPLER = "vpbo"  # the sampler the comparison table sets against every other
MAX_SIGNIFICANT_DIGITS = 10

Record = dict[str, Any]


@dataclasses.dataclass(frozen=True)
class ProblemRuns:
    """The stored runs of one problem: ``runs`` of the requested samplers that have results (in
    the requested order), the ``oracle``'s runs, and ``stored``, every sampler folder's runs."""

    problem: Problem
    runs: dict[str, list[Record]]
    oracle: list[Record]
    stored: dict[str, list[Record]]

    @property
    def multi_objective(self) -> bool:
        return len(self.problem.directions) > 1


def collect(
    out_dir: Path, problems: Sequence[str], samplers: Sequence[str], notes: list[str], max_seeds: int | None = None
) -> list[ProblemRuns]:
    """Load the runs of ``problems`` (of the seeds below ``max_seeds`` if given, so that samplers
    with more stored seeds are compared on the same ones); problems or samplers without results
    are left out with a note."""
    collected = []
    for name in problems:
        stored = load_problem(out_dir, name)
        stored = {
            sampler: [r for r in records if max_seeds is None or r["seed"] < max_seeds]
            for sampler, records in stored.items()
        }
        stored = {sampler: records for sampler, records in stored.items() if records}
        if not stored:
            notes.append(f"{name}: no results in {records_path(out_dir, name)}, skipped.")
            continue
        try:
            problem = get_problem(name)
        except (ValueError, ImportError) as error:
            notes.append(f"{name}: cannot build the problem ({error}), skipped.")
            continue
        missing = [s for s in samplers if s != ORACLE and s not in stored]
        if missing:
            notes.append(f"{name}: no results for {', '.join(missing)}, skipped.")
        if len(problem.directions) > 1:
            notes.append(
                f"{name}: {len(problem.directions)} objectives; tables and figures use the first objective "
                f"({problem.directions[0]}) only, no hypervolume."
            )
        runs = {s: stored[s] for s in samplers if s != ORACLE and s in stored}
        collected.append(ProblemRuns(problem, runs, stored.get(ORACLE, []), stored))
    return collected


def first_objective(record: Record) -> np.ndarray:
    """First-objective value of each trial, NaN for failed and infeasible trials (a trial is
    feasible when all its constraint values are <= 0)."""
    constraints = record.get("constraints") or [[] for _ in record["values"]]
    return np.array(
        [v[0] if v and all(c <= 0 for c in cons) else math.nan for v, cons in zip(record["values"], constraints)],
        dtype=float,
    )


def best_so_far(record: Record, direction: str) -> np.ndarray:
    """Best first-objective value after each trial (failed trials keep the previous best; NaN
    before the first successful trial)."""
    sign = 1.0 if direction == MINIMIZE else -1.0
    values = first_objective(record)
    best = np.minimum.accumulate(np.where(np.isnan(values), np.inf, sign * values))
    return np.where(np.isinf(best), math.nan, sign * best)


def trace(record: Record, problem: Problem) -> np.ndarray:
    """Simple regret after each trial, or the best value where no optimum is known."""
    best = best_so_far(record, problem.directions[0])
    if problem.optimum is None:
        return best
    gap = best - problem.optimum if problem.directions[0] == MINIMIZE else problem.optimum - best
    return np.maximum(gap, 0.0)


def metric_name(problem: Problem) -> str:
    return "simple regret" if problem.optimum is not None else "best value"


def default_checkpoints(collected: Sequence[ProblemRuns], n_init: int = 0) -> list[int]:
    """The checkpoints (iterations after ``n_init``) that the given runs reach: the trial counts
    of CHECKPOINT_LADDER below the longest run's end, then that end (a 50-trial run: 25 and 50;
    the paper's 224: 25, 50, 100, 200 and 224); none where no run goes past ``n_init``."""
    longest = max(
        (len(r["values"]) for entry in collected for runs in [*entry.runs.values(), entry.oracle] for r in runs),
        default=0,
    )
    last = longest - n_init
    return [*(c for c in CHECKPOINT_LADDER if c < last), last] if last > 0 else []


def iterations(n_trials: int, n_init: int) -> np.ndarray:
    """Iteration t = trial - n_init of trials 1 .. n_trials."""
    return np.arange(1, n_trials + 1) - n_init


def mean_se_over_runs(series: Sequence[np.ndarray]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Mean, standard error and count at each index over the runs (NaN or missing: left out).

    The standard error is NaN where fewer than two runs count."""
    length = max((len(s) for s in series), default=0)
    table = np.full((len(series), length), np.nan)
    for row, values in zip(table, series):
        row[: len(values)] = values
    valid = ~np.isnan(table)
    count = valid.sum(axis=0)
    mean = np.where(valid, table, 0.0).sum(axis=0) / np.maximum(count, 1)
    squares = np.where(valid, table - mean, 0.0) ** 2
    se = np.sqrt(squares.sum(axis=0) / np.maximum(count - 1, 1) / np.maximum(count, 1))
    return np.where(count > 0, mean, np.nan), np.where(count > 1, se, np.nan), count


def format_mean_se(mean: float, se: float) -> str:
    """The mean to the digits its standard error resolves (at least three significant: 91.43702
    stays apart from 91.4368), the standard error to two digits (left out when NaN)."""
    if math.isnan(se):
        return f"{mean:.3g}"
    digits = 3
    if se > 0 and mean != 0 and math.isfinite(mean) and math.isfinite(se):
        resolved = math.floor(math.log10(abs(mean))) - math.floor(math.log10(se)) + 2
        digits = min(max(digits, resolved), MAX_SIGNIFICANT_DIGITS)
    return f"{mean:.{digits}g} ± {se:.2g}"


def _row(cells: Sequence[str]) -> str:
    return "| " + " | ".join(cells) + " |"


def _table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    return "\n".join([_row(header), "|" + "---|" * len(header), *(_row(r) for r in rows)])


def regret_table(collected: Sequence[ProblemRuns], checkpoints: Sequence[int], n_init: int = N_INIT) -> str:
    """Markdown: mean ± s.e. of the metric at each checkpoint iteration, per problem and sampler
    (the Oracle last where stored). A cell is "-" where no run reaches the checkpoint, and says
    how many runs count where only some do."""
    header = ["problem (metric)", "sampler", "seeds", *[f"t={c} (trial {c + n_init})" for c in checkpoints]]
    rows = []
    for entry in collected:
        for sampler, records in [*entry.runs.items(), *([(ORACLE, entry.oracle)] if entry.oracle else [])]:
            mean, se, count = mean_se_over_runs([trace(r, entry.problem) for r in records])
            cells = []
            for c in checkpoints:
                index = c + n_init - 1
                if index < 0 or index >= len(mean) or count[index] == 0:
                    cells.append("-")
                    continue
                partial = f" (n={count[index]})" if count[index] < len(records) else ""
                cells.append(format_mean_se(mean[index], se[index]) + partial)
            label = f"{entry.problem.name} ({metric_name(entry.problem)})"
            rows.append([label, sampler, str(len(records)), *cells])
    return _table(header, rows)


def lower_is_better(problem: Problem) -> bool:
    """Direction of the reported metric: regret where the optimum is known, else the value."""
    return problem.optimum is not None or problem.directions[0] == MINIMIZE


def metric_at(records: Sequence[Record], problem: Problem, checkpoint: int, n_init: int) -> np.ndarray:
    """The metric of each run that reaches iteration ``checkpoint`` (and has a value there)."""
    index = checkpoint + n_init - 1
    values = [t[index] for t in (trace(r, problem) for r in records) if index < len(t)]
    return np.array([v for v in values if not math.isnan(v)], dtype=float)


def one_sided_p_value(reference: np.ndarray, other: np.ndarray, lower_better: bool) -> float:
    """Mann-Whitney U test (unpaired, seeds as samples) of "``reference`` is better than
    ``other``"; 1 where both samples are one and the same constant (nothing to tell apart)."""
    if np.ptp(np.concatenate([reference, other])) == 0:
        return 1.0
    alternative = "less" if lower_better else "greater"
    return float(mannwhitneyu(reference, other, alternative=alternative).pvalue)


def best_found(entry: ProblemRuns) -> float:
    """The best first-objective value of any stored run of the problem (every sampler folder):
    the reference where neither the optimum nor the Oracle is known."""
    finals = [best_so_far(r, entry.problem.directions[0]) for runs in entry.stored.values() for r in runs]
    values = [f[~np.isnan(f)][-1] for f in finals if np.any(~np.isnan(f))]
    return float(min(values) if entry.problem.directions[0] == MINIMIZE else max(values))


def comparison_table(
    collected: Sequence[ProblemRuns], checkpoints: Sequence[int], n_init: int = N_INIT, reference: str = REFERENCE_SAMPLER
) -> str:
    """Markdown: per problem, the reference sampler against every other (and the Oracle) at each
    checkpoint: the difference of the means (reference minus other; negative is better for
    regret, positive for a maximised value), the one-sided Mann-Whitney p-value that the
    reference is better, and the reference's rank by mean among the compared samplers. Without
    an Oracle or a known optimum, the last row is the gap to the best value found in any stored
    run."""
    header = ["problem", f"{reference} vs", *[f"t={c}" for c in checkpoints]]
    rows = []
    for entry in collected:
        if reference not in entry.runs:
            continue
        lower_better = lower_is_better(entry.problem)
        compared = {**entry.runs, **({ORACLE: entry.oracle} if entry.oracle else {})}
        metrics = {s: [metric_at(r, entry.problem, c, n_init) for c in checkpoints] for s, r in compared.items()}
        ours = metrics[reference]
        ranks = []
        for k, own in enumerate(ours):
            if not len(own):
                ranks.append("-")
                continue
            means = [float(np.mean(m[k])) for s, m in metrics.items() if s != ORACLE and len(m[k])]
            better = sum(m < np.mean(own) if lower_better else m > np.mean(own) for m in means)
            ranks.append(f"{better + 1} of {len(means)}")
        rows.append([entry.problem.name, "(rank by mean)", *ranks])
        for sampler, theirs_at in metrics.items():
            if sampler == reference:
                continue
            cells = []
            for own, theirs in zip(ours, theirs_at):
                if not len(own) or not len(theirs):
                    cells.append("-")
                    continue
                if np.ptp(np.concatenate([own, theirs])) == 0:
                    cells.append("tie (all runs equal)")
                    continue
                difference = float(np.mean(own) - np.mean(theirs))
                cells.append(f"{difference:+.3g} (p={one_sided_p_value(own, theirs, lower_better):.2g})")
            rows.append([entry.problem.name, sampler, *cells])
        if not entry.oracle and entry.problem.optimum is None:
            found = best_found(entry)
            gaps = [f"{np.mean(own) - found:+.3g}" if len(own) else "-" for own in ours]
            rows.append([entry.problem.name, f"best found in any stored run ({found:.6g})", *gaps])
    return _table(header, rows)


def mean_and_se(samples: Sequence[float] | np.ndarray) -> tuple[float, float]:
    mean, se, _ = mean_se_over_runs([np.array([v]) for v in samples])
    return float(mean[0]), float(se[0])


def overhead_table(collected: Sequence[ProblemRuns], samplers: Sequence[str], n_init: int = N_INIT) -> str:
    """Markdown, one row per problem: the sampler's own seconds per iteration (``sampler_seconds``,
    objective excluded), the mean over the trials after the initial design, then mean ± s.e. over
    the seeds; "-" where no run has trials after the initial design."""
    columns = [s for s in samplers if s != ORACLE]
    rows = []
    for entry in collected:
        cells = []
        for sampler in columns:
            seconds = [r["sampler_seconds"][n_init:] for r in entry.runs.get(sampler, [])]
            per_run = [float(np.mean(s)) for s in seconds if len(s)]
            cells.append(format_mean_se(*mean_and_se(per_run)) if per_run else "-")
        rows.append([entry.problem.name, *cells])
    return _table(["problem", *columns], rows)


def _machines(collected: Sequence[ProblemRuns]) -> str:
    machines = {
        r.get("environment", {}).get("machine", "?")
        for entry in collected
        for records in entry.runs.values()
        for r in records
    }
    return ", ".join(sorted(machines)) or "-"


def write_report(
    path: Path,
    collected: Sequence[ProblemRuns],
    samplers: Sequence[str],
    checkpoints: Sequence[int],
    figures: Sequence[tuple[Path, str]],
    notes: Sequence[str],
    n_init: int = N_INIT,
) -> str:
    """Write the Markdown report to ``path`` and return it: the tables, links to ``figures``
    (path, caption) and the ``notes``."""
    last = n_init + max(checkpoints, default=0)
    counting = (
        f"Iteration t = trial - {n_init}: t = 1 is the first trial after the {n_init}-trial initial design "
        f"(t = {max(checkpoints, default=0)} is trial {last})."
        if n_init
        else "Iteration t = the trial number, counted from 1 (the initial design included)."
    )
    sections = [
        "# Benchmark report",
        "",
        f"{counting} Metric: simple regret of the best-so-far value "
        "where the optimum is known, else the best-so-far value; first objective of multi-objective problems. "
        "Mean ± standard error over seeds.",
        "",
        "## Simple regret (or best value) at the checkpoints",
        "",
        regret_table(collected, checkpoints, n_init),
        "",
        f"## {REFERENCE_SAMPLER} against each sampler",
        "",
        f"Difference of the means ({REFERENCE_SAMPLER} minus the other: negative is better for a regret, positive "
        "for a maximised best value) and the one-sided Mann-Whitney U p-value that "
        f"{REFERENCE_SAMPLER} is better (unpaired, seeds as samples); first, {REFERENCE_SAMPLER}'s rank by mean "
        "among the compared samplers (Oracle excluded).",
        "",
        comparison_table(collected, checkpoints, n_init),
        "",
        f"## Sampler overhead per iteration (seconds; mean over trials {n_init + 1}.., then over seeds)",
        "",
        f"Measured on: {_machines(collected)}.",
        "",
        overhead_table(collected, samplers, n_init),
    ]
    if figures:
        sections += ["", "## Figures", ""]
        sections += [
            f"- [{f.name}]({Path(os.path.relpath(f, path.parent)).as_posix()}): {caption}" for f, caption in figures
        ]
    if notes:
        sections += ["", "## Notes", "", *[f"- {n}" for n in notes]]
    text = "\n".join(sections) + "\n"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return text
