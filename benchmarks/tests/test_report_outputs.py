"""Every report writes only under its ``--out`` (or where ``--report`` / ``--figures`` say): run
from a scratch folder on a few tiny stored runs, no report section touches the checkout or the
working folder."""

from __future__ import annotations

import subprocess
from collections.abc import Sequence
from pathlib import Path

import pytest

from vpbo_benchmarks import ledger_report
from vpbo_benchmarks.cli import main
from vpbo_benchmarks.records import append_record
from vpbo_benchmarks.runner import run_one

CHECKOUT = Path(__file__).resolve().parents[2]


def _checkout_status() -> str:
    """The checkout's ``git status --porcelain`` (untracked files included), or "" outside git."""
    try:
        done = subprocess.run(["git", "status", "--porcelain", "--untracked-files=all"], cwd=CHECKOUT, capture_output=True,
                              text=True, check=True)
    except (OSError, subprocess.CalledProcessError):
        return ""
    return done.stdout


def _files(folder: Path) -> set[Path]:
    return {path.relative_to(folder) for path in folder.rglob("*") if path.is_file()}


REPORTS: dict[str, Sequence[str]] = {
    "summary": [
        "report", "--sections", "summary", "--problems", "hetero_branin,stacked_stages", "--samplers", "random",
        "--checkpoints", "5",
    ],
    "suite": ["report", "--sections", "suite", "--half", "fresh_held_out", "--samplers", "random", "--checkpoints", "5"],
    "envelope": ["report", "--sections", "envelope", "--candidate", "random", "--references", "random,random",
                 "--peers", "random", "--problems", "hetero_branin,stacked_stages", "--checkpoints", "5", "--copies", "5"],
    "repeats": ["report", "--sections", "repeats", "--problems", "hetero_branin,stacked_stages"],
    "ledger": ["report", "--sections", "ledger", "--copies", "5"],
}


@pytest.mark.parametrize("section", list(REPORTS))
def test_a_report_writes_only_under_its_out(section: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    runs = tmp_path / "runs"
    for problem in ("hetero_branin", "stacked_stages"):
        append_record(runs, run_one(problem, "random", 0, 5))
    # The ledger reads the repository's stored sets: here none, and no summary of them.
    monkeypatch.setattr(ledger_report, "ledger", lambda root, n_copies: [])
    monkeypatch.setattr(ledger_report, "overall_lines", lambda result: [])
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    before, stored = _checkout_status(), _files(runs)
    main([*REPORTS[section], "--out", str(runs)] + (["--root", str(work)] if section == "ledger" else []))
    assert _checkout_status() == before
    assert not _files(work)  # nothing in the working folder
    written = _files(runs) - stored
    assert written, section  # the report is under --out
