"""Workers killed at the worst moments: four worker processes optimise one study with
Optuna's heartbeat on (``heartbeat_interval``, ``grace_period``: each worker fails stale trials
before its next trial, ``fail_stale_trials``), and a random one is killed with SIGKILL at a
random point -- between a suggestion's chunks and its count (after one or two of its chunks), or
in the middle of its trial -- then replaced by a new worker, ``N_KILLS`` times. Then the
workers finish the budget: ``FINISH_TRIALS`` more complete trials.

Every trial must be accounted for (complete, or failed by the heartbeat: exactly the killed
ones, none of them marked as the objective's failure), no two trials running at the same time
may hold one configuration, the study must finish its budget, and every worker that was not
killed must exit cleanly. On SQLite and on PostgreSQL (``$VPBO_POSTGRES_URL``, as
``test_many_workers.py``; skipped without it). The default tier kills a few workers; the
``long`` tier (``pytest -m long``) twenty.
"""

from __future__ import annotations

import dataclasses
import faulthandler
import multiprocessing
import os
import random
import signal
import time
import uuid
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path
from typing import Any

import optuna
import pytest
from optuna.trial import FrozenTrial, TrialState

from conftest import make_sampler, mixed_objective
from optuna_vpbo import _optuna_compat, _pending
from optuna_vpbo._pending import RELATIVE_PARAMS_KEY, in_flight_params
from optuna_vpbo._trial_states import OBJECTIVE_FAILURE_KEY
from test_many_workers import postgres_storage

N_WORKERS = 4
KILLS = {"default": 3, "long": 20}
FINISH_TRIALS = 12
HEARTBEAT_INTERVAL = 1
GRACE_PERIOD = 3
# How long the supervisor waits for an armed worker to reach its kill point, and for the
# workers to finish the budget.
REACH_SECONDS = 180.0
FINISH_SECONDS = 300.0
# Kill points: before the count of a suggestion (after 1 or 2 of its chunks), or mid-trial.
NOT_ARMED, AFTER_CHUNKS, MID_TRIAL = 0, 1, 2
# A categorical with long choices: every suggestion takes two chunks.
LONG_CHOICES = ["a" * 1500, "b" * 1500]
WORKER_SETTINGS = {"n_candidates": 128, "n_restarts": 2}


def objective(trial: optuna.Trial) -> float:
    """``mixed_objective`` and a long categorical, evaluated in a tenth of a second (so that the
    workers' trials overlap)."""
    value = mixed_objective(trial) + 0.1 * (trial.suggest_categorical("long", LONG_CHOICES) == LONG_CHOICES[1])
    time.sleep(0.1)
    return value


@dataclasses.dataclass(frozen=True)
class Arming:
    """Shared with one worker, without locks (a worker killed while holding a shared lock, a
    queue's for instance, would block the others): where it stops to be killed (``kind``, and
    for AFTER_CHUNKS how many chunks it writes first), and the number of the trial in which it
    stopped (-1 until then)."""

    kind: Any  # multiprocessing.Value("i", lock=False)
    chunks: Any
    reached: Any


def stop_here(arming: Arming, seed: int, trial_number: int) -> None:
    """Say that this worker reached its kill point, then wait to be killed."""
    arming.reached.value = trial_number
    time.sleep(3600)


def armed_writes(arming: Arming, seed: int) -> None:
    """Make ``_pending``'s writes stop before the count of a suggestion (after ``chunks`` of
    its chunks, or all of them) when armed so."""
    write = _optuna_compat.set_trial_system_attr  # what _pending imported

    def set_trial_system_attr(study: optuna.Study, trial: FrozenTrial, key: str, value: Any) -> None:
        if arming.kind.value == AFTER_CHUNKS and key.startswith(RELATIVE_PARAMS_KEY):
            part = key.rsplit(":", 1)[1]
            if part == "count" or int(part) == arming.chunks.value:
                stop_here(arming, seed, trial.number)
        write(study, trial, key, value)

    vars(_pending)["set_trial_system_attr"] = set_trial_system_attr  # the name that _pending.publish calls


