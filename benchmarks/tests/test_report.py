"""Tests of the report command: tables and figures from synthetic records of Func2C.

Two synthetic samplers over Func2C's 15 arms (h1 in 0..2, h2 in 0..4), 24 initial + 30 trials:
"greedy" pulls the best arm (1, 1) at every trial, with a value that improves over the trials;
"cycling" pulls the arms in turn, arm ``ARMS[i % 15]`` at trial i, with the arm's fixed value.
"""

from __future__ import annotations

import dataclasses
import itertools
import math
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from vpbo_benchmarks import plots, report
from vpbo_benchmarks.cli import main
from vpbo_benchmarks.problem import MAXIMIZE, MINIMIZE
from vpbo_benchmarks.records import append_record
from vpbo_benchmarks.synthetic_problems import FUNC2C_OPTIMUM

N_INIT = 24
N_POST = 30  # two passes of the cycling sampler over the 15 arms
N_TRIALS = N_INIT + N_POST
SEEDS = (0, 1)
ARMS = list(itertools.product(range(3), range(5)))
BEST_ARM, NEAR_ARM, FAR_ARM = (1, 1), (0, 1), (1, 0)
OTHER_ARMS = [a for a in ARMS if a not in (BEST_ARM, NEAR_ARM, FAR_ARM)]
ARM_VALUE = {BEST_ARM: -0.2, NEAR_ARM: -0.16, FAR_ARM: -0.1, **dict(zip(OTHER_ARMS, np.linspace(0.0, 0.8, 12)))}
WORST_VALUE = 0.8
ORACLE_GAP = 0.001  # the synthetic Oracle's incumbent: (1, 1) at the optimum + 0.001
CHECKPOINTS = (10, 30, 50)  # 50 > N_POST: no run reaches it


def _params(arm: tuple[int, int]) -> dict[str, Any]:
    return {"h1": arm[0], "h2": arm[1], "x1": 0.0, "x2": 0.0}


def _greedy_value(trial: int, seed: int) -> float:
    return FUNC2C_OPTIMUM + 0.1 / (trial + 1) + 0.01 * seed


def _record(sampler: str, seed: int, arms: list[tuple[int, int]], values: list[Any]) -> dict[str, Any]:
    return {
        "problem": "func2c",
        "sampler": sampler,
        "seed": seed,
        "n_trials": len(arms),
        "values": values,
        "params": [_params(a) for a in arms],
        "sampler_seconds": [0.5 if i < N_INIT else 0.1 * (seed + 1) for i in range(len(arms))],
        "wall_seconds": 1.0,
        "environment": {"machine": "test"},
    }


def _write(out: Path, record: dict[str, Any]) -> None:
    append_record(out, record)


def _greedy(seed: int) -> dict[str, Any]:
    return _record("greedy", seed, [BEST_ARM] * N_TRIALS, [[_greedy_value(i, seed)] for i in range(N_TRIALS)])


def _cycling(seed: int) -> dict[str, Any]:
    arms = [ARMS[i % len(ARMS)] for i in range(N_TRIALS)]
    values: list[Any] = [[ARM_VALUE[a]] for a in arms]
    values[0] = None  # a failed trial
    return _record("cycling", seed, arms, values)


def _oracle(seed: int) -> dict[str, Any]:
    return _record("oracle", seed, [BEST_ARM] * N_TRIALS, [[FUNC2C_OPTIMUM + ORACLE_GAP]] * N_TRIALS)


@pytest.fixture
def results(tmp_path: Path) -> Path:
    out = tmp_path / "results"
    for seed in SEEDS:
        for record in (_greedy(seed), _cycling(seed), _oracle(seed)):
            _write(out, record)
    return out


@pytest.fixture
def func2c_runs(results: Path) -> report.ProblemRuns:
    notes: list[str] = []
    (entry,) = report.collect(results, ["func2c"], ["greedy", "cycling"], notes)
    assert notes == []
    return entry


