"""Summaries of stored benchmark runs: simple regret (or best value) and sampler time."""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from optuna_vpbo.benchmarks.problems import get_problem
from optuna_vpbo.benchmarks.runner import load_results


def best_so_far(record: dict[str, Any], direction: str) -> np.ndarray:
    """Best first-objective value after each trial (failed trials keep the previous best)."""
    values = np.array([v[0] if v else math.nan for v in record["values"]], dtype=float)
    sign = 1.0 if direction == "minimize" else -1.0
    filled = np.where(np.isnan(values), np.inf, sign * values)
    return sign * np.minimum.accumulate(filled)


def trace(record: dict[str, Any], problem_name: str) -> np.ndarray:
    """Simple regret after each trial, or the best value where no optimum is known."""
    problem = get_problem(problem_name)
    best = best_so_far(record, problem.directions[0])
    if problem.optimum is None:
        return best
    gap = best - problem.optimum if problem.directions[0] == "minimize" else problem.optimum - best
    return np.maximum(gap, 0.0)


def mean_and_se(samples: np.ndarray) -> tuple[float, float]:
    if len(samples) < 2:
        return float(np.mean(samples)), math.nan
    return float(np.mean(samples)), float(np.std(samples, ddof=1) / math.sqrt(len(samples)))


def regret_table(
    out_dir: Path, problems: Sequence[str], samplers: Sequence[str], checkpoints: Sequence[int], time_from: int
) -> str:
    """Markdown: mean +- s.e. at each checkpoint and the median sampler seconds per trial."""
    header = ["problem", "sampler", "seeds", *[f"@{c}" for c in checkpoints], f"median s/trial (trials >= {time_from})"]
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    for problem in problems:
        metric = "regret" if get_problem(problem).optimum is not None else "best value"
        for sampler in samplers:
            records = load_results(out_dir, problem, sampler)
            if not records:
                continue
            traces = [trace(r, problem) for r in records]
            cells = []
            for c in checkpoints:
                at = [t[c - 1] for t in traces if len(t) >= c]
                cells.append(_format(*mean_and_se(np.array(at))) if at else "-")
            times = np.concatenate([np.array(r["sampler_seconds"][time_from:]) for r in records])
            median_time = f"{np.median(times):.4f}" if times.size else "-"
            lines.append(f"| {problem} ({metric}) | {sampler} | {len(records)} | " + " | ".join(cells) + f" | {median_time} |")
    return "\n".join(lines)


def _format(mean: float, se: float) -> str:
    digits = 4 if abs(mean) < 1 else 3
    return f"{mean:.{digits}f} +- {se:.{digits}f}"
