"""The ledger report (ledger_report.py): stuck seeds counted against every folder of a set at once
(a variant that reaches a better combination makes the references' seeds stuck, which the envelope
report of the references' folder alone does not see), failing cells named per checkpoint and
statistic, totals, and the stored runs the ledger names."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np
import pytest

from vpbo_benchmarks import envelope_report, ledger_report
from vpbo_benchmarks.records import append_record, load_problem

# A problem without stated combination bests: its wrong combinations come from the stored runs.
PROBLEM = "svm_boston"
N_TRIALS, N_SEEDS = 60, 5
GOOD = {"kernel": "rbf", "gamma": "scale", "shrinking": True}
POOR = {"kernel": "linear", "gamma": "auto", "shrinking": False}


def _store(folder: Path, sampler: str, level: float, params: dict[str, object], n_seeds: int = N_SEEDS) -> None:
    """Runs whose incumbent falls as level + 1 / (t + 1) + 0.01 seed, every trial at ``params``."""
    for seed in range(n_seeds):
        values = [[level + 1.0 / (t + 1) + 0.01 * seed] for t in range(N_TRIALS)]
        append_record(folder, {"problem": PROBLEM, "sampler": sampler, "seed": seed, "n_trials": N_TRIALS,
                               "values": values, "params": [dict(params)] * N_TRIALS, "sampler_seconds": [0.0] * N_TRIALS})


@pytest.fixture()
def ledger_set(tmp_path: Path) -> ledger_report.LedgerSet:
    """The references (and GPSampler on 3 seeds) on the poor combination; the defaults a copy of
    ``vpbo-v2``; one opt-in on a combination 1.0 better, another 5.0 worse on the poor one."""
    for sampler in ("vpbo-v1", "vpbo-v2"):
        _store(tmp_path / "refs", sampler, 1.0, POOR)
    _store(tmp_path / "refs", "gp", 1.0, POOR, n_seeds=3)
    _store(tmp_path / "defaults", "vpbo", 1.0, POOR)
    _store(tmp_path / "better", "vpbo:a=1", 0.0, GOOD)
    _store(tmp_path / "worse", "vpbo:b=1", 6.0, POOR)
    return ledger_report.LedgerSet(
        "toy set", (PROBLEM,), "refs", ("vpbo-v1", "vpbo-v2"), (25, 50),
        (ledger_report.Variant("the defaults", "defaults", "vpbo"), ledger_report.Variant("better", "better", "vpbo:a=1"),
         ledger_report.Variant("worse", "worse", "vpbo:b=1")),
    )


def test_stuck_seeds_are_counted_against_every_folder_of_the_set(tmp_path: Path, ledger_set: ledger_report.LedgerSet) -> None:
    [(_, [entry])] = ledger_report.ledger(tmp_path, [ledger_set], n_copies=20)
    assert entry.stuck == {
        "vpbo-v1": (5, 5), "vpbo-v2": (5, 5), "the defaults": (5, 5), "better": (0, 5), "worse": (5, 5), "gp": (3, 3),
    }
    # The references' folder alone knows no better combination: nobody is stuck there.
    alone = envelope_report.envelope(tmp_path / "refs", tmp_path / "refs", [PROBLEM], "vpbo-v2", ["vpbo-v1", "vpbo-v2"],
                                     checkpoints=[25, 50], n_copies=20)
    assert alone.stuck[PROBLEM]["vpbo-v2 (candidate)"] == (0, 5)


def test_failing_cells_are_named_per_checkpoint_and_statistic(tmp_path: Path, ledger_set: ledger_report.LedgerSet) -> None:
    [(_, [entry])] = ledger_report.ledger(tmp_path, [ledger_set], n_copies=20)
    texts = {name: ledger_report.failing_text(cells) for name, cells in entry.cells.items()}
    assert texts == {"the defaults": "none", "better": "none", "worse": "25 mean, 25 p90, 50 mean, 50 p90"}
    assert ledger_report.failing_text([]) == "-"
    # The worse variant's mean cells: 5.0 above the better reference at both checkpoints.
    assert [c.mean.difference for c in entry.cells["worse"]] == pytest.approx([5.0, 5.0])


def test_the_written_ledger_has_a_row_per_problem_and_totals(tmp_path: Path, ledger_set: ledger_report.LedgerSet) -> None:
    result = ledger_report.ledger(tmp_path, [ledger_set], n_copies=20)
    text = ledger_report.write_ledger(tmp_path / "ledger.md", result, "vpbo-benchmark report --sections ledger")
    assert text == (tmp_path / "ledger.md").read_text()
    # the last column: the mean value at trial 50 (no optimum) of the defaults (1 + 1/50 + 0.01 x mean seed 2), gp, tpe-auto
    failing = "| none | none | 25 mean, 25 p90, 50 mean, 50 p90 |"
    row = f"| {PROBLEM} {failing} 5/5 | 5/5 | 5/5 | 0/5 | 5/5 | 3/3 | - | 1.04 / 1.03 / - |"
    assert row in text
    assert "| total | **0 of 4** (a copy " in text
    assert "| **5**/5 | **5**/5 | **5**/5 | **0**/5 | **5**/5 | **3**/3 | **0**/0 |" in text
    assert "- worse: 4 of 4 cells fail" in text
    assert "- The references' stuck seeds: the robust defaults (`vpbo-v1`) 5, the every-seed defaults (`vpbo-v2`) 5." in text
    assert "share of stuck seeds is above the better of GPSampler's and TPE's: 0; on 0 of them" in text


def test_stuck_above_the_better_peer_is_set_beside_the_means() -> None:
    """Problems where the defaults' share of stuck seeds is above the better (lower) of the peers'
    shares, and those of them where the defaults' mean is below both peers'; a problem without any
    peer's runs counts in neither. Every sampler's share over every set, and the total's target."""
    toy = ledger_report.LedgerSet("toy", ("a", "b", "c", "d"), "refs", ("vpbo-v1", "vpbo-v2"), (100,),
                                 (ledger_report.Variant("the defaults", "d", "vpbo"),))

    def entry(name: str, stuck: dict[str, tuple[int, int]], means: dict[str, float]) -> ledger_report.ProblemLedger:
        return ledger_report.ProblemLedger(name, {"the defaults": []}, stuck, means)

    problems = [
        entry("a", {"the defaults": (10, 20), "gp": (1, 10), "tpe-auto": (15, 20), "vpbo-v2": (8, 20)},
              {"the defaults": 0.29, "gp": 0.32, "tpe-auto": 0.4}),
        entry("b", {"the defaults": (10, 20), "gp": (1, 10), "tpe-auto": (2, 20), "vpbo-v2": (6, 20)},
              {"the defaults": 0.5, "gp": 0.6, "tpe-auto": 0.1}),
        # below GPSampler's share but above TPE's: the better peer is TPE here
        entry("c", {"the defaults": (4, 20), "gp": (5, 10), "tpe-auto": (1, 20), "vpbo-v2": (4, 20)},
              {"the defaults": 0.2, "gp": 0.3, "tpe-auto": 0.25}),
        entry("d", {"the defaults": (10, 20)}, {"the defaults": 0.5}),
    ]
    lines = ledger_report.overall_lines([(toy, problems)])
    assert lines[-1] == ("- Problems where the defaults' share of stuck seeds is above the better of GPSampler's and "
                         "TPE's: 3; on 2 of them the defaults' mean at the last checkpoint is below both peers' (a, c).")
    # A problem in two sets is named with its set's name.
    other = dataclasses.replace(toy, name="other", problems=("a",))
    twice = ledger_report.overall_lines([(toy, problems), (other, problems[:1])])
    assert twice[-1].endswith("is below both peers' (a in toy, c, a in other).")
    assert lines[-2] == ("- Shares of stuck seeds over every set: the defaults 34/80 (42.5 %), `vpbo-v2` 18/60 (30.0 %), "
                         "GPSampler 7/30 (23.3 %), TPE 18/60 (30.0 %); the total's target, half of `vpbo-v2`'s: 15.0 %.")
    assert lines[-3] == ("- The references' stuck seeds: the robust defaults (`vpbo-v1`) 0, "
                         "the every-seed defaults (`vpbo-v2`) 18.")


