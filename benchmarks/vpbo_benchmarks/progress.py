"""Progress bars of ``vpbo-benchmark run`` (tqdm, on stderr): one for all runs, counted in trials
so that its estimate of the time left follows the work, and one per run in progress.

The runs go on in worker processes; each reports its finished trials through a queue
(``TrialReporter``, an Optuna callback), and the parent process draws the bars
(``RunProgress.poll``)."""

from __future__ import annotations

import queue
import sys
from collections.abc import Hashable
from typing import Any

from tqdm import tqdm

POLL_SECONDS = 0.2  # how often the parent reads the workers' reports


class TrialReporter:
    """Optuna callback in a worker: puts (run key, trials finished) on the queue."""

    def __init__(self, messages: Any, key: Hashable) -> None:
        self.messages = messages
        self.key = key

    def __call__(self, study: Any, trial: Any) -> None:
        self.messages.put((self.key, trial.number + 1))


class RunProgress:
    """The bars of one ``run``: ``total_runs`` runs of ``n_trials`` trials each."""

    def __init__(self, total_runs: int, n_trials: int, enabled: bool | None = None) -> None:
        # None: bars only where someone watches (stderr is a terminal).
        self.enabled = sys.stderr.isatty() if enabled is None else enabled
        self.n_trials = n_trials
        self.total_runs = total_runs
        self.finished_runs = 0
        self.overall = tqdm(
            total=total_runs * n_trials,
            desc=self._overall_description(),
            unit="trial",
            position=0,
            disable=not self.enabled,
            file=sys.stderr,
            dynamic_ncols=True,
        )
        self.runs: dict[Hashable, tqdm] = {}
        self.lines: dict[Hashable, int] = {}  # the terminal line of each run's bar, below the overall one
        self.counted: dict[Hashable, int] = {}

    def _free_line(self) -> int:
        taken = set(self.lines.values())
        return min(line for line in range(1, len(taken) + 2) if line not in taken)

    def _overall_description(self) -> str:
        return f"all runs ({self.finished_runs}/{self.total_runs} done)"

    def _bar(self, key: Hashable) -> tqdm:
        if key not in self.runs:
            line = self._free_line()
            self.lines[key] = line
            self.runs[key] = tqdm(
                total=self.n_trials,
                desc=str(key),
                unit="trial",
                position=line,
                leave=False,
                disable=not self.enabled,
                file=sys.stderr,
                dynamic_ncols=True,
            )
            self.counted[key] = 0
        return self.runs[key]

    def advance(self, key: Hashable, trials_done: int) -> None:
        """A run reports ``trials_done`` finished trials."""
        bar = self._bar(key)
        step = max(0, min(trials_done, self.n_trials) - self.counted[key])
        self.counted[key] += step
        bar.update(step)
        self.overall.update(step)

    def poll(self, messages: Any) -> None:
        """Read every report waiting on the queue."""
        while True:
            try:
                key, trials_done = messages.get_nowait()
            except queue.Empty:
                return
            self.advance(key, trials_done)

    def finish_run(self, key: Hashable, line: str) -> None:
        """A run is stored: its bar goes, the rest of its trials count (a resumed or Oracle run
        reports none), and ``line`` is printed above the bars."""
        self.advance(key, self.n_trials)
        self.runs.pop(key).close()
        self.lines.pop(key)
        self.finished_runs += 1
        self.overall.set_description(self._overall_description())
        tqdm.write(line, file=sys.stdout)
        sys.stdout.flush()

    def close(self) -> None:
        for bar in self.runs.values():
            bar.close()
        self.overall.close()
