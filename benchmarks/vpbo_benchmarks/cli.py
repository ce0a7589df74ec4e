"""The command line, all of its wiring: ``vpbo-benchmark {list,run,report,table,docs,overhead} ...``
(also ``python -m vpbo_benchmarks ...``).

``list``, ``run`` and ``report`` take ``--kind``: which catalogue, which runs, which report; each
kind has its own options (``vpbo-benchmark report --kind envelope --help``). Each verb or kind has
a function that adds its parser and a handler that runs it; the modules they call know nothing of
argparse. Paths are relative to the folder the command runs in (the repository
root for the stored runs of ``benchmarks/``).
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import NoReturn, TypeAlias

from optuna_vpbo import VPBOSampler
from vpbo_benchmarks import (
    catalogue,
    doc_tables,
    envelope_report,
    ledger_report,
    overhead,
    repeats_report,
    suite_report,
    trial_kinds,
    trial_state_runs,
    trial_states,
    trial_states_report,
)
from vpbo_benchmarks.hypervolume import hypervolume_table
from vpbo_benchmarks.oracle import ORACLE
from vpbo_benchmarks.plots import SMOOTH_WINDOW, write_figures
from vpbo_benchmarks.registry import GROUPS, PROBLEM_NAMES, PROBLEM_SETS, expand_groups
from vpbo_benchmarks.report import REPORT_NAME, collect, default_checkpoints, write_report
from vpbo_benchmarks.runner import run
from vpbo_benchmarks.samplers import SAMPLER_FACTORIES

DEFAULT_OUT = Path("benchmarks/results")
DEFAULT_OVERHEAD_OUT = Path("benchmarks/results-overhead")
LEDGER_NAME = "ledger.md"  # docs/ledger.md: `report --kind ledger --out docs`
# The extra of benchmarks/pyproject.toml that brings each optional top-level module the commands
# import: the heavy peers only (every other module is a dependency of the lab).
EXTRA_OF_MODULE = dict.fromkeys(["cmaes", "ax", "botorch", "gpytorch", "torch"], "peers")

Subcommands: TypeAlias = "argparse._SubParsersAction[argparse.ArgumentParser]"
Handler = Callable[[argparse.Namespace], None]


def names(text: str) -> list[str]:
    """A comma-separated list."""
    return [t.strip() for t in text.split(",") if t.strip()]


def integers(text: str) -> list[int]:
    """A comma-separated list of integers."""
    return [int(v) for v in names(text)]


def exit_for_missing_module(error: ModuleNotFoundError) -> NoReturn:
    """Exit with the extra to install when ``error`` is an optional dependency; else re-raise."""
    module = (error.name or "").partition(".")[0]
    extra = EXTRA_OF_MODULE.get(module)
    if extra is None:
        raise error
    raise SystemExit(
        f"vpbo-benchmark: the optional dependency {module!r} is not installed ({error}); "
        f'install the "{extra}" extra: pip install "optuna-vpbo-benchmarks[{extra}]" '
        f'(from a clone, at the repository root: pip install "./benchmarks[{extra}]")'
    ) from None


def main(argv: list[str] | None = None) -> None:
    """The console script: the verb's handler, with a one-line message for a missing optional
    dependency and a quiet exit when the reader of stdout goes away (``vpbo-benchmark list | head``)."""
    try:
        dispatch(argv)
        sys.stdout.flush()  # a closed pipe shows here, inside the handler
    except ModuleNotFoundError as missing:
        exit_for_missing_module(missing)
    except BrokenPipeError:
        # Python would flush stdout again at exit and print the error: point it at /dev/null.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        sys.exit(128 + 13)  # as a process killed by SIGPIPE reports


def dispatch(argv: list[str] | None) -> None:
    """Parse ``argv`` and run its verb; ``table`` parses its own arguments (``docs`` reads the same
    arguments from the pages), and ``list``, ``run`` and ``report`` hand the rest to their kind's parser."""
    parser, handlers = build_parser()
    args, rest = parser.parse_known_args(argv)
    if args.command == "table":
        print(doc_tables.render_table(rest))
        return
    if args.command in KIND_VERBS and args.help:
        if not any(a == "--kind" or a.startswith("--kind=") for a in (sys.argv[1:] if argv is None else argv)):
            handlers[args.command](args)  # the verb's help: its kinds
            return
        rest.append("--help")
    if args.command in KIND_VERBS:
        run_kind(args.command, args.kind, rest)
        return
    if rest:
        parser.error(f"unrecognized arguments: {' '.join(rest)}")
    handlers[args.command](args)


