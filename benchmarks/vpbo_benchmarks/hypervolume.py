"""Hypervolume of stored multi-objective runs, for comparing samplers on the two-objective problems.

Objectives are turned into losses (maximised ones negated). The reference point is the worst
value of each loss over every stored run of the problem (all samplers, all trials), so that all
samplers are measured against the same point; the hypervolume after t trials is that of the
first t trials' values (Optuna's WFG algorithm, through :mod:`.optuna_compat`).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from vpbo_benchmarks.optuna_compat import hypervolume
from vpbo_benchmarks.registry import get_problem
from vpbo_benchmarks.report import mean_and_se
from vpbo_benchmarks.runner import load_results


def losses(record: dict[str, Any], directions: Sequence[str]) -> np.ndarray:
    """Trials x objectives, as losses; failed trials are dropped."""
    signs = np.array([1.0 if d == "minimize" else -1.0 for d in directions])
    rows = [v for v in record["values"] if v is not None]
    return np.array(rows, dtype=float).reshape(-1, len(directions)) * signs


def hypervolume_after(points: np.ndarray, reference: np.ndarray, n_trials: int) -> float:
    front = points[:n_trials]
    front = front[np.all(front < reference, axis=1)]
    return hypervolume(front, reference) if len(front) else 0.0


def hypervolume_table(out_dir: Path, problems: Sequence[str], samplers: Sequence[str], checkpoints: Sequence[int]) -> str:
    """Markdown: mean +- s.e. hypervolume after each checkpoint (trials) per problem and sampler."""
    lines = [
        "| problem | sampler | seeds | " + " | ".join(f"HV after {c} trials" for c in checkpoints) + " |",
        "|" + "---|" * (3 + len(checkpoints)),
    ]
    for problem in problems:
        directions = get_problem(problem).directions
        runs = {s: [losses(r, directions) for r in load_results(out_dir, problem, s)] for s in samplers}
        everything = [p for points in runs.values() for p in points if len(p)]
        if not everything:
            continue
        reference = np.max(np.vstack(everything), axis=0)
        for sampler, points in runs.items():
            if not points:
                continue
            cells = []
            for c in checkpoints:
                values = [hypervolume_after(p, reference, c) for p in points if len(p) >= c]
                mean, se = mean_and_se(np.array(values)) if values else (float("nan"), float("nan"))
                cells.append(f"{mean:.6g} ± {se:.2g}" if values else "-")  # fronts differ in the 4th digit
            lines.append(f"| {problem} | {sampler} | {len(points)} | " + " | ".join(cells) + " |")
    return "\n".join(lines)
