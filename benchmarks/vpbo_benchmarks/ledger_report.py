"""The ledger (``vpbo-benchmark report --sections ledger``): per problem of every set, the envelope check of
the defaults and of each opt-in that ran on every set, and every sampler's stuck seeds counted in
one report.

The envelope report (:mod:`.envelope_report`) reads one candidate against two references from at
most two folders, so its stuck seeds depend on which stored runs it reads: a sampler that reaches
a better combination makes the others' seeds stuck (docs/decisions.md, "How the figures were measured").
The ledger reads, per set, the references' folder and every variant's folder at once: the wrong
combinations come from all of them, and each variant's cells use the rule, the seeds and the copy
of the better reference of :func:`.envelope_report.envelope_cells`. The stored runs it reads are
named in :data:`LEDGER_SETS` (folders relative to the repository root).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from vpbo_benchmarks.envelope_report import (
    COPY_SEED,
    N_COPIES,
    PEERS,
    EnvelopeCell,
    EnvelopeRuns,
    envelope_cells,
    failure_counts,
    load_runs,
    share_above_peers,
    stuck_counts,
    stuck_seed_sets,
)
from vpbo_benchmarks.markdown import markdown_table
from vpbo_benchmarks.registry import GROUPS
from vpbo_benchmarks.suite_report import STUCK_TRIALS, metric_at, problem_spec

ADAPT = "benchmarks/results-adapt"


@dataclasses.dataclass(frozen=True)
class Variant:
    """A sampler whose runs the ledger checks: its column name, its folder and its label there."""

    name: str
    folder: str
    sampler: str


@dataclasses.dataclass(frozen=True)
class LedgerSet:
    """One set: its problems, the folder of the two references and the peers, the checkpoints, and
    the variants (the defaults first)."""

    name: str
    problems: tuple[str, ...]
    references_folder: str
    references: tuple[str, str]
    checkpoints: tuple[int, ...]
    variants: tuple[Variant, ...]


# The defaults' runs, stored under the setting that last joined them (the stall tolerance in
# conditional spaces); the paper suite, without a conditional space, reads the runs stored under
# the setting before it (a complete trial's fine tolerance in flat spaces), which are the same
# defaults there, trial for trial.
DEFAULTS = "vpbo:stall_tolerance=1e-06"
EARLIER_DEFAULTS = "vpbo:complete_repeat_fraction=1e-9"


def _variants(folder: str, conditional: bool = True) -> tuple[Variant, ...]:
    """The defaults: ``ADAPT/stall-tolerance/folder``, or for a set without a conditional space
    (``conditional`` False: the paper suite) ``ADAPT/complete-tolerance/folder``: the stall
    tolerance acts in conditional spaces only, so its runs there are the same, trial for trial.
    The opt-ins that ran on every set and did not ship (balanced design rows, a 10-trial design
    with one random trial in 8) and the defaults before the stall tolerance left the tree; the
    git history keeps their runs (benchmarks/README.md, "What gets stored")."""
    if conditional:
        return (Variant("the defaults", f"{ADAPT}/stall-tolerance/{folder}", DEFAULTS),)
    return (Variant("the defaults", f"{ADAPT}/complete-tolerance/{folder}", EARLIER_DEFAULTS),)


TUNING = (
    "func3c", "conditional_trap", "tilted_lattice", "hidden_pair", "shifted_ackley", "rotated_griewank",
    "mixed_int_ackley", "shifted_levy", "noisy_mlp", "shared_branches", "branch_choice", "decoy_funnel",
    "int_log_styblinski",
)
REST = (
    "conv_blocks", "hash_resonance", "hetero_branin", "lowrank_valley", "many_cats_levy", "many_levels_styblinski",
    "mlp_synthetic", "noisy_styblinski", "shifted_rastrigin", "signed_schwefel", "stacked_stages", "svr_diabetes",
)
PAPER = (
    "func2c", "func3c", "reizman_suzuki_1", "reizman_suzuki_2", "reizman_suzuki_3", "reizman_suzuki_4",
    "baumgartner", "svm_boston", "xg_mnist", "nas_like", "ackley53",
)
V1_V2 = ("vpbo-v1", "vpbo-v2")
LEDGER_SETS: tuple[LedgerSet, ...] = (
    LedgerSet("S (the tuning set)", TUNING, f"{ADAPT}/tuning", V1_V2, (25, 50, 100), _variants("tuning")),
    LedgerSet("adapt held-out", tuple(GROUPS["adapt_held_out"]), f"{ADAPT}/held-out", V1_V2, (25, 50, 100),
              _variants("held-out")),
    LedgerSet("final held-out", tuple(GROUPS["final_held_out"]), f"{ADAPT}/final", V1_V2, (25, 50, 100),
              _variants("final")),
    # The broad suite's `vpbo` runs are the every-seed defaults, `vpbo-v2` by the pinned name.
    LedgerSet("rest of the tuning half", REST, "benchmarks/results-suite", ("vpbo-v1", "vpbo"), (25, 50, 100), _variants("rest")),
    LedgerSet("paper suite", PAPER, f"{ADAPT}/paper", V1_V2, (25, 50, 100, 200), _variants("paper", conditional=False)),
)


@dataclasses.dataclass(frozen=True)
class ProblemLedger:
    """One problem: each variant's envelope cells, every sampler's (stuck seeds, seeds) and its mean
    metric at the set's last checkpoint (over its own seeds)."""

    problem: str
    cells: dict[str, list[EnvelopeCell]]
    stuck: dict[str, tuple[int, int]]
    last_means: dict[str, float]


