"""Command line: ``python -m optuna_vpbo.benchmarks {run,report} ...``."""

from __future__ import annotations

import argparse
from pathlib import Path

from optuna_vpbo.benchmarks.oracle import ORACLE
from optuna_vpbo.benchmarks.problems import PROBLEM_NAMES
from optuna_vpbo.benchmarks.report import regret_table
from optuna_vpbo.benchmarks.runner import run
from optuna_vpbo.benchmarks.samplers import SAMPLER_FACTORIES

DEFAULT_OUT = Path("docs/results")


def _names(text: str) -> list[str]:
    return [t.strip() for t in text.split(",") if t.strip()]


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m optuna_vpbo.benchmarks")
    commands = parser.add_subparsers(dest="command", required=True)
    for name in ("run", "report"):
        sub = commands.add_parser(name)
        sub.add_argument("--problems", type=_names, required=True, help=f"comma-separated, from {', '.join(PROBLEM_NAMES)}")
        sub.add_argument("--samplers", type=_names, required=True, help=f"comma-separated, from {', '.join([*SAMPLER_FACTORIES, ORACLE])}")
        sub.add_argument("--out", type=Path, default=DEFAULT_OUT, help="folder of the per-run JSON files")
    run_parser = commands.choices["run"]
    run_parser.add_argument("--seeds", type=int, default=10, help="seeds 0 .. N-1")
    run_parser.add_argument("--trials", type=int, default=224)
    run_parser.add_argument("--jobs", type=int, default=2, help="worker processes")
    report_parser = commands.choices["report"]
    report_parser.add_argument("--checkpoints", type=lambda s: [int(v) for v in _names(s)], default=[50, 100, 224])
    report_parser.add_argument("--time-from", type=int, default=24, help="first trial counted in the time column")
    args = parser.parse_args(argv)
    if args.command == "run":
        run(args.problems, args.samplers, range(args.seeds), args.trials, args.out, args.jobs)
    else:
        print(regret_table(args.out, args.problems, args.samplers, args.checkpoints, args.time_from))


if __name__ == "__main__":
    main()