class KindParsers:
    """The parsers of one verb's kinds: ``add_parser`` as ``add_subparsers()`` has it, but each
    kind's parser stands alone (``vpbo-benchmark report --kind envelope ...``)."""

    def __init__(self, verb: str) -> None:
        self.verb = verb
        self.parsers: dict[str, argparse.ArgumentParser] = {}
        self.helps: dict[str, str] = {}

    def add_parser(self, kind: str, help: str = "", description: str | None = None) -> argparse.ArgumentParser:  # noqa: A002
        parser = argparse.ArgumentParser(
            prog=f"vpbo-benchmark {self.verb} --kind {kind}", description=description or help,
            formatter_class=argparse.RawDescriptionHelpFormatter,
        )
        self.parsers[kind] = parser
        self.helps[kind] = help
        return parser


def kinds_of(verb: str) -> tuple[KindParsers, dict[str, Handler]]:
    """The parsers and handlers of ``verb``'s kinds."""
    kinds = KindParsers(verb)
    handlers: dict[str, Handler] = {}
    for add in KIND_VERBS[verb][1]:
        handlers.update(add(kinds))  # type: ignore[arg-type]
    return kinds, handlers


def run_kind(verb: str, kind: str, rest: list[str]) -> None:
    """Parse ``rest`` with the parser of ``verb --kind kind`` and run its handler."""
    kinds, handlers = kinds_of(verb)
    args = kinds.parsers[kind].parse_args(rest)
    handlers[kind](args)


def typed_command(verb: str) -> str:
    """The command as typed (for the report's header) when the console script runs ``verb``, else ``""``."""
    return "vpbo-benchmark " + " ".join(sys.argv[1:]) if sys.argv[1:2] == [verb] else ""


def add_kind_verb(commands: Subcommands, verb: str) -> argparse.ArgumentParser:
    """``verb`` with ``--kind``: its help lists each kind; the kind's own options are the kind's ``--help``."""
    summary, _, default, description, example = KIND_VERBS[verb]
    kinds, _ = kinds_of(verb)
    lines = [f"  {kind:<13} {kinds.helps[kind]}" for kind in kinds.parsers]
    parser = commands.add_parser(
        verb, help=summary, formatter_class=argparse.RawDescriptionHelpFormatter,
        description=f"{description}\n\nkinds (--kind; default {default}):\n" + "\n".join(lines)
        + f"\n\nEach kind's options: vpbo-benchmark {verb} --kind KIND --help\nExample: {example}",
        add_help=False,
    )
    parser.add_argument("--kind", choices=list(kinds.parsers), default=default, help=f"what to {verb} (default {default})")
    parser.add_argument("-h", "--help", action="store_true", help="this help, or with --kind that kind's options")
    return parser


def help_printer(parser: argparse.ArgumentParser) -> Handler:
    """The handler that prints ``parser``'s help (of a verb with kinds, run without --kind)."""
    return lambda _args: parser.print_help()


def build_parser() -> tuple[argparse.ArgumentParser, dict[str, Handler]]:
    """The parser of every verb, and each verb's handler (those of ``list``, ``run`` and ``report``
    are their kinds', see ``run_kind``)."""
    parser = argparse.ArgumentParser(
        prog="vpbo-benchmark", description="Benchmarks of VPBOSampler: run problems, store the runs, report on them. "
        "Paths are relative to the folder the command runs in (the repository root for the stored runs of benchmarks/).",
    )
    commands = parser.add_subparsers(dest="command", required=True)
    handlers: dict[str, Handler] = {}
    for verb in KIND_VERBS:
        handlers[verb] = help_printer(add_kind_verb(commands, verb))
    commands.add_parser(
        "table", help="one condensed Markdown table of stored runs, printed (see `table --help`)", add_help=False
    )
    for add in (add_docs, add_overhead):
        handlers.update(add(commands))
    return parser, handlers


# --------------------------------------------------------------------------------------------
# list, docs
# --------------------------------------------------------------------------------------------