def problem_ledger(
    root: Path, ledger_set: LedgerSet, problem: str, rng: np.random.Generator, n_copies: int = N_COPIES,
    peers: Sequence[str] = PEERS, stuck_trials: int = STUCK_TRIALS,
) -> ProblemLedger:
    """The ledger of one problem: every folder of ``ledger_set`` read once, the wrong combinations
    from all their runs."""
    spec, optimum, maximised = problem_spec(problem)
    folders = {ledger_set.references_folder, *(v.folder for v in ledger_set.variants)}
    by_folder = {folder: load_runs(root / folder, problem, maximised) for folder in sorted(folders)}
    stored = [r for runs in by_folder.values() for records in runs.values() for r in records]
    others = by_folder[ledger_set.references_folder]
    references = {r: others[r] for r in ledger_set.references if others.get(r)}
    named = {
        **references,
        **{v.name: by_folder[v.folder].get(v.sampler, []) for v in ledger_set.variants},
        **{p: others[p] for p in peers if others.get(p)},
    }
    cells = {}
    for v in ledger_set.variants:
        entry = EnvelopeRuns(spec, optimum, named[v.name], references, {}, stored)
        cells[v.name] = envelope_cells(entry, ledger_set.checkpoints, rng, n_copies, v.name)
    # Every named sampler as a peer of no candidate: the wrong combinations come from all the stored runs.
    stuck = stuck_counts(stuck_seed_sets(EnvelopeRuns(spec, optimum, [], {}, named, stored), "", stuck_trials))
    last = {s: metric_at(records, optimum, max(ledger_set.checkpoints)) for s, records in named.items()}
    return ProblemLedger(problem, cells, stuck, {s: float(np.mean(list(v.values()))) for s, v in last.items() if v})


def failing_text(cells: Sequence[EnvelopeCell]) -> str:
    """The failing cells as ``trial statistic`` (e.g. ``25 mean, 100 p90``), "none", or "-" (no cell)."""
    if not cells:
        return "-"
    failing = [f"{c.checkpoint} {s.statistic}" for c in cells for s in (c.mean, c.tail) if s.fails]
    return ", ".join(failing) if failing else "none"


def set_lines(ledger_set: LedgerSet, problems: Sequence[ProblemLedger], peers: Sequence[str] = PEERS) -> list[str]:
    """The Markdown section of one set: per problem the failing cells and the stuck seeds; totals."""
    variants = [v.name for v in ledger_set.variants]
    samplers = [*ledger_set.references, *variants, *peers]
    rows = []
    for p in problems:
        stuck = [f"{p.stuck[s][0]}/{p.stuck[s][1]}" if s in p.stuck else "-" for s in samplers]
        last = " / ".join(f"{p.last_means[s]:.4g}" if s in p.last_means else "-" for s in (variants[0], *peers))
        rows.append([p.problem, *(failing_text(p.cells[v]) for v in variants), *stuck, last])
    totals: list[str] = []
    for v in variants:
        cells = [c for p in problems for c in p.cells[v]]
        means, tails, copies = failure_counts(cells)
        totals.append(f"**{means + tails} of {2 * len(cells)}** (a copy {copies:.1f})")
    for s in samplers:
        stuck_seeds, seeds = _total([(ledger_set, list(problems))], [s])
        totals.append(f"**{stuck_seeds}**/{seeds}")
    rows.append(["total", *totals, ""])
    references = " and ".join(f"`{r}`" for r in ledger_set.references)
    return [
        f"## {ledger_set.name}",
        "",
        f"Checkpoints {', '.join(map(str, ledger_set.checkpoints))}; references {references} and peers from "
        f"`{ledger_set.references_folder}`; "
        + "; ".join(f"{v.name}: `{v.sampler}` in `{v.folder}`" for v in ledger_set.variants) + ".",
        "",
        *markdown_table(
            ["problem", *(f"failing: {v}" for v in variants), *(f"stuck: {s}" for s in samplers),
             f"mean at {max(ledger_set.checkpoints)}: {' / '.join((variants[0], *peers))}"], rows,
        ),
        "",
    ]