def worker(url: str, study_name: str, seed: int, arming: Arming, budget: Any) -> None:
    """One worker: trials until ``budget`` trials are complete, stopping where it is armed to."""
    optuna.logging.set_verbosity(optuna.logging.ERROR)
    faulthandler.register(signal.SIGUSR1, all_threads=True)  # the supervisor's dump of a stuck worker
    armed_writes(arming, seed)
    storage = optuna.storages.RDBStorage(url, heartbeat_interval=HEARTBEAT_INTERVAL, grace_period=GRACE_PERIOD)
    study = optuna.load_study(study_name=study_name, storage=storage, sampler=make_sampler(seed, **WORKER_SETTINGS))

    def armed_objective(trial: optuna.Trial) -> float:
        value = objective(trial)
        if arming.kind.value == MID_TRIAL:
            stop_here(arming, seed, trial.number)
        return value

    def stop_at_budget(study: optuna.Study, trial: FrozenTrial) -> None:
        if len(study.get_trials(deepcopy=False, states=(TrialState.COMPLETE,))) >= budget.value:
            study.stop()

    study.optimize(armed_objective, callbacks=[stop_at_budget])


@dataclasses.dataclass
class Supervisor:
    """Starts, arms and kills the workers of one study."""

    url: str
    study_name: str
    context: Any = dataclasses.field(default_factory=lambda: multiprocessing.get_context("spawn"))
    workers: dict[int, tuple[Any, Arming]] = dataclasses.field(default_factory=dict)  # seed -> (process, arming)
    retired: list[Any] = dataclasses.field(default_factory=list)  # processes that were not killed

    def __post_init__(self) -> None:
        self.budget = self.context.Value("i", 10**9, lock=False)
        self.next_seed = 0

    def start(self) -> None:
        arming = Arming(*(self.context.Value("i", value, lock=False) for value in (NOT_ARMED, 0, -1)))
        seed, self.next_seed = self.next_seed, self.next_seed + 1
        process = self.context.Process(target=worker, args=(self.url, self.study_name, seed, arming, self.budget))
        process.start()
        self.workers[seed] = (process, arming)

    def kill_one(self, rng: random.Random) -> tuple[int, int]:
        """Arm a random worker at a random point, kill it there, start another; the killed
        trial's number and the kind of point."""
        seed = rng.choice(sorted(self.workers))
        process, arming = self.workers[seed]
        arming.chunks.value = rng.choice([1, 2])
        arming.kind.value = rng.choice([AFTER_CHUNKS, MID_TRIAL])
        deadline = time.monotonic() + REACH_SECONDS
        while arming.reached.value < 0:
            if time.monotonic() > deadline or not process.is_alive():
                for other, _ in self.workers.values():  # their stacks, to stderr
                    os.kill(other.pid, signal.SIGUSR1)
                time.sleep(1.0)
                raise AssertionError(f"worker {seed} did not reach its kill point ({process.exitcode=})")
            time.sleep(0.02)
        trial_number, kind = arming.reached.value, arming.kind.value
        os.kill(process.pid, signal.SIGKILL)
        process.join()
        del self.workers[seed]
        self.start()
        return trial_number, kind

    def finish(self) -> list[int | None]:
        """Wait for the workers; their exit codes (a worker still running is killed: -9)."""
        deadline = time.monotonic() + FINISH_SECONDS
        for process, _ in self.workers.values():
            process.join(max(0.0, deadline - time.monotonic()))
            if process.is_alive():
                process.kill()
                process.join()
        return [process.exitcode for process, _ in self.workers.values()]

    def kill_all(self) -> None:
        """Kill every worker still alive (after a failure: none may outlive the test)."""
        for process, _ in self.workers.values():
            if process.is_alive():
                process.kill()
                process.join()


STORAGES = {"sqlite": lambda directory: f"sqlite:///{directory / 'study.db'}", "postgresql": postgres_storage}
TIERS = [pytest.param("default", id="default"), pytest.param("long", id="long", marks=pytest.mark.long)]