@pytest.fixture
def arm_values(func2c_runs: report.ProblemRuns) -> plots.ArmValues:
    records = [r for runs in func2c_runs.stored.values() for r in runs]
    return plots.arm_values(records, plots.categorical_names(func2c_runs.problem), MINIMIZE)


# ------------------------------------------------------------------ arms


def test_arm_values_are_the_best_observed_value_of_each_arm(arm_values: plots.ArmValues) -> None:
    assert arm_values.names == ("h1", "h2")
    assert set(arm_values.best) == set(ARMS)
    # (1, 1): the Oracle's incumbent beats greedy's best, optimum + 0.1 / 54 (seed 0, last trial)
    assert arm_values.best[BEST_ARM] == pytest.approx(FUNC2C_OPTIMUM + ORACLE_GAP)
    assert arm_values.best[NEAR_ARM] == ARM_VALUE[NEAR_ARM]
    assert arm_values.ranked()[:5] == [BEST_ARM, NEAR_ARM, FAR_ARM, (0, 0), (0, 2)]


def test_arm_values_take_the_oracles_best_per_combination() -> None:
    oracle = _oracle(0)
    oracle["combination_best"] = [{"params": _params(FAR_ARM), "value": FUNC2C_OPTIMUM}]
    values = plots.arm_values([_cycling(0), oracle], ("h1", "h2"), MINIMIZE)
    assert values.best[FAR_ARM] == FUNC2C_OPTIMUM  # better than anything the runs observed
    assert values.ranked()[0] == FAR_ARM


def test_pull_fractions_of_the_top_arms(arm_values: plots.ArmValues) -> None:
    top = arm_values.ranked()[:5]
    for seed in SEEDS:
        np.testing.assert_array_equal(plots.pull_fractions(_greedy(seed), top, arm_values, N_INIT), [1, 0, 0, 0, 0])
        # trials 24..53 pull each of the 15 arms twice
        np.testing.assert_allclose(plots.pull_fractions(_cycling(seed), top, arm_values, N_INIT), [1 / 15] * 5)
    short = _greedy(0) | {"params": _greedy(0)["params"][:N_INIT]}
    assert np.isnan(plots.pull_fractions(short, top, arm_values, N_INIT)).all()


def test_good_arms_reach_95_percent_of_the_way_from_worst_to_best(arm_values: plots.ArmValues) -> None:
    # range 0.8 - (optimum + 0.001) = 1.005326: good within 0.0502663 of the best value
    # (1, 1) gap 0, (0, 1) gap 0.045326: good; (1, 0) gap 0.105326: not
    assert plots.good_arms(arm_values) == {BEST_ARM, NEAR_ARM}


@pytest.mark.parametrize(
    ("direction", "values", "expected"),
    [
        # maximising negative values: best -1, worst -21, good within 1.0 of -1
        (MAXIMIZE, {"a": -1.0, "b": -1.9, "c": -2.1, "d": -21.0}, {"a", "b"}),
        # minimising negative values: best -21, worst -1, good up to -20
        (MINIMIZE, {"a": -21.0, "b": -20.1, "c": -19.9, "d": -1.0}, {"a", "b"}),
        # maximising positive values: 0.95 of the way from 0 to 1 is 0.95
        (MAXIMIZE, {"a": 1.0, "b": 0.96, "c": 0.94, "d": 0.0}, {"a", "b"}),
        (MINIMIZE, {"a": 3.0, "b": 3.0}, {"a", "b"}),
    ],
)
def test_good_arms_definition_in_both_directions(direction: str, values: dict[str, float], expected: set[str]) -> None:
    arm_values = plots.ArmValues(("h",), {(k,): v for k, v in values.items()}, direction)
    assert plots.good_arms(arm_values) == {(k,) for k in expected}


