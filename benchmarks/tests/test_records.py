"""The compact storage of benchmark runs: round trip, appending, repeated runs, size."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import numpy as np

from vpbo_benchmarks.records import append_record, compact, expand, load_problem, records_path
from vpbo_benchmarks.runner import user_command


def _record(sampler: str, seed: int, n_trials: int, rng: np.random.Generator) -> dict[str, Any]:
    return {
        "problem": "toy",
        "sampler": sampler,
        "seed": seed,
        "n_trials": n_trials,
        "values": [[float(v)] for v in rng.normal(size=n_trials)] + [None],
        "params": [{"c": str(i % 3), "k": i % 5, "x": float(rng.uniform())} for i in range(n_trials)] + [{}],
        "constraints": [[float(rng.normal())] for _ in range(n_trials)] + [[]],
        "sampler_seconds": [float(s) for s in rng.exponential(0.01, size=n_trials + 1)],
        "wall_seconds": 12.3456789,
        "environment": {"machine": "test", "command": "python -m vpbo_benchmarks run"},
    }


def test_compact_keeps_values_and_categoricals_exactly_and_drops_floats() -> None:
    conditional = {
        "problem": "toy",
        "sampler": "s",
        "seed": 0,
        "n_trials": 4,
        "values": [[1.0 / 3.0], None, [math.pi], [2.0]],
        "params": [{"model": "a", "depth": 3, "lr": 0.1}, {"model": "b", "flag": True}, {"model": None}, {}],
        "sampler_seconds": [0.1234567891, 2e-7, 0.0, 3.0],
    }
    back = expand(compact(conditional))
    assert back["values"] == conditional["values"]
    assert back["params"] == [{"model": "a", "depth": 3}, {"model": "b", "flag": True}, {"model": None}, {}]
    assert back["sampler_seconds"] == [0.123457, 0.0, 0.0, 3.0]  # microseconds


def test_runs_append_and_a_repeated_run_replaces_the_earlier_one(tmp_path: Path) -> None:
    rng = np.random.default_rng(0)
    first, other, second = _record("a", 1, 224, rng), _record("b", 0, 224, rng), _record("a", 0, 224, rng)
    for record in (first, other, second):
        append_record(tmp_path, record)
    size = records_path(tmp_path, "toy").stat().st_size
    longer = _record("a", 1, 230, rng)
    append_record(tmp_path, longer)
    growth = records_path(tmp_path, "toy").stat().st_size - size
    assert 0 < growth < 8_000  # a few kB per stored run of 230 trials
    stored = load_problem(tmp_path, "toy")
    assert list(stored) == ["a", "b"] and [r["seed"] for r in stored["a"]] == [0, 1]
    assert stored["a"][1]["n_trials"] == 230 and stored["a"][1]["values"] == longer["values"]
    assert stored["b"][0]["constraints"] == other["constraints"]
    assert load_problem(tmp_path, "missing") == {}


def test_the_stored_command_has_no_path_of_the_machine() -> None:
    argv = ["/home/someone/src/benchmarks/vpbo_benchmarks/__main__.py", "run", "--problems", "func2c", "--out", "a b"]
    assert user_command(argv) == "python -m vpbo_benchmarks run --problems func2c --out 'a b'"
    assert user_command(["/usr/local/bin/pytest", "-q"]) == "pytest -q"