@pytest.fixture
def study_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[tuple[str, str]]:
    """A new study (its storage URL and name), deleted afterwards."""
    url = STORAGES[request.param](tmp_path)
    name = f"vpbo-kills-{uuid.uuid4().hex[:12]}"  # the PostgreSQL database outlives the test
    optuna.create_study(study_name=name, storage=url)
    yield url, name
    optuna.delete_study(study_name=name, storage=url)


@pytest.mark.parametrize("tier", TIERS)
@pytest.mark.parametrize("study_url", list(STORAGES), indirect=True)
def test_workers_killed_at_random_points_lose_no_trial(study_url: tuple[str, str], tier: str) -> None:
    url, name = study_url
    supervisor = Supervisor(url, name)
    rng = random.Random(int(os.environ.get("VPBO_KILL_SEED", "0")))
    try:
        for _ in range(N_WORKERS):
            supervisor.start()
        killed = dict(supervisor.kill_one(rng) for _ in range(KILLS[tier]))
        study = optuna.load_study(study_name=name, storage=url)
        supervisor.budget.value = len(study.get_trials(states=(TrialState.COMPLETE,))) + FINISH_TRIALS
        exit_codes = supervisor.finish()
    finally:
        supervisor.kill_all()
    trials = fail_stale_trials(url, name)
    assert exit_codes == [0] * N_WORKERS, exit_codes
    assert len(killed) == KILLS[tier] and set(killed.values()) <= {AFTER_CHUNKS, MID_TRIAL}
    failed = {t.number for t in trials if t.state == TrialState.FAIL}
    states = {n: trials[n].state.name for n in sorted(failed | set(killed))}
    assert failed == set(killed), f"the killed trials, failed by the heartbeat, and no other: {states}"
    assert not any(t.system_attrs.get(OBJECTIVE_FAILURE_KEY) for t in trials if t.number in failed)
    assert {t.state for t in trials} <= {TrialState.COMPLETE, TrialState.FAIL}
    assert len([t for t in trials if t.state == TrialState.COMPLETE]) >= supervisor.budget.value
    assert_no_configuration_held_twice_at_once(trials)
    kinds = list(killed.values())
    print(  # the figures of the closing note (pytest -s)
        f"{url.split(':')[0]}: {len(killed)} kills ({kinds.count(AFTER_CHUNKS)} before a count, "
        f"{kinds.count(MID_TRIAL)} mid-trial), {len(trials)} trials: {len(trials) - len(failed)} complete, "
        f"{len(failed)} failed by the heartbeat; budget {supervisor.budget.value}"
    )


def fail_stale_trials(url: str, name: str) -> list[FrozenTrial]:
    """The study's trials once the heartbeat failed the last killed ones (as the next worker on
    the study would: Optuna's ``fail_stale_trials``, tried each second for a while)."""
    storage = optuna.storages.RDBStorage(url, heartbeat_interval=HEARTBEAT_INTERVAL, grace_period=GRACE_PERIOD)
    study = optuna.load_study(study_name=name, storage=storage)
    for _ in range(10 * GRACE_PERIOD):
        optuna.storages.fail_stale_trials(study)
        if not study.get_trials(deepcopy=False, states=(TrialState.RUNNING,)):
            break
        time.sleep(1.0)
    return study.trials


def assert_no_configuration_held_twice_at_once(trials: list[FrozenTrial]) -> None:
    """No two trials that ran at the same time hold one configuration (the parameters they set,
    or published when killed before setting them)."""
    spans: list[tuple[datetime, datetime, FrozenTrial]] = []
    for t in trials:
        assert t.datetime_start is not None, t  # every trial ran (complete or failed)
        spans.append((t.datetime_start, t.datetime_complete or datetime.max, t))
    for i, (start, end, trial) in enumerate(spans):
        held = in_flight_params(trial)
        for other_start, other_end, other in spans[i + 1 :]:
            if held and start < other_end and other_start < end:
                assert in_flight_params(other) != held, (trial.number, other.number, held)

