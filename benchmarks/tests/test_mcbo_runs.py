"""MCBO's stored runs (vpbo_benchmarks.mcbo_runs, written by benchmarks/scripts/run_mcbo_peers.py
in MCBO's own venv): an MCBO point becomes the lab's parameters of the same function, and a stored
MCBO run is read by the lab's report beside the lab's samplers. MCBO itself is not needed: its
search spaces are written here as its tasks list them (get_search_space_params)."""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Any

import numpy as np
import optuna
import pytest

from vpbo_benchmarks import combinatorial, mcbo_runs, registry
from vpbo_benchmarks.cli import main
from vpbo_benchmarks.problem import single_objective
from vpbo_benchmarks.records import append_record, load_problem
from vpbo_benchmarks.runner import run_one

SCRIPT = Path(__file__).resolve().parents[1] / "scripts" / "run_mcbo_peers.py"
PEST_CATEGORIES = ["do nothing", "pesticide 1", "pesticide 2", "pesticide 3", "pesticide 4"]


def pest_space() -> list[dict[str, Any]]:
    return [{"name": f"stage_{i}", "type": "nominal", "categories": PEST_CATEGORIES} for i in range(1, 26)]


def ackley_20x11_space() -> list[dict[str, Any]]:
    categories = np.linspace(-32.768, 32.768, 11).tolist()
    return [{"name": f"var_{i}", "type": "nominal", "categories": categories} for i in range(1, 21)]


def ackley53_space() -> list[dict[str, Any]]:
    nominal = [{"name": f"var_{i}", "type": "nominal", "categories": [0.0, 1.0]} for i in range(1, 51)]
    return [*nominal, *({"name": f"var_{i}", "type": "num", "lb": -1.0, "ub": 1.0} for i in range(51, 54))]


def mcbo_ackley(values: list[float]) -> float:
    """MCBO's Ackley (sfu_functions/ackley.py): sums divided by the number of dimensions."""
    x = np.asarray(values, dtype=float)
    d = len(x)
    return float(-20 * np.exp(-0.2 * np.sqrt((x**2).sum() / d)) - np.exp(np.cos(2 * np.pi * x).sum() / d) + 20 + np.exp(1))


def lab_value(problem: str, params: dict[str, Any]) -> float:
    return single_objective(registry.get_problem(problem))(optuna.trial.FixedTrial(params))


def test_an_mcbo_point_is_the_same_point_of_the_lab_s_problem() -> None:
    rng = np.random.RandomState(5)
    stages = rng.randint(0, 5, 25)
    point = {f"stage_{i}": PEST_CATEGORIES[k] for i, k in enumerate(stages, start=1)}
    params = mcbo_runs.lab_params("pest_control", pest_space(), point)
    assert params == {f"stage{i}": int(k) for i, k in enumerate(stages, start=1)}
    assert lab_value("pest_control", params) == combinatorial.pest_control(stages.tolist())

    space = ackley_20x11_space()
    chosen = [space[i]["categories"][j] for i, j in enumerate(rng.randint(0, 11, 20))]
    params = mcbo_runs.lab_params("ackley_20x11", space, {f"var_{i}": v for i, v in enumerate(chosen, start=1)})
    assert lab_value("ackley_20x11", params) == pytest.approx(mcbo_ackley(chosen), rel=1e-12)

    chosen = [float(b) for b in rng.randint(0, 2, 50)] + rng.uniform(-1, 1, 3).tolist()
    params = mcbo_runs.lab_params("ackley53", ackley53_space(), {f"var_{i}": v for i, v in enumerate(chosen, start=1)})
    assert [params[f"h{i}"] for i in range(1, 51)] == [int(b) for b in chosen[:50]]
    assert lab_value("ackley53", params) == pytest.approx(mcbo_ackley(chosen), rel=1e-12)
    with pytest.raises(ValueError, match="25 parameters"):
        mcbo_runs.lab_params("ackley_20x11", pest_space(), point)


def fake_mcbo_record(seed: int, n_trials: int) -> dict[str, Any]:
    """A stored MCBO run on Pest Control: random points with their values, as the script makes one."""
    rng = np.random.RandomState(seed)
    trials = []
    for _ in range(n_trials):
        point = {f"stage_{i}": PEST_CATEGORIES[rng.randint(5)] for i in range(1, 26)}
        params = mcbo_runs.lab_params("pest_control", pest_space(), point)
        trials.append((params, combinatorial.pest_control(list(params.values())), 0.01))
    environment = mcbo_runs.peer_environment("gp_to__is__ei__basic", {"torch": "x"}, "huawei-noah/HEBO@test", "python ...", 20)
    return mcbo_runs.mcbo_record("pest_control", "mcbo-casmopolitan", seed, trials, 1.0, environment)


def test_a_stored_mcbo_run_is_read_by_the_report_beside_the_lab_s(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    append_record(tmp_path, fake_mcbo_record(0, 8))
    append_record(tmp_path, run_one("pest_control", "random", 0, 8))
    runs = load_problem(tmp_path, "pest_control")
    stored = runs["mcbo-casmopolitan"][0]
    assert stored["params"][0] == fake_mcbo_record(0, 8)["params"][0] and len(stored["values"]) == 8
    assert stored["environment"]["mcbo"] == {"optimizer": "gp_to__is__ei__basic", "n_init": 20, "source": "huawei-noah/HEBO@test"}
    assert mcbo_runs.seeds_to_run(tmp_path, "pest_control", "mcbo-casmopolitan", range(3), 8) == [1, 2]
    assert mcbo_runs.seeds_to_run(tmp_path, "pest_control", "mcbo-casmopolitan", range(3), 9) == [0, 1, 2]
    main(["report", "--problems", "pest_control", "--samplers", "random,mcbo-casmopolitan", "--out", str(tmp_path)])
    report = (tmp_path / "REPORT.md").read_text(encoding="utf-8")
    assert "mcbo-casmopolitan" in report and "random" in report and "no results" not in report


def test_the_script_names_only_the_lab_s_problems_and_the_shared_module() -> None:
    """The script (not importable here: it imports MCBO and PyTorch) uses the lab only through
    mcbo_runs and records, which import nothing heavy."""
    tree = ast.parse(SCRIPT.read_text(encoding="utf-8"))
    modules = {node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom) and node.module}
    lab = {module for module in modules if module.startswith("vpbo_benchmarks")}
    assert lab == {"vpbo_benchmarks.mcbo_runs", "vpbo_benchmarks.records"}
    shared = ast.parse(Path(mcbo_runs.__file__).read_text(encoding="utf-8"))
    imported = {alias.name for node in ast.walk(shared) if isinstance(node, ast.Import) for alias in node.names}
    imported |= {node.module for node in ast.walk(shared) if isinstance(node, ast.ImportFrom) and node.module}
    assert imported <= {"__future__", "os", "platform", "collections.abc", "pathlib", "typing", "vpbo_benchmarks.records"}
    assert set(mcbo_runs.MCBO_TASKS) == set(combinatorial.COMBINATORIAL.problems) == set(mcbo_runs.LAB_NAMES)