def ledger(
    root: Path, sets: Sequence[LedgerSet] = LEDGER_SETS, n_copies: int = N_COPIES, copy_seed: int = COPY_SEED,
) -> list[tuple[LedgerSet, list[ProblemLedger]]]:
    """Every set's problem ledgers (one generator for the copies, sets and problems in order)."""
    rng = np.random.default_rng(copy_seed)
    return [(s, [problem_ledger(root, s, problem, rng, n_copies) for problem in s.problems]) for s in sets]


def overall_lines(result: Sequence[tuple[LedgerSet, list[ProblemLedger]]]) -> list[str]:
    """Each variant's failing cells and stuck seeds over every set, the references' stuck seeds,
    every sampler's share of stuck seeds, and the problems that fail the per-problem stuck target."""
    variants = [v.name for v in result[0][0].variants]
    lines = []
    for v in variants:
        cells = [c for _, problems in result for p in problems for c in p.cells[v]]
        means, tails, copies = failure_counts(cells)
        stuck, _ = _total(result, [v] * len(result))
        lines.append(f"- {v}: {means + tails} of {2 * len(cells)} cells fail (a copy of the better reference {copies:.1f}); "
                     f"stuck seeds {stuck}.")
    first, second = (_total(result, [s.references[i] for s, _ in result]) for i in (0, 1))
    lines.append(f"- The references' stuck seeds: the robust defaults (`vpbo-v1`) {first[0]}, "
                 f"the every-seed defaults (`vpbo-v2`) {second[0]}.")
    defaults = variants[0]
    shares = {
        defaults: _total(result, [defaults] * len(result)), "`vpbo-v2`": second,
        **{PEER_NAMES.get(peer, peer): _total(result, [peer] * len(result)) for peer in PEERS},
    }
    lines.append(
        "- Shares of stuck seeds over every set: "
        + ", ".join(f"{name} {k}/{n} ({_percent(k, n)})" for name, (k, n) in shares.items())
        + f"; the total's target, half of `vpbo-v2`'s: {_percent(second[0], 2 * second[1])}."
    )
    above = [(s, p) for s, problems in result for p in problems if share_above_peers(p.stuck, defaults, PEERS) == "no"]
    lower = [_problem_name(p, s, result) for s, p in above if p.last_means.get(defaults, np.inf) < min(
        (p.last_means[peer] for peer in PEERS if peer in p.last_means), default=-np.inf)]
    lines.append(f"- Problems where {defaults}' share of stuck seeds is above the better of GPSampler's and TPE's: "
                 f"{len(above)}; on {len(lower)} of them {defaults}' mean at the last checkpoint is below both peers' "
                 f"({', '.join(lower) or 'none'}).")
    return lines


def _problem_name(p: ProblemLedger, ledger_set: LedgerSet, result: Sequence[tuple[LedgerSet, list[ProblemLedger]]]) -> str:
    """A problem's name, with its set's where another set holds the same problem (Func3C)."""
    sets = sum(p.problem in s.problems for s, _ in result)
    return f"{p.problem} in {ledger_set.name}" if sets > 1 else p.problem


# The peers' names in the ledger's sentences.
PEER_NAMES = {"gp": "GPSampler", "tpe-auto": "TPE"}


def _total(result: Sequence[tuple[LedgerSet, list[ProblemLedger]]], names: Sequence[str]) -> tuple[int, int]:
    """(stuck seeds, seeds run) of one sampler over every set (``names``: its name in each set)."""
    counts = [p.stuck[name] for (_, problems), name in zip(result, names) for p in problems if name in p.stuck]
    return sum(k for k, _ in counts), sum(n for _, n in counts)


def _percent(stuck: int, seeds: int) -> str:
    """A share as a percentage with one decimal ("-" without seeds)."""
    return f"{100 * stuck / seeds:.1f} %" if seeds else "-"


def write_ledger(path: Path, result: Sequence[tuple[LedgerSet, list[ProblemLedger]]], command: str) -> str:
    """Write the ledger's Markdown to ``path`` and return it."""
    lines = [
        "# The ledger: the envelope and stuck seeds per problem",
        "",
        "Generated; do not edit. Regenerate from the repository root: " + f"`{command}`.",
        "",
        "A failing cell is a checkpoint and statistic (mean, or 90th-percentile seed) where the variant is worse "
        "than the better of the two references by more than two standard errors of the difference "
        "(docs/suite.md, \"The envelope report\"). Stuck: seeds whose incumbent stays more than "
        f"{STUCK_TRIALS} trials on a wrong combination, out of the seeds run, every sampler of a set counted "
        "against the combinations that all its stored runs reached. The means: simple regret, or the value where "
        "no optimum is known (a maximised problem's negated). 20 seeds (GPSampler 10 or 20: each count gives its seeds); "
        "100 trials (the paper suite 224, Ackley-5-3 200).",
        "",
        "## Over every set",
        "",
        *overall_lines(result),
        "",
    ]
    for ledger_set, problems in result:
        lines += set_lines(ledger_set, problems)
    text = "\n".join(lines)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return text

