"""The one problem registry: every family registers into it, each name once, and the heavy
families are named there and imported only when one of their problems is built (lazy.py)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from vpbo_benchmarks import (
    chemistry_problems,
    combinatorial,
    held_out_sets,
    large_spaces,
    lazy,
    ml_problems,
    numeric_problems,
    registry,
    short_studies,
    suite,
    synthetic_problems,
)
from vpbo_benchmarks.problem import Problem

HEAVY_TOP_LEVEL = ("sklearn", "xgboost", "mlxtend", "smac", "ConfigSpace", "dask", "cmaes", "torch", "ax", "optuna_integration")


def test_every_family_registers_its_problems_once() -> None:
    families = [
        synthetic_problems.PROBLEMS, chemistry_problems.PROBLEMS, ml_problems.PROBLEMS, suite.PROBLEMS, held_out_sets.PROBLEMS,
        numeric_problems.PROBLEMS, combinatorial.PROBLEMS, large_spaces.PROBLEMS, short_studies.PROBLEMS,
    ]
    names = [name for family in families for name in family]
    assert len(names) == len(set(names))
    assert set(registry.PROBLEMS) == set(names) and list(registry.PROBLEM_NAMES) == list(registry.PROBLEMS)
    assert set(registry.ML_PROBLEM_NAMES) == set(ml_problems.PROBLEMS)
    with pytest.raises(ValueError, match="registered twice: func2c"):
        registry.register(synthetic_problems.PROBLEMS, {"func2c": synthetic_problems.PROBLEMS["func2c"]})


def test_the_groups_and_specifications_cover_the_suite_and_the_held_out_sets() -> None:
    assert registry.expand_groups(["tuning", "func2c"]) == [*suite.TUNING, "func2c"]
    for problem_set in held_out_sets.HELD_OUT_SETS:  # registered as the other problem sets are
        size = 7 if problem_set.name == "policy_held_out" else 8
        assert registry.PROBLEM_SETS[problem_set.name] == problem_set and len(problem_set.problems) == size
        assert registry.GROUPS[problem_set.name] == problem_set.problems
    names = [s.name for s in held_out_sets.HELD_OUT_SETS]
    assert names == ["fresh_held_out", "adapt_held_out", "final_held_out", "policy_held_out"]
    assert registry.expand_groups(["numeric"]) == ["hartmann6", *numeric_problems.SKLEARN_TASK_NAMES]
    assert set(registry.SPECS) == set(suite.SUITE_SPECS) | set(held_out_sets.SPECS)
    assert set(held_out_sets.SPECS) == {name for s in held_out_sets.HELD_OUT_SETS for name in s.problems}
    assert all(name in registry.PROBLEMS for group in registry.GROUPS.values() for name in group)


def test_a_heavy_problem_is_built_through_its_deferred_module() -> None:
    problem = registry.get_problem("xg_mnist")
    assert isinstance(problem, Problem) and problem.name == "xg_mnist" and problem.directions == ("maximize",)
    with pytest.raises(ValueError, match="unknown problem"):
        registry.get_problem("no_such_problem")
    with pytest.raises(ValueError, match="heavy modules"):
        lazy.deferred("vpbo_benchmarks.registry", "get_problem")


def test_the_command_line_imports_no_heavy_library(tmp_path: Path) -> None:
    # A fresh interpreter: what `vpbo-benchmark list`, `table` and `docs` pay at start-up.
    code = (
        "import json, sys; import vpbo_benchmarks.cli; "
        f"print(json.dumps(sorted(m for m in {HEAVY_TOP_LEVEL!r} if m in sys.modules)))"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=tmp_path, timeout=300)
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout) == []