def test_the_copy_of_the_better_reference_is_seeded(tmp_path: Path, ledger_set: ledger_report.LedgerSet) -> None:
    def copies(seed: int) -> list[float]:
        [(_, [entry])] = ledger_report.ledger(tmp_path, [ledger_set], n_copies=50, copy_seed=seed)
        return [c.mean.copy_failures for cells in entry.cells.values() for c in cells]

    assert copies(3) == copies(3)
    assert all(0.0 <= share <= 1.0 for share in copies(3))


REPOSITORY = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("ledger_set", ledger_report.LEDGER_SETS, ids=lambda s: s.name)
def test_the_ledger_names_stored_runs(ledger_set: ledger_report.LedgerSet) -> None:
    """Every folder the ledger names holds every problem of its set (the references lack only
    svr_diabetes, which has none), and each variant's label is the one stored there (checked on
    the set's first problem)."""
    folders = {ledger_set.references_folder, *(v.folder for v in ledger_set.variants)}
    for folder in folders:
        stored = {p.name.removesuffix(".jsonl.xz") for p in (REPOSITORY / folder).glob("*.jsonl.xz")}
        missing = set(ledger_set.problems) - stored
        assert missing <= {"svr_diabetes"}, (folder, missing)
    first = ledger_set.problems[0]
    for v in ledger_set.variants:
        assert v.sampler in load_problem(REPOSITORY / v.folder, first), (v.folder, v.sampler)
    assert ledger_set.checkpoints == tuple(sorted(ledger_set.checkpoints))
    assert np.all(np.array(ledger_set.checkpoints) > 0)