def test_good_choice_frequencies(arm_values: plots.ArmValues) -> None:
    good = plots.good_arms(arm_values)
    np.testing.assert_array_equal(plots.good_choices(_greedy(0), good, arm_values, N_INIT), np.ones(N_POST))
    # cycling: trial i pulls ARMS[i % 15]; (0, 1) is arm 1 and (1, 1) arm 6, so the good trials
    # after the initial design are i = 31, 36, 46, 51, iterations t = i - 23 = 8, 13, 23, 28
    cycling = plots.good_choices(_cycling(0), good, arm_values, N_INIT)
    assert [t for t, g in enumerate(cycling, start=1) if g] == [8, 13, 23, 28]
    smoothed = plots.trailing_mean(cycling, 10)
    assert smoothed[12] == pytest.approx(0.2)  # t = 13: iterations 4..13 hold t = 8 and 13
    assert smoothed[0] == 0.0 and smoothed[7] == pytest.approx(1 / 8)  # fewer points at the start


def test_trailing_mean_leaves_out_nan() -> None:
    np.testing.assert_allclose(plots.trailing_mean(np.array([1.0, np.nan, 0.0, 1.0]), 2), [1.0, 1.0, 0.0, 0.5])


# ------------------------------------------------------------------ tables


def test_regret_table_means_at_the_checkpoints(func2c_runs: report.ProblemRuns) -> None:
    table = report.regret_table([func2c_runs], CHECKPOINTS, N_INIT)
    rows = {line.split(" | ")[1]: line.split(" | ") for line in table.splitlines()[2:]}
    assert "t=10 (trial 34)" in table.splitlines()[0]
    # greedy: regret at iteration t (trial index t + 23) is 0.1 / (t + 24) + 0.01 seed
    for column, t in ((3, 10), (4, 30)):
        mean, se = (float(v) for v in rows["greedy"][column].split(" ± "))
        assert mean == pytest.approx(0.1 / (t + 24) + 0.005, rel=1e-2)
        assert se == pytest.approx(0.005, rel=1e-2)
    assert rows["greedy"][5].strip(" |") == "-"  # t = 50 is past the 54 trials
    # cycling: (1, 1) at value -0.2 is pulled at trial 6, then the regret stays
    assert float(rows["cycling"][3].split(" ± ")[0]) == pytest.approx(-0.2 - FUNC2C_OPTIMUM, rel=1e-2)
    assert float(rows["oracle"][3].split(" ± ")[0]) == pytest.approx(ORACLE_GAP, rel=1e-2)


def test_checkpoint_reached_by_some_runs_counts_them(results: Path) -> None:
    short = _greedy(2) | {"n_trials": 30, "values": _greedy(2)["values"][:30], "params": _greedy(2)["params"][:30]}
    _write(results, short)
    (entry,) = report.collect(results, ["func2c"], ["greedy"], [])
    row = report.regret_table([entry], CHECKPOINTS, N_INIT).splitlines()[2]
    assert "(n=2)" in row.split(" | ")[4]  # t = 30 is trial 54: seeds 0 and 1 only


def test_overhead_table_means_the_post_initial_trials(func2c_runs: report.ProblemRuns) -> None:
    table = report.overhead_table([func2c_runs], ["greedy", "cycling", "oracle"], N_INIT)
    header, _, row = table.splitlines()
    assert header == "| problem | greedy | cycling |"  # the Oracle is no sampler here
    # 0.1 (seed 0) and 0.2 (seed 1) per trial after the initial design
    assert row.split(" | ")[1] == report.format_mean_se(0.15, 0.05)


def test_mean_keeps_the_digits_its_standard_error_resolves() -> None:
    assert report.format_mean_se(91.437021, 1.4e-5) == "91.437021 ± 1.4e-05"
    assert report.format_mean_se(0.15, 0.05) == "0.15 ± 0.05"
    assert report.format_mean_se(0.0, 0.0) == "0 ± 0"
    assert report.format_mean_se(2.5, math.nan) == "2.5"


def test_one_sided_p_value_follows_the_metric_direction() -> None:
    low, high = np.arange(10.0), np.arange(10.0) + 20.0
    assert report.one_sided_p_value(low, high, lower_better=True) < 1e-3
    assert report.one_sided_p_value(low, high, lower_better=False) > 0.999
    assert report.one_sided_p_value(np.zeros(5), np.zeros(7), lower_better=True) == 1.0


