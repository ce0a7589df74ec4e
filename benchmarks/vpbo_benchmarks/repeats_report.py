"""How often a sampler evaluates a configuration again, and what it reaches: ``vpbo-benchmark
repeats`` ("no wasted repeats").

A trial is a repeat when every stored parameter equals that of an earlier trial of the run. The
stored runs keep int and categorical parameters, not floats (:mod:`.records`): the report is for
spaces without floats (the numeric group's k-nearest neighbours, decision tree and SVM
tasks...); a problem whose runs store no parameter gets "-". Per problem and sampler:
the mean number of repeats per run (and the largest), the mean number of distinct
configurations, and the metric of :mod:`.suite_report` at the last trial (mean ± standard
error, seeds paired with nothing: every stored seed of the folder counts).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np

from vpbo_benchmarks.markdown import format_value, markdown_table
from vpbo_benchmarks.records import Record, load_problem
from vpbo_benchmarks.suite_report import as_loss, mean_and_se, metric_at, problem_spec

HEADER = ("problem", "sampler", "seeds", "repeats per run (largest)", "distinct configurations", "metric at the last trial")


def configurations(record: Record) -> list[tuple[tuple[str, object], ...]]:
    """The trials' stored configurations in trial order (a conditional space's inactive
    parameters left out)."""
    trials: list[dict[str, object]] = record["params"]
    return [tuple(sorted(params.items())) for params in trials]


def repeat_count(record: Record) -> int:
    """The number of trials whose configuration an earlier trial of the run had."""
    seen: set[tuple[tuple[str, object], ...]] = set()
    repeats = 0
    for configuration in configurations(record):
        repeats += configuration in seen
        seen.add(configuration)
    return repeats


def repeat_rows(out_dir: Path, problems: Sequence[str], samplers: Sequence[str] | None = None) -> list[list[str]]:
    """One row per (problem, sampler with runs in ``out_dir``)."""
    rows = []
    for problem in problems:
        _, optimum, maximised = problem_spec(problem)
        for sampler, records in load_problem(out_dir, problem).items():
            if samplers is not None and sampler not in samplers:
                continue
            records = [as_loss(r) if maximised else r for r in records]
            last = min(int(r["n_trials"]) for r in records)
            metric = mean_and_se(list(metric_at(records, optimum, last).values()))
            rows.append([problem, sampler, str(len(records)), *_repeat_cells(records), f"{format_value(*metric)} (trial {last})"])
    return rows


def _repeat_cells(records: Sequence[Record]) -> list[str]:
    """The repeats and distinct-configuration cells; "-" where no parameter was stored."""
    if not any(params for r in records for params in r["params"]):
        return ["-", "-"]
    repeats = np.array([repeat_count(r) for r in records])
    distinct = np.mean([len(set(configurations(r))) for r in records])
    return [f"{repeats.mean():.1f} ({repeats.max()})", f"{distinct:.1f}"]


def write_repeats_report(path: Path, rows: Sequence[Sequence[str]], command: str) -> str:
    """The report's Markdown, written to ``path`` and returned."""
    lines = [
        "# Repeated configurations",
        "",
        "A repeat: a trial whose every parameter equals an earlier trial's (benchmarks/vpbo_benchmarks/repeats_report.py).",
        *([f"Regenerate: `{command}`", ""] if command else [""]),
        *markdown_table(HEADER, rows),
        "",
    ]
    text = "\n".join(lines)
    path.write_text(text)
    return text
