"""Tests of the suite report's statistics against hand-computed small examples."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from lab_testing import TOY_SPEC, present
from vpbo_benchmarks import suite, suite_report
from vpbo_benchmarks.records import append_record
from vpbo_benchmarks.suite_report import Combination


def test_mean_and_standard_error_by_hand() -> None:
    mean, se = suite_report.mean_and_se([1.0, 2.0, 3.0, 4.0])
    assert mean == 2.5
    assert se == pytest.approx(math.sqrt(5.0 / 3.0) / 2.0)  # s^2 = 5/3, n = 4
    assert math.isnan(suite_report.mean_and_se([7.0])[1])


def test_tail_seed_is_the_rounded_order_statistic() -> None:
    assert suite_report.tail_rank(10) == 9
    assert suite_report.tail_rank(20) == 18
    assert suite_report.tail_rank(5) == 5  # floor(4.5 + 0.5)
    values = [5.0, 1.0, 9.0, 3.0, 7.0, 2.0, 10.0, 4.0, 8.0, 6.0]
    assert suite_report.tail_seed(values)[0] == 9.0


def test_tail_standard_error_matches_scipy_maritz_jarrett() -> None:
    from scipy.stats.mstats import mjci

    rng = np.random.default_rng(3)
    for n in (10, 20):
        values = rng.exponential(size=n)
        assert suite_report.tail_seed(values)[1] == pytest.approx(float(mjci(values, prob=[0.9])[0]), rel=1e-12)
    assert suite_report.tail_seed([2.0] * 10)[1] == pytest.approx(0.0, abs=1e-12)


def test_paired_wilcoxon_by_hand() -> None:
    ours = {0: 1.0, 1: 2.0, 2: 3.0, 3: 4.0, 4: 5.0}
    # Differences -1 .. -5: W+ = 0, exact p = 1 / 2^5.
    p, n = suite_report.paired_one_sided_p(ours, {s: v + s + 1 for s, v in ours.items()})
    assert p == pytest.approx(1 / 32) and n == 5
    # Differences (-1, +2, -3, -4, -5): W+ = 2; subsets of {1..5} summing to <= 2: {}, {1}, {2}.
    other = {0: 2.0, 1: 0.0, 2: 6.0, 3: 8.0, 4: 10.0}
    assert suite_report.paired_one_sided_p(ours, other)[0] == pytest.approx(3 / 32)
    # Pairing is by seed number: the unpaired seed 9 is left out.
    assert suite_report.paired_one_sided_p(ours, {**other, 9: -100.0})[1] == 5
    assert suite_report.paired_one_sided_p(ours, dict(ours)) == (1.0, 5)


def test_metric_trace_uses_the_observed_incumbent_and_its_noiseless_value() -> None:
    record = {"seed": 0, "values": [[5.0], [3.0], None, [4.0], [2.0]],
              "noiseless": [4.5, 3.5, None, 1.0, 2.5]}
    # Incumbents by observed value: 0, 1, 1, 1, 4 (the failed trial never is one).
    assert suite_report.metric_trace(record, 1.0).tolist() == [3.5, 2.5, 2.5, 2.5, 1.5]
    assert suite_report.metric_trace({"values": [[2.0], [1.0]]}, None).tolist() == [2.0, 1.0]
    assert suite_report.metric_at([record], 1.0, 5) == {0: 1.5}
    assert suite_report.metric_at([record], 1.0, 6) == {}


def _record(seed: int, combos: list[str], values: list[float]) -> dict[str, Any]:
    return {"seed": seed, "values": [[v] for v in values], "params": [{"c": c} for c in combos]}


def test_wrong_combinations_use_one_percent_of_the_range() -> None:
    bests: dict[Combination, float] = {(("c", "a"),): 0.0, (("c", "b"),): 0.005, (("c", "c"),): 1.0}
    assert suite_report.wrong_combinations(bests) == {(("c", "c"),)}


def test_stuck_means_more_than_fifty_trials_on_one_wrong_combination() -> None:
    spec = TOY_SPEC
    wrong: set[Combination] = {(("c", "bad"),)}
    # The incumbent is on "bad" from trial 1 for k trials, then "good" takes over.
    for k, expected in ((50, []), (51, [0])):
        record = _record(0, ["bad"] * k + ["good"] + ["bad"] * 5, [1.0] * k + [0.0] + [0.5] * 5)
        assert suite_report.longest_wrong_stay(record, ("c",), wrong) == k
        assert suite_report.stuck_seeds([record], spec, wrong) == expected
    # Alternating wrong combinations are not one stay.
    record = _record(0, ["bad", "worse"] * 40, list(np.linspace(2, 1, 80)))
    alternating: set[Combination] = {(("c", "bad"),), (("c", "worse"),)}
    assert suite_report.longest_wrong_stay(record, ("c",), alternating) == 1


def test_empirical_combination_bests_from_stored_runs() -> None:
    spec = TOY_SPEC
    runs = [_record(0, ["a", "b", "a"], [3.0, 2.0, 1.0]), _record(1, ["b", "c"], [0.5, 4.0])]
    assert suite_report.combination_bests(spec, runs) == {(("c", "a"),): 1.0, (("c", "b"),): 0.5, (("c", "c"),): 4.0}


def test_report_end_to_end(tmp_path: Path) -> None:
    # Two samplers on mlp_synthetic, 5 seeds of 30 trials: "ours" beats "peer" on every seed.
    spec = suite.SUITE_SPECS["mlp_synthetic"]
    optimum = present(spec.optimum())
    best = present(spec.best_point)()
    for sampler, gap in (("ours", 0.01), ("peer", 0.05)):
        for seed in range(5):
            values = [[optimum + gap + 0.001 * seed + 1.0 / (t + 1)] for t in range(30)]
            record = {"problem": "mlp_synthetic", "sampler": sampler, "seed": seed, "n_trials": 30,
                      "values": values, "params": [best] * 30, "sampler_seconds": [0.0] * 30}
            append_record(tmp_path, record)
    collected = suite_report.collect_suite(tmp_path, ["mlp_synthetic"], ["ours", "peer"], None)
    text = suite_report.write_suite_report(tmp_path / "S.md", collected, "toy", [25, 50], "ours")
    assert "p=0.031, n=5" in text  # all five differences negative: 1/32
    assert "| mlp_synthetic | peer | 5 |" in text and "| - | 0 of 5 |" in text
    assert (tmp_path / "S.md").read_text() == text


def test_best_stored_is_the_smallest_observed_value_of_any_run() -> None:
    spec = suite.SUITE_SPECS["svr_diabetes"]
    runs = [_record(0, ["a", "b"], [0.7, 0.4]), {"seed": 1, "values": [None, [0.6]], "params": [{}, {"c": "a"}]}]
    entry = suite_report.SuiteRuns(spec, None, {"x": runs}, runs)
    assert suite_report.best_stored(entry) == 0.4
    assert suite_report.optimum_cell(entry) == "unknown (best in any stored run: 0.4)"


def test_paper_problems_get_their_categoricals_and_loss_terms() -> None:
    spec, optimum, maximised = suite_report.problem_spec("func2c")
    assert spec.combination_keys == ("h1", "h2") and not maximised
    from vpbo_benchmarks.registry import get_problem

    assert optimum == get_problem("func2c").optimum
    assert suite_report.problem_spec("conditional_trap")[0].combination_keys == ("model", "tree_kind")
    # A maximised first objective is negated (the second objective dropped), noiseless values too.
    record = {"seed": 0, "values": [[90.0, 1.0], None, [95.0, 2.0]], "noiseless": [89.0, None, 96.0]}
    loss = suite_report.as_loss(record)
    assert loss["values"] == [[-90.0], None, [-95.0]] and loss["noiseless"] == [-89.0, None, -96.0]
    assert suite_report.metric_trace(loss, -100.0).tolist() == [11.0, 11.0, 4.0]  # regret 100 - noiseless


def test_report_of_a_maximised_paper_problem(tmp_path: Path) -> None:
    # Two runs of reizman_suzuki_1 (maximised yield, no optimum): the metric is the negated best value.
    for sampler, yields in (("ours", [50.0, 80.0, 90.0]), ("peer", [40.0, 60.0, 70.0])):
        record = {"problem": "reizman_suzuki_1", "sampler": sampler, "seed": 0, "n_trials": 3,
                  "values": [[y] for y in yields], "params": [{"catalyst": "P1-L1"}] * 3, "sampler_seconds": [0.0] * 3}
        append_record(tmp_path, record)
    collected = suite_report.collect_suite(tmp_path, ["reizman_suzuki_1"], ["ours", "peer"], None)
    text = suite_report.write_suite_report(tmp_path / "S.md", collected, "paper", [3], "ours")
    assert "| reizman_suzuki_1 | ours | 1 | -90 / -90 | 0 of 1 |" in text
    assert "-20 (p=" in text  # ours - peer = -90 - (-70)
    assert "best in any stored run: 90" in text


def test_target_rows_compare_with_the_better_peer_and_gps_tail() -> None:
    spec = TOY_SPEC

    def runs(final_values: list[float]) -> list[dict[str, Any]]:  # one seed per value, one trial each
        return [{"seed": s, "values": [[v]], "params": [{"c": "a"}]} for s, v in enumerate(final_values)]

    entry = suite_report.SuiteRuns(spec, 0.0, {
        "vpbo": runs([1.0, 1.0, 1.0, 1.0]),
        "gp": runs([2.0, 2.0, 2.0, 6.0]),  # mean 3, se 1: 1.0 is ahead (3 - 1 > 1)
        "tpe-auto": runs([1.0, 1.2, 0.8, 1.0]),  # mean 1.0: the better peer, and level
    }, [])
    assert suite_report.target_rows(entry, [1], "vpbo") == [["toy", "level with tpe-auto; p90 <= gp"]]
    entry.runs["tpe-auto"] = runs([3.0, 3.0, 3.0, 3.0])
    assert suite_report.target_rows(entry, [1], "vpbo") == [["toy", "ahead of gp; p90 <= gp"]]
    entry.runs["vpbo"] = runs([9.0, 9.0, 9.0, 9.0])
    assert suite_report.target_rows(entry, [1, 2], "vpbo") == [["toy", "behind gp; p90 > gp", "-"]]
    assert suite_report.target_rows(entry, [1], "nobody") == []


def test_relative_rows_divide_by_the_best_mean_per_problem() -> None:
    spec = TOY_SPEC

    def runs(final_values: list[float]) -> list[dict[str, Any]]:
        return [{"seed": s, "values": [[v]], "params": [{"c": "a"}]} for s, v in enumerate(final_values)]

    first = suite_report.SuiteRuns(spec, 0.0, {"a": runs([1.0, 3.0]), "b": runs([4.0, 4.0])}, [])
    second = suite_report.SuiteRuns(spec, 0.0, {"a": runs([6.0, 6.0]), "b": runs([3.0, 3.0])}, [])
    # Means: first a 2, b 4; second a 6, b 3. Ratios a: 1, 2; b: 2, 1.
    assert suite_report.relative_rows([first, second], [1]) == [["a", "1.50 (2)"], ["b", "1.50 (2)"]]
    # A problem whose best mean is 0 is left out.
    solved = suite_report.SuiteRuns(spec, 0.0, {"a": runs([0.0]), "b": runs([1.0])}, [])
    assert suite_report.relative_rows([solved, first], [1]) == [["a", "1.00 (1)"], ["b", "2.00 (1)"]]