def test_comparison_table_sets_the_reference_against_every_sampler(func2c_runs: report.ProblemRuns) -> None:
    table = report.comparison_table([func2c_runs], CHECKPOINTS, N_INIT, reference="greedy")
    rows = {line.split(" | ")[1]: line.strip("| ").split(" | ") for line in table.splitlines()[2:]}
    assert set(rows) == {"(rank by mean)", "cycling", "oracle"}
    # cycling reaches the best arm (regret -0.2 - optimum = 0.0063) by t = 10, below greedy's 0.0079
    assert rows["(rank by mean)"][2:] == ["2 of 2", "2 of 2", "-"]
    # t = 10: greedy's mean regret 0.1 / 34 + 0.005 against cycling's constant -0.2 - optimum
    difference = 0.1 / 34 + 0.005 - (-0.2 - FUNC2C_OPTIMUM)
    assert float(rows["cycling"][2].split(" ")[0]) == pytest.approx(difference, rel=1e-2)
    assert rows["oracle"][2].startswith("+")  # the Oracle is ahead
    assert rows["cycling"][4] == "-"  # t = 50: no run reaches it


def test_comparison_without_oracle_or_optimum_measures_the_best_found(func2c_runs: report.ProblemRuns) -> None:
    unknown = dataclasses.replace(func2c_runs.problem, optimum=None)
    entry = dataclasses.replace(func2c_runs, problem=unknown, oracle=[])
    table = report.comparison_table([entry], CHECKPOINTS, N_INIT, reference="cycling")
    last = table.splitlines()[-1].strip("| ").split(" | ")
    # the best value stored is the Oracle's (optimum + 0.001), below cycling's -0.2 from t = 10 on
    assert last[1] == f"best found in any stored run ({FUNC2C_OPTIMUM + ORACLE_GAP:.6g})"
    assert float(last[2]) == pytest.approx(-0.2 - (FUNC2C_OPTIMUM + ORACLE_GAP), rel=1e-2)


def test_mean_se_over_runs_of_different_lengths() -> None:
    mean, se, count = report.mean_se_over_runs([np.array([1.0, 2.0, 3.0]), np.array([3.0, np.nan])])
    np.testing.assert_allclose(mean, [2.0, 2.0, 3.0])
    np.testing.assert_allclose(se, [1.0, math.nan, math.nan])
    np.testing.assert_array_equal(count, [2, 1, 1])


# ------------------------------------------------------------------ the command


