"""The envelope report's statistics (envelope_report.py) on small synthetic records: the limits by
hand, the better reference per statistic, a copy of a reference that fails nothing, a clearly
worse candidate that fails everything, the bootstrap of the copy, relative regret and stuck seeds."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

from lab_testing import TOY_SPEC, present
from vpbo_benchmarks import cli, envelope_report, suite_report
from vpbo_benchmarks.records import append_record

SPEC = TOY_SPEC


def _runs(finals: list[float], n_trials: int = 4, combination: str = "a") -> list[dict[str, object]]:
    """One run per seed whose incumbent reaches ``finals[seed]`` at its last trial (regret at optimum 0)."""
    return [
        {"seed": s, "values": [[final + (n_trials - t - 1)] for t in range(n_trials)], "params": [{"c": combination}] * n_trials}
        for s, final in enumerate(finals)
    ]


def _entry(candidate: list[float], references: dict[str, list[float]]) -> envelope_report.EnvelopeRuns:
    runs = {name: _runs(finals) for name, finals in references.items()}
    return envelope_report.EnvelopeRuns(SPEC, 0.0, _runs(candidate), runs, {}, [r for rs in runs.values() for r in rs])


def test_tolerance_is_relative_to_the_optimum_at_least_absolute() -> None:
    assert envelope_report.tolerance(None) == 1e-6
    assert envelope_report.tolerance(0.25) == 1e-6
    assert envelope_report.tolerance(-3000.0) == pytest.approx(3e-3)


def test_limits_by_hand() -> None:
    candidate, reference = np.array([1.0, 2.0, 4.0]), np.array([1.0, 1.0, 1.0])
    # Differences 0, 1, 3: s = sqrt(7/3), se = s / sqrt(3).
    assert envelope_report.mean_limit(candidate, reference, 1e-6) == pytest.approx(2 * math.sqrt(7 / 3) / math.sqrt(3) + 1e-6)
    assert envelope_report.mean_limit(np.array([2.0]), np.array([1.0]), 0.5) == 0.5  # one seed: no standard error
    rng = np.random.default_rng(1)
    a, b = rng.exponential(size=20), rng.exponential(size=20)
    expected = 2 * math.hypot(suite_report.tail_seed(a)[1], suite_report.tail_seed(b)[1]) + 1e-6
    assert envelope_report.tail_limit(a, b, 1e-6) == pytest.approx(expected)
    assert envelope_report.tail_limit(a[:2], b[:2], 1e-6) == 1e-6  # below three seeds: no Maritz-Jarrett error


def test_the_better_reference_is_chosen_per_statistic() -> None:
    # low_mean has the lower mean, low_tail the lower 90th-percentile seed (the 9th of 10).
    references = {
        "low_mean": np.array([0.0] * 8 + [5.0, 5.0]), "low_tail": np.array([1.0] * 10),
    }
    candidate = np.array([1.0] * 10)
    rng = np.random.default_rng(0)
    mean = envelope_report.compare("mean", candidate, references, 1e-6, rng, 0)
    tail = envelope_report.compare("p90", candidate, references, 1e-6, rng, 0)
    assert (mean.better, mean.reference, mean.candidate) == ("low_mean", 1.0, 1.0)
    assert (tail.better, tail.reference, tail.candidate) == ("low_tail", 1.0, 1.0)
    assert math.isnan(mean.copy_failures)  # no copies asked for


def test_a_copy_of_a_reference_fails_no_cell() -> None:
    rng = np.random.default_rng(2)
    finals = rng.exponential(size=10).tolist()
    entry = _entry(finals, {"v1": finals, "v2": [f + 0.5 for f in finals]})
    cells = envelope_report.envelope_cells(entry, [2, 4], np.random.default_rng(0), 50)
    assert [(c.checkpoint, c.seeds) for c in cells] == [(2, 10), (4, 10)]
    for cell in cells:
        assert not cell.mean.fails and not cell.tail.fails
        assert cell.mean.better == cell.tail.better == "v1" and cell.mean.difference == 0.0
    assert envelope_report.failure_counts(cells)[:2] == (0, 0)


def test_a_clearly_worse_candidate_fails_every_cell() -> None:
    rng = np.random.default_rng(3)
    finals = rng.exponential(size=10)
    worse = finals + 2.0 + 0.1 * rng.standard_normal(10)
    entry = _entry(worse.tolist(), {"v1": finals.tolist(), "v2": (finals + 1.0).tolist()})
    cells = envelope_report.envelope_cells(entry, [2, 4], np.random.default_rng(0), 50)
    assert all(c.mean.fails and c.tail.fails and c.mean.better == "v1" for c in cells)
    assert envelope_report.failure_counts(cells)[:2] == (2, 2)


def test_within_two_standard_errors_passes_beyond_fails() -> None:
    reference = np.array([1.0, 2.0, 3.0, 4.0])
    noise = np.array([0.1, -0.1, 0.1, -0.1])  # paired differences m +- 0.1: s = sqrt(0.04 / 3), 2 s.e. = 0.1155
    rng = np.random.default_rng(0)
    assert not envelope_report.compare("mean", reference + 0.115 + noise, {"r": reference}, 1e-6, rng, 0).fails
    assert envelope_report.compare("mean", reference + 0.116 + noise, {"r": reference}, 1e-6, rng, 0).fails


def test_the_copy_bootstrap_is_seeded_and_counts_shares() -> None:
    rng = np.random.default_rng(4)
    references = {"a": rng.exponential(size=20), "b": rng.exponential(size=20)}
    better = min(references, key=lambda name: float(np.mean(references[name])))

    def shares(seed: int) -> list[float]:
        return [
            envelope_report.copy_failure_share(s, references, better, 1e-6, np.random.default_rng(seed), 200)
            for s in ("mean", "p90")
        ]

    assert shares(7) == shares(7) and all(0.0 <= share < 0.5 for share in shares(7))
    constant = {"a": np.full(10, 0.3), "b": np.full(10, 0.3)}  # every copy equals every reference: none fails
    assert envelope_report.copy_failure_share("mean", constant, "a", 1e-6, np.random.default_rng(0), 100) == 0.0


def test_the_copy_carries_the_bias_of_the_better_of_two_references() -> None:
    """Two references drawn from one distribution: the better of the two resampled means is
    biased low, so a copy fails more often than against one reference alone."""
    rng = np.random.default_rng(1)
    same = {"a": rng.exponential(size=10), "b": rng.exponential(size=10)}
    better = min(same, key=lambda name: float(np.mean(same[name])))
    alone = {better: same[better]}
    with_two = envelope_report.copy_failure_share("mean", same, better, 1e-6, np.random.default_rng(3), 400)
    with_one = envelope_report.copy_failure_share("mean", alone, better, 1e-6, np.random.default_rng(3), 400)
    assert with_two > with_one

def test_relative_regret_divides_by_the_best_of_the_cell() -> None:
    def cell(checkpoint: int, means: dict[str, float]) -> envelope_report.EnvelopeCell:
        dummy = envelope_report.Comparison("mean", 0.0, "x", 0.0, 1.0, 0.0)
        return envelope_report.EnvelopeCell("p", checkpoint, 3, {s: (m, m) for s, m in means.items()}, dummy, dummy)

    cells = [
        cell(25, {"c": 2.0, "v1": 1.0, "v2": 4.0}), cell(25, {"c": 1.0, "v1": 1.0, "v2": 1.0}),
        cell(50, {"c": 0.0, "v1": 1.0, "v2": 2.0}),
    ]
    ratios = envelope_report.relative_regrets(cells, [25, 50])
    assert ratios["c"] == {25: [2.0, 1.0], 50: []}  # the best mean at trial 50 is 0: left out
    assert ratios["v2"][25] == [4.0, 1.0]


def test_problem_sets_keep_groups_and_collect_single_problems() -> None:
    sets = envelope_report.problem_sets(["numeric", "func2c", "hartmann6", "ackley5c"])
    assert sets[0] == ("numeric", ["hartmann6", "knn_breast", "knn_wine", "svm_breast", "dt_digits", "linear_breast"])
    assert sets[1] == (envelope_report.SELECTED, ["func2c", "ackley5c"])  # hartmann6 once


def test_report_from_stored_runs(tmp_path: Path) -> None:
    """End to end through the command: two suite problems, 5 seeds; the candidate is v2's copy on
    one folder, v1 is worse; stuck seeds: v1 stays 60 trials on a wrong combination."""
    out = tmp_path
    for problem in ("shifted_ackley", "shifted_levy"):
        spec, stated_optimum, _ = suite_report.problem_spec(problem)
        optimum = present(stated_optimum)
        combinations, combination_best = present(spec.combinations)(), present(spec.combination_best)
        best = min(combinations, key=combination_best)
        worst = max(combinations, key=combination_best)
        samplers = (("cand", 0.0, best), ("vpbo-v2", 0.0, best), ("vpbo-v1", 5.0, worst), ("gp", 0.0, best))
        for sampler, gap, combination in samplers:
            for seed in range(5):
                values = [[optimum + gap + 0.01 * seed + 1.0 / (t + 1)] for t in range(60)]
                append_record(out, {"problem": problem, "sampler": sampler, "seed": seed, "n_trials": 60, "values": values,
                                    "params": [dict(combination)] * 60, "sampler_seconds": [0.0] * 60})
    cli.dispatch(["report", "--sections", "envelope", "--candidate", "cand", "--out", str(out), "--references", "vpbo-v1,vpbo-v2",
                  "--problems", "shifted_ackley,shifted_levy", "--checkpoints", "25,50", "--copies", "20"])
    text = (out / "ENVELOPE-cand.md").read_text()
    assert "Failing cells: **0 of 8**" in text
    # two cells, a stuck row and a row of the stuck seeds' cost
    assert text.count("| shifted_ackley | ") == 4 and "| shifted_levy | 50 | 5 |" in text
    assert "| shifted_ackley | 0 of 5 | 5 of 5 | 0 of 5 | 0 of 5 | - | yes |" in text
    assert "- Stuck seeds, total over 2 problems: cand 0 of 10; vpbo-v1 10 of 10; vpbo-v2 0 of 10; gp 0 of 10." in text
    assert "| selected problems | cand | 1.000 (2) | 1.000 (2) |" in text
    # At trial 50 (the last checkpoint) the mean metric is 0.01 * mean seed + 1 / 50 above the gap:
    # v1's seeds are all stuck, nobody else's.
    assert "| shifted_ackley | - / 0.04 | 5.04 / - | - / 0.04 | - / 0.04 | - |" in text
