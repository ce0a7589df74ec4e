"""Tests of the trial-states report on a tiny hand-made record set (numbers computed by hand)."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import pytest

from vpbo_benchmarks import trial_states_report as report
from vpbo_benchmarks.cli import main
from vpbo_benchmarks.records import append_record

PROBLEM = "sgd_digits-median"  # a TUNING pruning problem; compute in epochs


def _record(
    sampler: str, seed: int, states: str, values: list[float | None], compute: list[int], repeats: list[int]
) -> dict[str, Any]:
    return {
        "problem": PROBLEM, "sampler": sampler, "seed": seed, "n_trials": len(states), "states": states,
        "values": [None if v is None else [v] for v in values], "params": [{"loss": "hinge"} for _ in states],
        "compute": compute, "repeats": repeats, "sampler_seconds": [0.0] * len(states),
    }


RECORDS = [
    # best traces: 0.5 0.5 0.3 0.3 0.3; cumulative compute 20 24 44 47 67
    _record("vpbo", 0, "CPCFC", [0.5, None, 0.3, None, 0.4], [20, 4, 20, 3, 20], [0, 0, 0, 0, 1]),
    # 0.7 0.6 0.6 0.6 0.2; cumulative 20 40 45 50 70
    _record("vpbo", 1, "CCPPC", [0.7, 0.6, None, None, 0.2], [20, 20, 5, 5, 20], [0, 0, 0, 1, 1]),
    # nan 0.6 0.2 0.2 0.1; cumulative 4 24 44 64 84
    _record("tpe", 0, "PCCCC", [None, 0.6, 0.2, 0.25, 0.1], [4, 20, 20, 20, 20], [0, 0, 0, 0, 0]),
    # 0.9 0.8 0.7 0.6 0.5; cumulative 20 40 60 80 100
    _record("tpe", 1, "CCCCC", [0.9, 0.8, 0.7, 0.6, 0.5], [20] * 5, [0] * 5),
    # spends 5 epochs in all: short of any budget above 5
    _record("random", 0, "CCFFC", [0.4, 0.35, None, None, 0.3], [1] * 5, [0] * 5),
]


def test_traces_budget_and_shares_by_hand() -> None:
    vpbo0, vpbo1, tpe0, tpe1, random0 = RECORDS
    assert report.best_trace(vpbo0).tolist() == [0.5, 0.5, 0.3, 0.3, 0.3]
    assert math.isnan(report.best_trace(tpe0)[0])
    assert report.best_at([vpbo0, vpbo1], 2) == {0: 0.5, 1: 0.6}
    assert report.best_at([tpe0], 1) == {}
    assert report.compute_budget([tpe0, tpe1], 3) == pytest.approx((44 + 60) / 2)
    assert report.best_within_compute(vpbo0, 52.0) == (0.3, True)  # trials 1-4 spend 47
    assert report.best_within_compute(tpe1, 52.0) == (0.8, True)  # trials 1-2 spend 40
    assert report.best_within_compute(random0, 52.0) == (0.3, False)
    assert report.failed_share(vpbo0, 2) == pytest.approx(1 / 3)  # "CFC"
    assert report.failed_share(random0, 2) == pytest.approx(2 / 3)
    mean, se, n = report.paired_difference({0: 0.5, 1: 0.6}, {0: 0.6, 1: 0.8, 2: 0.0})
    assert mean == pytest.approx(-0.15) and n == 2
    assert se == pytest.approx(0.05)  # sd of (-0.1, -0.2) is 0.0707; / sqrt(2)


def test_report_tables_by_hand(tmp_path: Path) -> None:
    for record in RECORDS:
        append_record(tmp_path, record)
    main(["report", "--sections", "trial-states", "--out", str(tmp_path), "--half", "tuning", "--samplers", "vpbo,tpe,random",
          "--checkpoints", "2,5", "--design-trials", "2"])
    text = (tmp_path / "TRIAL-STATES-tuning.md").read_text()
    assert not (tmp_path / "TRIAL-STATES-held-out.md").exists()
    lines = text.splitlines()

    def row(*cells: str) -> str:
        matches = [line for line in lines if line.startswith("| " + " | ".join(cells) + " |")]
        assert len(matches) == 1, (cells, text)
        return matches[0]

    # trial 2: vpbo (0.5, 0.6) -> mean 0.55, se 0.05; tpe (0.6, 0.8) -> 0.7 ± 0.1; random one seed
    # (90th-percentile seed of two: the 2nd smallest, no standard error below three seeds)
    assert row(PROBLEM, "vpbo", "2", "0.55 ± 0.05 / 0.6")
    assert row(PROBLEM, "tpe", "2", "0.7 ± 0.1 / 0.8")
    # paired: trial 2 -0.1, -0.2 -> -0.15 ± 0.05, signed-rank p of two negative differences 2/4;
    # trial 5: 0.3-0.1, 0.2-0.5 -> -0.05 ± 0.25, one of each sign: p = 1
    assert row(PROBLEM, "tpe", "-0.15 ± 0.05 (n=2, p=0.5)", "-0.05 ± 0.25 (n=2, p=1)")
    assert row(PROBLEM, "random", "+0.15 (n=1, p=1)", "+0 (n=1, p=1)")  # 0.5 - 0.35; 0.3 - 0.3 (all zero: p = 1)
    # equal compute against tpe by trial 2: budget (24 + 40) / 2 = 32 epochs; vpbo (0.5, 0.7), tpe (0.6, 0.9)
    assert row(PROBLEM, "tpe", "2", "32 epochs", "0.6 ± 0.1 / 0.7", "0.75 ± 0.15 / 0.9", "-0.15 ± 0.05 (n=2, p=0.5)",
               "0 of 2 / 0 of 2")
    # by trial 5: budget (84 + 100) / 2 = 92; vpbo spends 67 and 70 (short: final bests 0.3, 0.2), tpe seed 0 84
    # (short: 0.1), seed 1 trials 1-4 (0.6): -0.1 ± 0.3
    assert row(PROBLEM, "tpe", "5", "92 epochs", "0.25 ± 0.05 / 0.3", "0.35 ± 0.25 / 0.6", "-0.1 ± 0.3 (n=2, p=1)",
               "2 of 2 / 1 of 2")
    # against random by trial 2: a budget of 2 epochs, within which no vpbo trial finished
    assert row(PROBLEM, "random", "2", "2 epochs", "-")
    # states: vpbo complete (3, 3), pruned (1, 2); failed share after trial 2: (1/3, 0) -> 16.7 ± 17 %;
    # repeats (1, 2) -> 1.5 ± 0.5, max 2, both seeds; compute (67, 70) -> 68.5 ± 1.5
    states = row(PROBLEM, "vpbo", "2", "3 ± 0", "1.5 ± 0.5")
    assert "| 16.7 ± 17 % |" in states and "| 1.5 ± 0.5 (max 2; 2 of 2 seeds) |" in states
    assert states.endswith("| 68.5 ± 1.5 |")
    assert "No runs stored for: sgd_digits-hyperband" in text
