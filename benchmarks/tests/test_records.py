"""The compact storage of benchmark runs: round trip, appending, repeated runs, size."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import numpy as np

from vpbo_benchmarks.records import append_record, compact, expand, load_problem, records_path, repack
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


def test_repack_keeps_what_load_problem_reads_in_one_stream(tmp_path: Path) -> None:
    """Repacking keeps the later run of a repeated (sampler, seed), drops the samplers it is told
    to, rounds only the sampler seconds, and shrinks a file of appended streams."""
    rng = np.random.default_rng(1)
    records = [_record(sampler, seed, 100, rng) for sampler in ("a", "b", "c") for seed in range(4)]
    repeated = _record("a", 2, 120, rng)
    for record in [*records, repeated]:
        append_record(tmp_path, record)
    before = load_problem(tmp_path, "toy")
    size, packed = repack(records_path(tmp_path, "toy"), keep=lambda sampler: sampler != "c", seconds_digits=3)
    after = load_problem(tmp_path, "toy")
    assert packed < size and packed == records_path(tmp_path, "toy").stat().st_size
    assert list(after) == ["a", "b"] and after["a"][2]["n_trials"] == 120
    for sampler in after:
        for old, new in zip(before[sampler], after[sampler], strict=True):
            same = {k: v for k, v in old.items() if k != "sampler_seconds"}
            assert {k: v for k, v in new.items() if k != "sampler_seconds"} == same
            assert new["sampler_seconds"] == [float(f"{s:.2e}") for s in old["sampler_seconds"]]
    repack(records_path(tmp_path, "toy"), keep=lambda sampler: False)
    assert not records_path(tmp_path, "toy").exists()


def test_the_stored_command_has_no_path_of_the_machine() -> None:
    argv = ["/home/someone/src/benchmarks/vpbo_benchmarks/__main__.py", "run", "--problems", "func2c", "--out", "a b"]
    assert user_command(argv) == "python -m vpbo_benchmarks run --problems func2c --out 'a b'"
    assert user_command(["/usr/local/bin/pytest", "-q"]) == "pytest -q"
