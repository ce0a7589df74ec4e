"""Compact storage of benchmark runs: one xz-compressed JSON-lines file per problem.

``<out>/<problem>.jsonl.xz`` holds one JSON line per run (sampler, seed); a new run is appended as
its own xz stream (an .xz file may be a concatenation of streams, xz file format 1.0.4 sec. 2),
so a stored run costs a few kB. xz (LZMA2, a dictionary as large as the file) rather than gzip
(32 kB window): the samplers' runs of one seed share trials (the initial designs) that gzip
cannot reach back to; the stored runs of the repository take 4 MB instead of 5.3 MB. Where a
(sampler, seed) appears twice (a run repeated with more trials), the later line wins.

A line is the runner's record with only what the report, the figures, the hypervolume table and
the Oracle read, at the precision they use:

- ``values`` (and ``constraints``) per trial at full precision;
- the parameters whose values are not floats (categorical and integer: the arms of the figures),
  as columns: ``params`` maps each name to its value per trial, ``{}`` where the trial has no such
  parameter (conditional spaces; ``{}`` cannot be a categorical choice). Float parameters (the
  continuous ones; no benchmark problem has a categorical with float choices) are not stored;
- ``sampler_seconds`` per trial rounded to the microsecond (the report prints at most a few
  significant digits of their means), ``wall_seconds`` to the millisecond;
- every other field (seed, the environment, the Oracle's per-combination best) as it is.

A stored folder is repacked (:func:`repack`) into one xz stream per file, a run per (sampler,
seed) and the lines sorted by them: the streams of appended runs cannot share a dictionary, so
a folder of 20-seed runs takes 30-50 % less once repacked. Repacking can also drop samplers
(runs of an experiment that did not ship) and round ``sampler_seconds`` to a few significant
digits where no stored table prints a time (benchmarks/README.md, "What gets stored").
"""

from __future__ import annotations

import json
import lzma
import os
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

RECORDS_SUFFIX = ".jsonl.xz"
_XZ_PRESET = 9 | lzma.PRESET_EXTREME
SECONDS_DECIMALS = 6
WALL_SECONDS_DECIMALS = 3
_ABSENT: dict[str, Any] = {}  # marks a parameter the trial does not have (conditional spaces)

Record = dict[str, Any]


def records_path(out_dir: Path, problem: str) -> Path:
    """The file of every stored run on ``problem``."""
    return Path(out_dir) / f"{problem}{RECORDS_SUFFIX}"


def compact(record: Record) -> Record:
    """The stored form of a runner record (see the module docstring)."""
    trials = record["params"]
    names = list(dict.fromkeys(name for params in trials for name, value in params.items() if not isinstance(value, float)))
    stored = dict(record)
    stored["params"] = {name: [params.get(name, _ABSENT) for params in trials] for name in names}
    stored["sampler_seconds"] = [round(float(s), SECONDS_DECIMALS) for s in record["sampler_seconds"]]
    if "wall_seconds" in record:
        stored["wall_seconds"] = round(float(record["wall_seconds"]), WALL_SECONDS_DECIMALS)
    return stored


def expand(stored: Record) -> Record:
    """The runner record of a stored line: ``params`` back to one dict per trial."""
    record = dict(stored)
    columns = stored["params"]
    n_trials = len(stored["values"])
    record["params"] = [
        {name: column[i] for name, column in columns.items() if column[i] != _ABSENT} for i in range(n_trials)
    ]
    return record


def _line(record: Record) -> bytes:
    return (json.dumps(compact(record), separators=(",", ":")) + "\n").encode()


def _replace(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` atomically: an interrupted write leaves the old file."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + f".{os.getpid()}.tmp")
    tmp.write_bytes(data)
    tmp.replace(path)


def append_record(out_dir: Path, record: Record) -> None:
    """Add one run to its problem's file as a new xz stream."""
    path = records_path(out_dir, record["problem"])
    existing = path.read_bytes() if path.exists() else b""
    _replace(path, existing + lzma.compress(_line(record), preset=_XZ_PRESET))


def write_records(path: Path, records: Iterable[Record]) -> None:
    """Store ``records`` in ``path`` (replacing it) as one xz stream."""
    _replace(path, lzma.compress(b"".join(_line(r) for r in records), preset=_XZ_PRESET))


def _significant(value: float, digits: int) -> float:
    """``value`` rounded to ``digits`` significant digits (0.0 stays 0.0)."""
    return float(f"{value:.{digits - 1}e}") if value else 0.0


def repack(
    path: Path, keep: Callable[[str], bool] = lambda sampler: True, seconds_digits: int | None = None,
) -> tuple[int, int]:
    """Rewrite a stored file as one xz stream: the later line of each (sampler, seed) (what
    :func:`load_problem` reads), of the samplers that ``keep`` accepts, sorted by sampler and
    seed; with ``seconds_digits``, ``sampler_seconds`` rounded to that many significant digits.
    Nothing else of a line changes. Removes the file if no run is left. Returns (bytes before,
    bytes after)."""
    before = path.stat().st_size
    last: dict[tuple[str, int], dict[str, Any]] = {}
    for line in lzma.decompress(path.read_bytes()).decode().splitlines():
        if line.strip():
            stored = json.loads(line)
            last[(stored["sampler"], stored["seed"])] = stored
    lines = []
    for key in sorted(k for k in last if keep(k[0])):
        stored = last[key]
        if seconds_digits is not None:
            stored["sampler_seconds"] = [_significant(float(s), seconds_digits) for s in stored["sampler_seconds"]]
        lines.append((json.dumps(stored, separators=(",", ":")) + "\n").encode())
    if not lines:
        path.unlink()
        return before, 0
    _replace(path, lzma.compress(b"".join(lines), preset=_XZ_PRESET))
    return before, path.stat().st_size


def load_problem(out_dir: Path, problem: str) -> dict[str, list[Record]]:
    """The runs stored for ``problem``: per sampler (sorted by name), one per seed, sorted by seed."""
    path = records_path(out_dir, problem)
    if not path.exists():
        return {}
    runs: dict[str, dict[int, Record]] = {}
    for line in lzma.decompress(path.read_bytes()).decode().splitlines():
        if line.strip():
            record = expand(json.loads(line))
            runs.setdefault(record["sampler"], {})[record["seed"]] = record
    return {sampler: [runs[sampler][seed] for seed in sorted(runs[sampler])] for sampler in sorted(runs)}