def test_report_command_writes_tables_and_figures(
    results: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    figures = tmp_path / "figures"
    main([
        "report", "--problems", "func2c,func3c", "--samplers", "greedy,cycling,tpe",
        "--out", str(results), "--figures", str(figures), "--checkpoints", ",".join(map(str, CHECKPOINTS)),
    ])  # fmt: skip
    text = (results / report.REPORT_NAME).read_text(encoding="utf-8")
    assert capsys.readouterr().out.strip() == text.strip()
    for kind in ("best", "top5_arms", "good_choices"):
        png = figures / f"func2c_{kind}.png"
        assert png.stat().st_size > 0
        assert f"](../figures/func2c_{kind}.png)" in text
    assert "func3c: no results" in text
    assert "func2c: no results for tpe" in text
    assert "no ablation figure" in text  # neither vpbo-v0/vpbo-v0-noinit nor cocabo-s/cocabo-auto stored
    assert "top5_arm_pulls.png" not in text  # one problem only


def test_report_defaults_write_under_out_and_read_the_runs(
    results: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Given only --problems, --samplers and --out, run from another folder: every file it writes
    is under --out (the figures in <out>/figures), and its checkpoints are the trials the runs
    reach (25, 50 and their last, 54), with a value in every cell."""
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    before = set(tmp_path.rglob("*"))
    main(["report", "--problems", "func2c", "--samplers", "greedy,cycling", "--out", str(results)])
    lines = capsys.readouterr().out.splitlines()
    written = set(tmp_path.rglob("*")) - before
    assert written and all(path.is_relative_to(results) for path in written), sorted(written)
    assert (results / "figures" / "func2c_best.png").stat().st_size > 0
    header = next(line for line in lines if line.startswith("| problem (metric) |"))
    assert header.endswith("| t=25 (trial 25) | t=50 (trial 50) | t=54 (trial 54) |"), header
    rows = [line for line in lines if line.startswith("| func2c (simple regret) |")]
    assert len(rows) >= 2 and not any(" - |" in row for row in rows), rows


def test_default_checkpoints_follow_the_longest_run(func2c_runs: report.ProblemRuns) -> None:
    assert report.default_checkpoints([func2c_runs]) == [25, 50, N_TRIALS]
    assert report.default_checkpoints([func2c_runs], n_init=N_INIT) == [25, N_POST]
    longer = dataclasses.replace(func2c_runs, runs={"greedy": [{"values": [[0.0]] * 224}]})
    assert report.default_checkpoints([longer]) == [25, 50, 100, 200, 224]
    assert report.default_checkpoints([longer], n_init=24) == [25, 50, 100, 200]  # the paper's T = 200
    assert report.default_checkpoints([longer], n_init=224) == []


def test_report_name_keeps_the_main_report(results: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    main([
        "report", "--problems", "func2c", "--samplers", "greedy", "--out", str(results),
        "--figures", str(tmp_path / "figures"), "--report-name", "ABLATION.md", "--seeds", "1",
    ])  # fmt: skip
    capsys.readouterr()
    assert "| func2c (simple regret) | greedy | 1 |" in (results / "ABLATION.md").read_text(encoding="utf-8")
    assert not (results / report.REPORT_NAME).exists()


def test_ablation_and_overall_figures(results: Path, tmp_path: Path) -> None:
    for seed in SEEDS:
        _write(results, _greedy(seed) | {"sampler": "vpbo-v0"})
        _write(results, _cycling(seed) | {"sampler": "vpbo-v0-noinit"})
        func3c_params = [p | {"h3": 0} for p in _cycling(seed)["params"]]
        _write(results, _cycling(seed) | {"problem": "func3c", "params": func3c_params})
    notes: list[str] = []
    collected = report.collect(results, ["func2c", "func3c"], ["greedy", "cycling"], notes)
    figures = plots.write_figures(collected, tmp_path / "figures", ["greedy", "cycling"], notes)
    names = {path.name for path, _ in figures}
    assert {"func2c_init_ablation.png", "top5_arm_pulls.png", "func3c_best.png"} <= names
    assert all(path.stat().st_size > 0 for path, _ in figures)
    assert "func3c: no results for greedy, skipped." in notes


def test_multi_objective_problem_uses_the_first_objective(tmp_path: Path) -> None:
    out = tmp_path / "results"
    for seed in SEEDS:
        params = [{"catalyst": "tBuXPhos", "base": base, "base_equivalents": 1.0} for base in ("DBU", "TMG") * 15]
        values = [[0.5 + 0.01 * i, 0.3] for i in range(len(params))]
        record = _record("greedy", seed, [BEST_ARM] * len(params), values)
        _write(out, record | {"problem": "baumgartner_mo", "params": params})
    notes: list[str] = []
    collected = report.collect(out, ["baumgartner_mo"], ["greedy"], notes)
    assert any("first objective" in n for n in notes)
    table = report.regret_table(collected, [1, 7], N_INIT)
    # yield maximised towards the optimum 1.0: at trial 25 the best yield is 0.74
    assert float(table.splitlines()[2].split(" | ")[3].split(" ± ")[0]) == pytest.approx(0.26)
    assert table.splitlines()[2].split(" | ")[4].strip(" |") == "-"
    figures = plots.write_figures(collected, tmp_path / "figures", ["greedy"], notes)
    assert {p.name for p, _ in figures} >= {"baumgartner_mo_best.png", "baumgartner_mo_good_choices.png"}
