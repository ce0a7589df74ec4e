"""The repeats report (``vpbo-benchmark report --sections repeats``): repeated configurations counted by hand."""

from __future__ import annotations

from pathlib import Path

from vpbo_benchmarks.cli import main
from vpbo_benchmarks.records import Record, append_record
from vpbo_benchmarks.repeats_report import repeat_count, repeat_rows


def knn_record(seed: int, configurations: list[tuple[int, int]], values: list[float]) -> Record:
    return {
        "problem": "knn_breast", "sampler": "toy", "seed": seed, "n_trials": len(values),
        "values": [[v] for v in values], "params": [{"n_neighbors": k, "p": p} for k, p in configurations],
        "constraints": [[] for _ in values], "sampler_seconds": [0.0 for _ in values],
    }


def test_a_repeat_is_a_configuration_seen_before_in_the_run() -> None:
    record = knn_record(0, [(1, 1), (2, 1), (1, 1), (1, 2), (2, 1), (1, 1)], [0.5, 0.4, 0.5, 0.3, 0.4, 0.5])
    assert repeat_count(record) == 3
    assert repeat_count(knn_record(0, [(1, 1), (1, 2), (2, 1)], [0.5, 0.4, 0.3])) == 0


def test_rows_and_the_command_from_stored_runs(tmp_path: Path) -> None:
    append_record(tmp_path, knn_record(0, [(1, 1), (1, 1), (3, 2)], [0.5, 0.5, 0.2]))
    append_record(tmp_path, knn_record(1, [(4, 1), (5, 1), (5, 1)], [0.3, 0.25, 0.25]))
    (row,) = repeat_rows(tmp_path, ["knn_breast"])
    assert row[:5] == ["knn_breast", "toy", "2", "1.0 (1)", "2.0"]
    main(["report", "--sections", "repeats", "--out", str(tmp_path), "--problems", "knn_breast"])
    assert "| knn_breast | toy | 2 | 1.0 (1) | 2.0 |" in (tmp_path / "REPEATS.md").read_text()