def add_list(commands: Subcommands) -> dict[str, Handler]:
    parser = commands.add_parser(
        "problems", help="the problems (search space, optimum), their groups and sets, and the samplers",
        description="The problems, their groups and the samplers. A problem's space is what "
        f"{catalogue.PROBES} random trials of it show, as stored with the lab (--probe: run them now).",
    )
    parser.add_argument(
        "--problems", type=names, default=list(PROBLEM_NAMES), help="only these problems (or groups, e.g. numeric)"
    )
    parser.add_argument(
        "--probe", action="store_true",
        help="probe each problem's space now rather than read the stored catalogue (seconds per problem)",
    )
    return {"problems": list_problems_and_samplers}


def list_problems_and_samplers(args: argparse.Namespace) -> None:
    print(f"Problems (space from {catalogue.PROBES} random probe trials):\n")
    print("\n".join(catalogue.problem_lines(expand_groups(args.problems), probe=args.probe)))
    print("\nGroups (for --problems, and report --kind suite --half):\n")
    print("\n".join(f"{group}: {', '.join(members)}" for group, members in GROUPS.items()))
    print("\nProblem sets (groups frozen by a rule):\n")
    print("\n".join(f"{s.name} (frozen {s.frozen}): {s.rule}" for s in PROBLEM_SETS.values()))
    print("\nSamplers:\n")
    print("\n".join(catalogue.sampler_lines()))


def add_verb(commands: Subcommands, verb: str, summary: str, description: str, example: str) -> argparse.ArgumentParser:
    """The parser of ``verb``: its one-line ``summary``, and a help of its ``description`` and an ``example``."""
    return commands.add_parser(
        verb, help=summary, formatter_class=argparse.RawDescriptionHelpFormatter,
        description=f"{description}\n\nExample: {example}",
    )


def add_docs(commands: Subcommands) -> dict[str, Handler]:
    parser = add_verb(
        commands, "docs", "regenerate every marked table of README.md and docs/*.md from the stored runs",
        "Each marked table of README.md and docs/*.md names the `vpbo-benchmark table` command that made it; "
        "docs reruns each over the stored runs under benchmarks/ and rewrites the table in place (--check: only "
        "compares, exit 1 when a page is out of date).", "vpbo-benchmark docs --check",
    )
    parser.add_argument("--root", type=Path, default=Path("."), help="the repository")
    parser.add_argument("--check", action="store_true", help="only list the pages that are out of date (exit 1)")
    return {"docs": docs}


def docs(args: argparse.Namespace) -> None:
    """Regenerate (or with --check, only compare) the marked tables of the pages."""
    changed = doc_tables.regenerate_docs(args.root, check=args.check)
    for page in changed:
        print(f"{'out of date' if args.check else 'rewrote'}: {page}")
    if args.check and changed:
        raise SystemExit(1)
    if not changed:
        print("every marked table is up to date")


# --------------------------------------------------------------------------------------------
# run, report --kind full, hypervolume, overhead
# --------------------------------------------------------------------------------------------


