"""Smoke runs of the benchmark runner (resume) and the overhead measurement at tiny budgets."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import optuna_vpbo
from vpbo_benchmarks import overhead
from vpbo_benchmarks.records import records_path
from vpbo_benchmarks.runner import load_results, numpy_simd, run


def test_run_stores_one_file_per_problem_and_resumes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    run(["func2c"], ["random", "vpbo"], [0], 5, tmp_path, jobs=1)
    assert [p.name for p in tmp_path.iterdir()] == [records_path(tmp_path, "func2c").name]
    for sampler in ("random", "vpbo"):
        (record,) = load_results(tmp_path, "func2c", sampler)
        assert record["n_trials"] == 5 and len(record["values"]) == 5 and len(record["params"]) == 5
        # the categorical parameters are stored, the continuous ones are not
        assert all(set(params) == {"h1", "h2"} for params in record["params"])
        assert all(s >= 0 for s in record["sampler_seconds"])
        assert record["environment"]["optuna"]
        assert record["environment"]["libraries"]["scikit-learn"]  # an installed optional library
        assert set(record["environment"]["threads"].values()) == {"1"}  # one thread per run
        # the kernels that set the run's round-off: NumPy's BLAS is loaded by then
        assert any(k.startswith("openblas ") for k in record["environment"]["kernels"]["blas"])
        assert record["environment"]["kernels"]["core"] == optuna_vpbo.INSTRUCTION_SET  # the native core's variant
        assert record["environment"]["kernels"]["numpy"] == numpy_simd()
    capsys.readouterr()
    run(["func2c"], ["random", "vpbo"], [0], 5, tmp_path, jobs=1)
    assert "0 runs to do (2 stored already)" in capsys.readouterr().out


def test_smac_runs_repeat_exactly_across_worker_processes(tmp_path: Path) -> None:
    # SMAC's choices follow Python's salted string hashing; the runner's workers fix the salt.
    pytest.importorskip("smac")
    for out in ("first", "second"):
        run(["func2c"], ["smac"], [0], 30, tmp_path / out, jobs=1)
    first, second = (load_results(tmp_path / out, "func2c", "smac")[0] for out in ("first", "second"))
    assert first["params"] == second["params"]
    assert first["environment"]["hash_seed"] == "0"


def test_run_rejects_unknown_names(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="nope"):
        run(["func2c"], ["nope"], [0], 5, tmp_path, jobs=1)


def test_overhead_measures_the_window_and_the_floor_grows_with_n() -> None:
    measurement = overhead.measure("func2c", "vpbo", n_trials=30, window=2)
    assert measurement.n_trials == 30 and measurement.median_seconds > 0
    # dominated by the n^2 S triangular solves: doubling n about quadruples the work
    ratio = overhead.proposal_flops("func2c", 400, 512, 4096) / overhead.proposal_flops("func2c", 200, 512, 4096)
    assert 3.5 < ratio < 5.0
    table = overhead.overhead_table([measurement], 1e10, 512, 4096)
    assert f"| {overhead.CASE_LABELS['func2c']} | 15 | 30 | " in table


def test_overhead_curve_cases_report_at_least_20_steps_and_prune_three_in_four() -> None:
    import optuna

    for case, pruned in (("func2c_curves", 0), ("func2c_curves_pruned", 3)):
        objective, direction, _ = overhead.CASES[case]
        study = optuna.create_study(direction=direction, sampler=optuna.samplers.RandomSampler(seed=0))
        study.optimize(objective, n_trials=8)
        states = [t.state for t in study.trials]
        assert states.count(optuna.trial.TrialState.PRUNED) == 2 * pruned
        assert all(len(t.intermediate_values) >= overhead.MIN_PRUNED_STEPS for t in study.trials)
        complete = [t for t in study.trials if t.state == optuna.trial.TrialState.COMPLETE]
        assert all(len(t.intermediate_values) == overhead.CURVE_STEPS for t in complete)


def test_overhead_results_round_trip_and_draw(tmp_path: Path) -> None:
    measurements = [overhead.measure("func2c", name, n_trials=12, window=2) for name in ("vpbo", "random")]
    path = tmp_path / "overhead.json"
    overhead.save_results(path, measurements, 1e10, 512, 4096)
    loaded, record = overhead.load_results(path)
    assert loaded == measurements and record["gemm_flops_per_second"] == 1e10
    figures = overhead.write_figures(loaded, tmp_path / "figures")
    assert figures and all(f.exists() and f.stat().st_size > 0 for f in figures)


def test_hypervolume_against_a_hand_computed_front() -> None:
    from vpbo_benchmarks.hypervolume import hypervolume_after, losses

    # two minimised objectives: points (1, 3), (2, 2), (3, 1) against reference (4, 4)
    points = losses({"values": [[1, 3], [2, 2], [3, 1], None]}, ("minimize", "minimize"))
    assert points.shape == (3, 2)
    assert hypervolume_after(points, np.array([4.0, 4.0]), 3) == pytest.approx(3 + 2 + 1)
    assert hypervolume_after(points, np.array([4.0, 4.0]), 1) == pytest.approx(3)
    # a maximised objective is negated
    assert losses({"values": [[1, 3]]}, ("maximize", "minimize")).tolist() == [[-1.0, 3.0]]


def test_numpy_simd_names_the_dispatched_features_and_none_when_disabled(tmp_path: Path) -> None:
    code = "from vpbo_benchmarks.runner import numpy_simd; print(','.join(numpy_simd()))"
    # From tmp_path: the repository root's source folder would shadow the installed package.
    command = [sys.executable, "-c", code]
    features = subprocess.run(command, cwd=tmp_path, capture_output=True, text=True, check=True).stdout.strip()
    if not features:
        pytest.skip("this CPU has no SIMD feature above NumPy's baseline")
    disabled = {**os.environ, "NPY_DISABLE_CPU_FEATURES": features.replace(",", " ")}
    none = subprocess.run(command, cwd=tmp_path, env=disabled, capture_output=True, text=True, check=True)
    assert none.stdout.strip() == ""
