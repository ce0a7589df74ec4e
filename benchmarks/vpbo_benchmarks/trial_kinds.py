"""What each kind of trial paid: ``vpbo-benchmark report --sections trial-kinds``.

The stored runs keep values, not the sampler's diagnostics, so the kinds are replayed from the
values with the defaults' schedule (the stall safeguard of ``VPBOSettings``, its tolerance in
conditional spaces included, written anew here from its documentation; the tests check it against
the sampler's own diagnostics): the initial design (the first ``n_startup`` trials), then, once the
best trial is ``stall_trials`` trials old, each trial is a turn of the stalled study (counted from
its incumbent): the odd turns explore (least observed combinations) and, in a flat space, turns 2,
6, 10, ... perturb (every 4th, the period doubled per ``perturbation_backoff`` perturbing trials in
a row that did not beat the best); every other trial is the model's. A run of other settings is
replayed with the settings given. A trial pays when it beats every earlier trial of its run
(observed values, loss terms). Pruned and failed trials count as trials that did not pay.
"""

from __future__ import annotations

import dataclasses
import math
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

from vpbo_benchmarks.markdown import markdown_table
from vpbo_benchmarks.records import Record, load_problem
from vpbo_benchmarks.suite_report import as_loss, problem_spec

KINDS = ("model", "explore", "perturb")


@dataclasses.dataclass(frozen=True)
class Schedule:
    """The settings the replay follows: the defaults' unless told otherwise."""

    n_startup: int = 16
    stall_trials: int = 10
    perturbation: bool = True
    perturbation_backoff: int = 4
    stall_tolerance: float = 1e-6


def observed_losses(record: Record) -> list[float]:
    """The run's observed first-objective values in trial order (NaN: no value)."""
    return [math.nan if not v or v[0] is None else float(v[0]) for v in record["values"]]


def is_flat(record: Record) -> bool:
    """Whether every trial of the (expanded) run set the same stored parameters: a conditional
    space's trials leave their inactive parameters out."""
    return len({frozenset(params) for params in record.get("params", [])}) <= 1


def replay_kinds(losses: Sequence[float], flat: bool, schedule: Schedule = Schedule()) -> list[str]:
    """Each trial's kind (``"design"`` or one of ``KINDS``) under ``schedule``; the age of the
    best trial counts trials with a value, as the sampler counts complete trials, and so does the
    run of perturbing trials that did not pay. In a conditional space an improvement of less than
    ``stall_tolerance`` times the range of the losses so far does not reset the age (the sampler
    measures it on the observed values too, once it models the space as conditional: from 10
    complete trials on, inside the defaults' 16-trial design)."""
    tolerance = 0.0 if flat else schedule.stall_tolerance
    low, high = math.inf, -math.inf
    kinds, best, best_position, position, unpaid, turn = [], math.inf, -1, 0, 0, 0
    for number, loss in enumerate(losses):
        stalled = best_position >= 0 and 0 < schedule.stall_trials <= position - 1 - best_position
        backoff = schedule.perturbation_backoff
        period = 4 << (min(unpaid // backoff, 10) if backoff > 0 else 0)
        if number < schedule.n_startup:
            kinds.append("design")
        elif stalled and turn % 2 == 1:
            kinds.append("explore")
        elif stalled and flat and schedule.perturbation and turn % period == 2:
            kinds.append("perturb")
            if not math.isnan(loss):
                unpaid = 0 if loss < best else unpaid + 1
        else:
            kinds.append("model")
        turn += int(stalled and number >= schedule.n_startup)
        if not math.isnan(loss):
            low, high = min(low, loss), max(high, loss)
            if loss < best:
                if best == math.inf or best - loss > tolerance * (high - low):
                    best_position, turn = position, 0
                best = loss
            position += 1
    return kinds


@dataclasses.dataclass
class KindCounts:
    """Trials and paying trials per kind, overall and from trial ``late`` on."""

    trials: Counter[str] = dataclasses.field(default_factory=Counter)
    paid: Counter[str] = dataclasses.field(default_factory=Counter)
    late_trials: Counter[str] = dataclasses.field(default_factory=Counter)
    late_paid: Counter[str] = dataclasses.field(default_factory=Counter)

    def add(self, losses: Sequence[float], kinds: Sequence[str], late: int) -> None:
        best = math.inf
        for number, (loss, kind) in enumerate(zip(losses, kinds)):
            pays = not math.isnan(loss) and loss < best and not math.isinf(best)
            self.trials[kind] += 1
            self.paid[kind] += pays
            if number >= late:
                self.late_trials[kind] += 1
                self.late_paid[kind] += pays
            if not math.isnan(loss):
                best = min(best, loss)


def problem_counts(out_dir: Path, problem: str, sampler: str, late: int, schedule: Schedule) -> KindCounts | None:
    """The counts over every stored run of ``sampler`` on ``problem`` (None: no run)."""
    runs = load_problem(out_dir, problem).get(sampler, [])
    if not runs:
        return None
    maximised = problem_spec(problem)[2]
    counts = KindCounts()
    for record in runs:
        losses = observed_losses(as_loss(record) if maximised else record)
        counts.add(losses, replay_kinds(losses, is_flat(record), schedule), late)
    return counts


def _cell(paid: int, trials: int) -> str:
    return f"{paid} of {trials}" if trials else "-"


def kinds_table(out_dir: Path, problems: Sequence[str], sampler: str, late: int, schedule: Schedule = Schedule()) -> str:
    """Per problem and kind: trials that paid, over the whole runs and from trial ``late`` on."""
    header = ["problem", *(f"{k}: paid" for k in KINDS), *(f"{k}: paid from trial {late}" for k in KINDS)]
    rows = []
    for problem in problems:
        counts = problem_counts(out_dir, problem, sampler, late, schedule)
        if counts is None:
            continue
        rows.append([
            problem,
            *(_cell(counts.paid[k], counts.trials[k]) for k in KINDS),
            *(_cell(counts.late_paid[k], counts.late_trials[k]) for k in KINDS),
        ])
    return "\n".join(markdown_table(header, rows))