def add_problems_samplers_out(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--problems", type=names, required=True, help=f"comma-separated, from {', '.join(PROBLEM_NAMES)}")
    parser.add_argument(
        "--samplers", type=names, required=True, help=f"comma-separated, from {', '.join([*SAMPLER_FACTORIES, ORACLE])}"
    )
    parser.add_argument(
        "--out", type=Path, default=DEFAULT_OUT, help="folder of the stored runs (a compressed file per problem and sampler)"
    )


def add_run(commands: Subcommands) -> dict[str, Handler]:
    parser = commands.add_parser(
        "problems", help="run every missing (problem, sampler, seed) and store it under --out (interrupted runs resume)"
    )
    add_problems_samplers_out(parser)
    parser.add_argument("--seeds", type=int, default=10, help="seeds 0 .. N-1")
    parser.add_argument("--trials", type=int, default=224)
    parser.add_argument("--jobs", type=int, default=2, help="worker processes")
    parser.add_argument(
        "--progress", action=argparse.BooleanOptionalAction, default=None,
        help="progress bars on stderr (default: when stderr is a terminal)",
    )
    return {"problems": run_benchmarks}


def run_benchmarks(args: argparse.Namespace) -> None:
    run(expand_groups(args.problems), args.samplers, range(args.seeds), args.trials, args.out, args.jobs, args.progress)


def add_report(commands: Subcommands) -> dict[str, Handler]:
    parser = commands.add_parser(
        "full", help="full Markdown report and figures of stored runs, written under --out",
        description="Tables of the stored runs of --out into <out>/REPORT.md (printed too) and their figures into "
        "<out>/figures; nothing is written outside --out unless --figures says so.",
    )
    add_problems_samplers_out(parser)
    parser.add_argument(
        "--checkpoints", type=integers, default=None,
        help="iterations after the initial design (t = trial - n-init) for the tables; default: 25, 50, 100, 200, "
        "... as far as the longest run goes, and its last trial",
    )
    parser.add_argument(
        "--n-init", type=int, default=0,
        help="trials counted as the initial design, before iteration 1 (default 0: iterations are trial numbers; "
        "the paper's protocol: 24)",
    )
    parser.add_argument("--figures", type=Path, default=None, help="folder of the PNG figures (default <out>/figures)")
    parser.add_argument("--window", type=int, default=SMOOTH_WINDOW, help="smoothing window (iterations)")
    parser.add_argument("--seeds", type=int, default=None, help="only seeds 0 .. N-1 (default: all stored)")
    parser.add_argument("--report-name", default=REPORT_NAME, help="file name of the Markdown report in --out (e.g. ABLATION.md)")
    return {"full": report}


def report(args: argparse.Namespace) -> None:
    """Tables into <out>/REPORT.md (printed too) and the figures into --figures (<out>/figures)."""
    notes: list[str] = []
    collected = collect(args.out, args.problems, args.samplers, notes, args.seeds)
    checkpoints = default_checkpoints(collected, args.n_init) if args.checkpoints is None else args.checkpoints
    figures_folder = args.out / "figures" if args.figures is None else args.figures
    figures = write_figures(collected, figures_folder, args.samplers, notes, args.n_init, args.window)
    print(write_report(args.out / args.report_name, collected, args.samplers, checkpoints, figures, notes, args.n_init))


def add_hypervolume(commands: Subcommands) -> dict[str, Handler]:
    parser = commands.add_parser("hypervolume", help="hypervolume table of multi-objective runs of --out, printed")
    parser.add_argument("--problems", type=names, required=True)
    parser.add_argument("--samplers", type=names, required=True)
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    parser.add_argument("--checkpoints", type=integers, default=[50, 100])
    return {"hypervolume": lambda args: print(hypervolume_table(args.out, args.problems, args.samplers, args.checkpoints))}


def add_overhead(commands: Subcommands) -> dict[str, Handler]:
    parser = add_verb(
        commands, "overhead", "sampler time per trial against n and C: measure and store, or (--plot) tabulate a stored run",
        "Times each sampler's suggestion at every size of --sizes, stores the run as <out>/<file>, prints its "
        "table and draws its figures into --figures (<out>/figures). With --plot: no timing, only the table and figures "
        "of the stored run.", "vpbo-benchmark overhead --plot --figures /tmp/figures",
    )
    parser.add_argument("--cases", type=names, default=list(overhead.CASES))
    parser.add_argument("--samplers", type=names, default=["vpbo", "gp", "tpe"])
    parser.add_argument("--sizes", type=integers, default=[50, 100, 200, 500, 1000])
    parser.add_argument("--window", type=int, default=overhead.DEFAULT_WINDOW, help="trials timed per measurement")
    parser.add_argument("--jobs", type=int, default=1, help="processes (1: no interference between timings)")
    parser.add_argument("--gp-max-trials", type=int, default=overhead.DEFAULT_GP_MAX_TRIALS, help="largest n timed for GPSampler")
    parser.add_argument("--plot", action="store_true", help="no timing: the table and figures of the stored run")
    parser.add_argument("--out", type=Path, default=DEFAULT_OVERHEAD_OUT, help="folder of the overhead JSON file")
    parser.add_argument("--figures", type=Path, default=None, help="folder of the PNG figures (default <out>/figures)")
    parser.add_argument(
        "--file", default=overhead.OVERHEAD_FILE, help="name of the JSON file in --out; its stem prefixes the figures"
    )
    return {"overhead": lambda args: overhead_report(args) if args.plot else measure_overhead(args)}


def measure_overhead(args: argparse.Namespace) -> None:
    """Time the samplers, store the run, then its table and figures."""
    # GEMM speed before and after the measurements; the floor takes the faster (a lower bound).
    flops_before = overhead.gemm_flops_per_second()
    results = overhead.run_grid(args.cases, args.samplers, args.sizes, args.window, args.jobs, args.gp_max_trials)
    settings = VPBOSampler().settings
    flops = max(flops_before, overhead.gemm_flops_per_second())
    overhead.save_results(args.out / args.file, results, flops, settings.n_candidates, settings.max_enumerated_combinations)
    overhead_report(args)


def overhead_report(args: argparse.Namespace) -> None:
    """The table of the stored overhead run (printed) and its figures."""
    results, record = overhead.load_results(args.out / args.file)
    flops = record["gemm_flops_per_second"]
    print(f"single-thread GEMM: {flops / 1e9:.1f} GFlop/s")
    print(overhead.overhead_table(results, flops, record["n_candidates"], record["max_enumerated_combinations"]))
    figures = args.out / "figures" if args.figures is None else args.figures
    for path in overhead.write_figures(results, figures, Path(args.file).stem):
        print(f"wrote {path}")


# --------------------------------------------------------------------------------------------
# report --kind suite, envelope, ledger, repeats, trial-kinds
# --------------------------------------------------------------------------------------------


def add_suite_report(commands: Subcommands) -> dict[str, Handler]:
    parser = commands.add_parser(
        "suite", help="tables of the broad suite (one half or --problems) of --out, into --report and printed"
    )
    parser.add_argument("--half", choices=sorted(GROUPS), default="held_out")
    parser.add_argument(
        "--problems", type=names, default=None,
        help="any registered problems instead of a half (e.g. the paper suite); --half then only names the report",
    )
    parser.add_argument("--samplers", type=names, required=True)
    parser.add_argument("--out", type=Path, required=True, help="folder of the per-run JSON files")
    parser.add_argument("--report", type=Path, default=None, help="Markdown file (default <out>/SUITE-<half>.md)")
    parser.add_argument("--checkpoints", type=integers, default=list(suite_report.SUITE_CHECKPOINTS))
    parser.add_argument("--reference", default=suite_report.DEFAULT_REFERENCE)
    parser.add_argument("--stuck-trials", type=int, default=suite_report.STUCK_TRIALS)
    parser.add_argument("--seeds", type=int, default=None, help="only seeds 0 .. N-1")
    return {"suite": write_suite_report}


def write_suite_report(args: argparse.Namespace) -> None:
    """The report of one half (or of --problems), written and printed."""
    label = "selected-problems" if args.problems else args.half
    path = args.report or args.out / f"SUITE-{label}.md"
    collected = suite_report.collect_suite(args.out, args.problems or GROUPS[args.half], args.samplers, args.seeds)
    command = typed_command("report")
    print(suite_report.write_suite_report(path, collected, label, args.checkpoints, args.reference, args.stuck_trials, command))


def add_envelope(commands: Subcommands) -> dict[str, Handler]:
    parser = commands.add_parser(
        "envelope", help="a candidate against the better of two references per problem and checkpoint, into --report"
    )
    parser.add_argument("--candidate", required=True, help="the candidate sampler's name in --out")
    parser.add_argument("--out", type=Path, required=True, help="folder of the candidate's runs")
    parser.add_argument("--references", type=names, default=list(envelope_report.REFERENCES), help="two sampler names")
    parser.add_argument(
        "--references-out", type=Path, default=None, help="folder of the references' and peers' runs (default --out)"
    )
    parser.add_argument("--problems", type=names, required=True, help="problems and groups (each group is a set of the report)")
    parser.add_argument("--peers", type=names, default=list(envelope_report.PEERS), help="whose stuck seeds stand beside")
    parser.add_argument("--checkpoints", type=integers, default=list(envelope_report.CHECKPOINTS))
    parser.add_argument("--seeds", type=int, default=None, help="only seeds 0 .. N-1")
    parser.add_argument("--stuck-trials", type=int, default=suite_report.STUCK_TRIALS)
    parser.add_argument("--copies", type=int, default=envelope_report.N_COPIES, help="bootstrap resamples of the copy")
    parser.add_argument("--copy-seed", type=int, default=envelope_report.COPY_SEED)
    parser.add_argument("--report", type=Path, default=None, help="Markdown file (default <out>/ENVELOPE-<candidate>.md)")
    return {"envelope": write_envelope}


def write_envelope(args: argparse.Namespace) -> None:
    """The envelope report, written and printed."""
    if len(args.references) != 2:
        raise SystemExit("vpbo-benchmark report --kind envelope: --references takes two sampler names")
    result = envelope_report.envelope(
        args.out, args.references_out or args.out, args.problems, args.candidate, args.references, args.peers,
        args.checkpoints, args.seeds, args.stuck_trials, args.copies, args.copy_seed,
    )
    path = args.report or args.out / f"ENVELOPE-{args.candidate}.md"
    command = typed_command("report")
    print(envelope_report.write_envelope_report(path, result, command))


def add_ledger(commands: Subcommands) -> dict[str, Handler]:
    parser = commands.add_parser(
        "ledger", help="per problem of every problem set, the envelope and the stuck seeds in one report (--report)"
    )
    parser.add_argument("--root", type=Path, default=Path("."), help="the repository root (the stored runs' folders)")
    parser.add_argument(
        "--out", type=Path, required=True, help=f"folder of the report, {LEDGER_NAME} (docs: the published ledger)"
    )
    parser.add_argument("--report", type=Path, default=None, help=f"Markdown file (default <out>/{LEDGER_NAME})")
    parser.add_argument("--copies", type=int, default=envelope_report.N_COPIES, help="bootstrap resamples of the copy")
    return {"ledger": write_ledger}


def write_ledger(args: argparse.Namespace) -> None:
    """The ledger, written; its summary printed."""
    result = ledger_report.ledger(args.root, n_copies=args.copies)
    command = typed_command("report") or "vpbo-benchmark report --kind ledger --out docs"
    ledger_report.write_ledger(args.report or args.out / LEDGER_NAME, result, command)
    print("\n".join(ledger_report.overall_lines(result)))


def add_repeats(commands: Subcommands) -> dict[str, Handler]:
    parser = commands.add_parser("repeats", help="how often each sampler evaluated a configuration again, into --report")
    parser.add_argument("--out", type=Path, required=True, help="folder of stored runs")
    parser.add_argument("--problems", type=names, required=True)
    parser.add_argument("--samplers", type=names, default=None, help="only these samplers (default: every stored one)")
    parser.add_argument("--report", type=Path, default=None, help="Markdown file (default <out>/REPEATS.md)")
    return {"repeats": write_repeats}


def write_repeats(args: argparse.Namespace) -> None:
    """The repeats report, written and printed."""
    rows = repeats_report.repeat_rows(args.out, expand_groups(args.problems), args.samplers)
    command = typed_command("report")
    print(repeats_report.write_repeats_report(args.report or args.out / "REPEATS.md", rows, command))


def add_trial_kinds(commands: Subcommands) -> dict[str, Handler]:
    parser = commands.add_parser(
        "trial-kinds", help="how often each kind of VPBO trial (model, exploring, perturbing) beat the run's best, printed"
    )
    parser.add_argument("--out", type=Path, required=True, help="folder of stored runs")
    parser.add_argument("--problems", type=names, required=True)
    parser.add_argument("--sampler", default="vpbo", help="the stored sampler's name")
    parser.add_argument("--late", type=int, default=50, help="the second count starts at this trial")
    parser.add_argument("--n-startup", type=int, default=16, help="the replayed initial design")
    parser.add_argument("--stall-trials", type=int, default=10, help="the replayed stall")
    parser.add_argument("--no-perturbation", action="store_true", help="replay without perturbing trials")
    parser.add_argument("--perturbation-backoff", type=int, default=4, help="the replayed perturbation backoff (0: none)")
    parser.add_argument(
        "--stall-tolerance", type=float, default=1e-6, help="the replayed stall tolerance of conditional spaces (0: none)"
    )
    return {"trial-kinds": print_trial_kinds}


def print_trial_kinds(args: argparse.Namespace) -> None:
    schedule = trial_kinds.Schedule(
        args.n_startup, args.stall_trials, not args.no_perturbation, args.perturbation_backoff, args.stall_tolerance
    )
    print(trial_kinds.kinds_table(args.out, expand_groups(args.problems), args.sampler, args.late, schedule))


# list, run, report --kind trial-states
# --------------------------------------------------------------------------------------------


def add_trial_states_list(commands: Subcommands) -> dict[str, Handler]:
    commands.add_parser("trial-states", help="the pruned-and-failed-trial tasks: their half or set, family and space")
    return {"trial-states": lambda _args: print("\n".join(trial_state_runs.problem_lines()))}


def add_trial_states_run(commands: Subcommands) -> dict[str, Handler]:
    run_parser = commands.add_parser(
        "trial-states", help="run every missing (task, sampler, seed) of the pruned-and-failed-trial tasks, store it"
    )
    run_parser.add_argument(
        "--problems", type=names, default=["all"],
        help="names, or tuning / held_out / all (both halves) / misleading / fresh_pruning (the later sets)",
    )
    run_parser.add_argument("--samplers", type=names, required=True)
    run_parser.add_argument("--seeds", type=int, default=10, help="seeds 0 .. N-1")
    run_parser.add_argument("--trials", type=int, default=100)
    run_parser.add_argument("--jobs", type=int, default=2, help="worker processes")
    run_parser.add_argument("--out", type=Path, default=trial_states.DEFAULT_OUT)
    run_parser.add_argument("--progress", action=argparse.BooleanOptionalAction, default=None)
    return {"trial-states": run_trial_states}


def run_trial_states(args: argparse.Namespace) -> None:
    trial_state_runs.run_trial_states(
        trial_states.resolve_problems(args.problems), args.samplers, range(args.seeds), args.trials, args.out,
        args.jobs, args.progress,
    )


def add_trial_states_report(commands: Subcommands) -> dict[str, Handler]:
    parser = commands.add_parser(
        "trial-states", help="Markdown tables of the stored pruned-and-failed-trial runs, per half or set, under --out"
    )
    parser.add_argument(
        "--out", type=Path, default=trial_states.DEFAULT_OUT, help="folder of the stored runs; the reports go there"
    )
    parser.add_argument(
        "--half", choices=["both", *trial_states_report.REPORT_FILES],
        default="both", help="both: tuning and held_out; misleading, fresh_pruning: the later sets",
    )
    parser.add_argument("--problems", type=names, default=None, help="only these problems (of the half)")
    parser.add_argument("--samplers", type=names, default=None, help="in this order (default: every stored sampler)")
    parser.add_argument("--reference", default=trial_states_report.REFERENCE)
    parser.add_argument("--checkpoints", type=integers, default=list(trial_states_report.CHECKPOINTS))
    parser.add_argument(
        "--compute-peers", type=names, default=None, help="equal compute against these peers (default: every one)"
    )
    parser.add_argument(
        "--design-trials", type=int, default=trial_states_report.DESIGN_TRIALS, help="failed share counted from this trial number"
    )
    parser.add_argument("--seeds", type=int, default=None, help="only seeds 0 .. N-1")
    return {"trial-states": write_trial_states_reports}


def write_trial_states_reports(args: argparse.Namespace) -> None:
    halves = ["tuning", "held_out"] if args.half == "both" else [args.half]
    paths = trial_states_report.write_reports(
        args.out, halves, args.problems, args.samplers, args.seeds, args.reference, args.checkpoints,
        args.compute_peers, args.design_trials, typed_command("report"),
    )
    for path in paths:
        print(f"wrote {path}")


# --------------------------------------------------------------------------------------------
# the verbs with kinds
# --------------------------------------------------------------------------------------------

AddKind = Callable[[Subcommands], dict[str, Handler]]
# verb: (its one-line help, the functions that add its kinds, the default kind, description, example)
KIND_VERBS: dict[str, tuple[str, tuple[AddKind, ...], str, str, str]] = {
    "list": (
        "the problems, groups, problem sets and samplers (or the trial-state tasks)",
        (add_list, add_trial_states_list), "problems",
        "Prints what the lab can run: reads the lab's registry and its stored catalogue; writes nothing.",
        "vpbo-benchmark list --problems numeric",
    ),
    "run": (
        "run every missing (problem, sampler, seed) and store it under --out",
        (add_run, add_trial_states_run), "problems",
        "Runs each (problem, sampler, seed) that --out does not hold yet and stores it there (a compressed file per "
        "problem and sampler; interrupted runs resume).",
        "vpbo-benchmark run --problems func2c --samplers vpbo,random --seeds 2 --trials 30 --out /tmp/runs",
    ),
    "report": (
        "a report of stored runs: --kind full|suite|envelope|ledger|repeats|trial-kinds|hypervolume|trial-states",
        (add_report, add_suite_report, add_envelope, add_ledger, add_repeats, add_trial_kinds, add_hypervolume,
         add_trial_states_report), "full",
        "Reads the stored runs of --out (the ledger: of every stored folder under --root) and writes its Markdown "
        "report where --report (or --out) says, printing it too; hypervolume and trial-kinds only print.",
        "vpbo-benchmark report --problems func2c --samplers vpbo,random --out /tmp/runs",
    ),
}
