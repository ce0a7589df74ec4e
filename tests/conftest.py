"""Shared fixtures and helpers of the behavioural and Optuna-protocol tests.

Besides small helpers this file provides the ``forked`` marker: a test carrying it runs in a
forked child process, so that a crash of the native core (a segmentation fault) fails that test
alone instead of killing the whole pytest session. Together with ``xfail(strict=True)`` this
lets a known crash be recorded as an expected failure that turns red once it is fixed.

The functions that child processes started with ``multiprocessing``'s "spawn" context run are
defined here too: a spawned child imports this module by name (``conftest``), as it receives the
parent's ``sys.path``.
"""

from __future__ import annotations

import os

# Single-threaded BLAS, set before anything imports numpy (spawned children inherit it). On a
# busy 2-core machine multithreaded OpenBLAS made SciPy's L-BFGS-B in the GP fit ~35x slower
# (6 s instead of 0.2 s for a 20-trial study) without changing any result.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import dataclasses  # noqa: E402
import faulthandler  # noqa: E402
import inspect  # noqa: E402
import json  # noqa: E402
import math  # noqa: E402
import multiprocessing  # noqa: E402
import pickle  # noqa: E402
import select  # noqa: E402
import signal  # noqa: E402
import subprocess  # noqa: E402
import tempfile  # noqa: E402
import threading  # noqa: E402
import time  # noqa: E402
import traceback  # noqa: E402
from collections.abc import Callable, Sequence  # noqa: E402
from typing import TYPE_CHECKING, Any, NoReturn  # noqa: E402

import optuna  # noqa: E402
import pytest  # noqa: E402
from optuna.trial import FrozenTrial, TrialState  # noqa: E402

from optuna_vpbo import VPBOSampler, VPBOSettings, _fit  # noqa: E402
from optuna_vpbo._fit import GPHyperparameters  # noqa: E402
from optuna_vpbo._optuna_compat import HAS_NAMED_CONSTRAINTS  # noqa: E402
from optuna_vpbo._pending import RELATIVE_PARAMS_KEY  # noqa: E402

if TYPE_CHECKING:
    from _pytest.outcomes import OutcomeException  # the base of pytest.skip.Exception and the others

# Small enough that a few trials reach the GP phase, fast on a shared 2-core machine.
N_STARTUP = 4
# A forked test that has not finished after this many seconds is killed and fails.
FORK_TIMEOUT_SECONDS = 300.0

def make_sampler(seed: int | None = 0, **kwargs: Any) -> VPBOSampler:
    """A VPBOSampler with a short initial design unless told otherwise. Keyword arguments that are
    not constructor arguments are ``VPBOSettings`` fields: they go into ``settings=``."""
    kwargs.setdefault("n_startup_trials", N_STARTUP)
    constructor = set(inspect.signature(VPBOSampler).parameters)
    fields = {name: kwargs.pop(name) for name in list(kwargs) if name not in constructor}
    if fields:
        kwargs["settings"] = VPBOSettings(**fields)
    return VPBOSampler(seed=seed, **kwargs)


def mixed_objective(trial: optuna.Trial) -> float:
    """Two categoricals, a float, a log float and an int: every kind the sampler encodes."""
    kind = trial.suggest_categorical("kind", ["a", "b", "c"])
    flag = trial.suggest_categorical("flag", [True, False])
    x = trial.suggest_float("x", -2.0, 2.0)
    lr = trial.suggest_float("lr", 1e-4, 1e-1, log=True)
    n = trial.suggest_int("n", 1, 8)
    offset = {"a": 0.0, "b": 0.5, "c": 1.0}[kind] + (0.25 if flag else 0.0)
    return (x - 0.3) ** 2 + (math.log10(lr) + 2.5) ** 2 + 0.1 * (n - 3) ** 2 + offset


def categorical_only_objective(trial: optuna.Trial) -> float:
    """Categorical parameters alone: the one search space shape without a numeric part."""
    a = trial.suggest_categorical("a", [0, 1, 2, 3])
    b = trial.suggest_categorical("b", ["x", "y", "z"])
    return float(a) + {"x": 0.0, "y": 0.5, "z": 1.0}[b]


def run_study(
    objective: Callable[[optuna.Trial], float | Sequence[float]],
    n_trials: int,
    sampler: optuna.samplers.BaseSampler | None = None,
    **create_kwargs: Any,
) -> optuna.Study:
    study = optuna.create_study(sampler=sampler or make_sampler(), **create_kwargs)
    study.optimize(objective, n_trials=n_trials)
    return study


def all_params(study: optuna.Study) -> list[dict[str, Any]]:
    return [t.params for t in study.trials]


def assert_all_complete(study: optuna.Study, n_trials: int) -> None:
    states = [t.state for t in study.trials]
    assert len(states) == n_trials, states
    assert all(s == TrialState.COMPLETE for s in states), states


def counted_fits(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """From now on, one entry in the returned list per hyperparameter fit (``_fit.fit_hyperparameters``,
    which still fits)."""
    fits: list[int] = []
    real_fit = _fit.fit_hyperparameters

    def counting_fit(*args: Any, **kwargs: Any) -> GPHyperparameters:  # real_fit's arguments, passed on
        fits.append(1)
        return real_fit(*args, **kwargs)

    monkeypatch.setattr(_fit, "fit_hyperparameters", counting_fit)
    return fits


def value_of(trial: FrozenTrial) -> float:
    """The value of a trial of a single-objective study that completed (FrozenTrial.value is None
    for the others)."""
    assert trial.value is not None, trial
    return trial.value


def published_params(trial: FrozenTrial) -> dict[str, Any] | None:
    """The GP's suggestion that the sampler published for a trial, None if it made none."""
    count = trial.system_attrs.get(f"{RELATIVE_PARAMS_KEY}:count", 0)
    chunks = [trial.system_attrs[f"{RELATIVE_PARAMS_KEY}:{i}"] for i in range(count)]
    return json.loads("".join(chunks)) if chunks else None


def assert_gp_suggestions_used(study: optuna.Study, first: int = N_STARTUP // 2) -> None:
    """Trials from number ``first`` on took every value of the GP's suggestion.

    Optuna silently replaces a relative value that its distribution does not contain by an
    independent sample, so this fails when the sampler decodes values off the distribution.
    """
    trials = [t for t in study.trials if t.number >= first]
    assert trials, "no trial reached the GP phase"
    for trial in trials:
        suggestion = published_params(trial)
        assert suggestion, f"trial {trial.number} has no GP suggestion"
        taken = {name: trial.params.get(name) for name in suggestion}
        assert taken == suggestion, f"trial {trial.number} did not take the GP's suggestion"


def seeded_run(seed: int, n_trials: int) -> list[dict[str, Any]]:
    """A seeded mixed study's parameters; also the target of spawned processes."""
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    return all_params(run_study(mixed_objective, n_trials, make_sampler(seed)))


def optimize_stored_study(storage_url: str, study_name: str, n_trials: int, seed: int) -> None:
    """One worker of a study shared through a storage; the target of spawned processes."""
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    study = optuna.load_study(study_name=study_name, storage=storage_url, sampler=make_sampler(seed))
    study.optimize(mixed_objective, n_trials=n_trials)


@pytest.fixture(autouse=True)
def _quiet_optuna() -> None:
    optuna.logging.set_verbosity(optuna.logging.WARNING)


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "forked: run the test in a forked child so that a native crash fails only this test"
    )


# pytest's own outcomes (skip, xfail, fail) raised inside a forked test, raised again outside.
_OUTCOMES: dict[str, tuple[Callable[[str], NoReturn], type[OutcomeException]]] = {
    "skip": (pytest.skip, pytest.skip.Exception),
    "xfail": (pytest.xfail, pytest.xfail.Exception),
    "fail": (pytest.fail, pytest.fail.Exception),
}


def _child_outcome(pyfuncitem: pytest.Function) -> bytes:
    """Run the test function; b"" on success, else (kind, traceback text, pickled exception)."""
    try:
        args = {name: pyfuncitem.funcargs[name] for name in pyfuncitem._fixtureinfo.argnames}
        pyfuncitem.obj(**args)
        return b""
    except BaseException as error:  # noqa: BLE001 - every outcome goes to the parent
        for kind, (_, exception) in _OUTCOMES.items():
            if isinstance(error, exception):
                return pickle.dumps((kind, str(error.msg), None))
        text = "".join(traceback.format_exception(error))
        try:
            pickled = pickle.dumps(error)
        except Exception:  # noqa: BLE001 - an unpicklable exception travels as text only
            pickled = None
        return pickle.dumps(("error", text, pickled))


def _raise_child_outcome(payload: bytes) -> None:
    kind, text, pickled = pickle.loads(payload)
    if kind in _OUTCOMES:
        raise_outcome, _ = _OUTCOMES[kind]
        raise_outcome(text)
    try:
        error = pickle.loads(pickled)
    except Exception:  # noqa: BLE001 - an exception that cannot be rebuilt travels as text
        raise AssertionError(text) from None
    error.add_note(f"Traceback in the forked test process:\n{text}")
    raise error


def _read_until_exit(fd: int, pid: int) -> tuple[bytes, int]:
    deadline = time.monotonic() + FORK_TIMEOUT_SECONDS
    chunks = []
    while True:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
            pytest.fail(f"forked test did not finish within {FORK_TIMEOUT_SECONDS:.0f} s", pytrace=False)
        ready, _, _ = select.select([fd], [], [], remaining)
        if ready:
            chunk = os.read(fd, 1 << 16)
            if not chunk:
                break
            chunks.append(chunk)
    _, status = os.waitpid(pid, 0)
    return b"".join(chunks), status


def _crash_location(crash_log: Any) -> str:
    """The Python frames that faulthandler wrote when the forked test crashed."""
    crash_log.seek(0)
    lines = crash_log.read().decode(errors="replace").splitlines()
    return "\n".join(line for line in lines if line.lstrip().startswith("File "))


@pytest.hookimpl(tryfirst=True)
def pytest_pyfunc_call(pyfuncitem: pytest.Function) -> bool | None:
    if pyfuncitem.get_closest_marker("forked") is None:
        return None
    read_fd, write_fd = os.pipe()
    with tempfile.TemporaryFile() as crash_log:
        pid = os.fork()
        if pid == 0:  # child: run the test, report, and leave without running any cleanup
            os.close(read_fd)
            faulthandler.enable(file=crash_log, all_threads=False)
            payload = _child_outcome(pyfuncitem)
            with os.fdopen(write_fd, "wb") as pipe:
                pipe.write(payload)
            os._exit(0)
        os.close(write_fd)
        try:
            payload, status = _read_until_exit(read_fd, pid)
        finally:
            os.close(read_fd)
        if os.WIFSIGNALED(status):
            name = signal.Signals(os.WTERMSIG(status)).name
            pytest.fail(
                f"the test process died of {name} (a crash in native code) in:\n{_crash_location(crash_log)}",
                pytrace=False,
            )
    if os.WEXITSTATUS(status) != 0:
        pytest.fail(f"the test process exited with status {os.WEXITSTATUS(status)}", pytrace=False)
    if payload:
        _raise_child_outcome(payload)
    return True


# --- Workers sharing one study (test_many_workers.py) ---------------------------------------

# How long a worker waits for the others at a step before its trial fails.
STEP_TIMEOUT_SECONDS = 60.0


@dataclasses.dataclass(frozen=True)
class Steps:
    """Workers (threads or processes) that run their trials in steps: within a step each worker
    samples in turn (worker i once worker i - 1 published its suggestion), then every worker's
    trial waits until all reached the end of the step. So, whatever the timing of the machine,
    the trials of a step always overlap and each worker samples while the others' trials run:
    as pending points, with published suggestions. Without ``turn`` (threads, whose worker index
    is not fixed) the workers sample at once and only the overlap is ensured."""

    barrier: Any
    turn: Any = None  # the index of the worker whose turn it is to sample (a shared int)
    condition: Any = None

    @classmethod
    def for_processes(cls, n_workers: int) -> Steps:
        context = multiprocessing.get_context("spawn")
        return cls(context.Barrier(n_workers), context.Value("i", 0, lock=False), context.Condition())

    @classmethod
    def for_threads(cls, n_workers: int) -> Steps:
        return cls(threading.Barrier(n_workers))

    def objective(self, worker: int | None = None) -> Callable[[optuna.Trial], float]:
        """``mixed_objective`` run in these steps by worker number ``worker``."""

        def objective(trial: optuna.Trial) -> float:
            if worker is None:
                value = mixed_objective(trial)
            else:
                with self.condition:
                    if not self.condition.wait_for(lambda: self.turn.value == worker, STEP_TIMEOUT_SECONDS):
                        raise TimeoutError(f"worker {worker} waited {STEP_TIMEOUT_SECONDS:.0f} s for its turn")
                try:
                    value = mixed_objective(trial)  # samples: publishes its suggestion
                finally:
                    with self.condition:
                        self.turn.value = (worker + 1) % self.barrier.parties
                        self.condition.notify_all()
            self.barrier.wait(STEP_TIMEOUT_SECONDS)
            return value

        return objective


def run_worker(
    storage: str | optuna.storages.BaseStorage,
    study_name: str,
    n_trials: int,
    seed: int,
    sampler_kwargs: dict[str, Any] | None = None,
    steps: Steps | None = None,
    seed_offset: int = 0,
) -> None:
    """One worker of a stored study (worker number ``seed`` of ``steps`` if given, its sampler
    seeded ``seed + seed_offset``); the target of spawned processes."""
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    sampler = make_sampler(seed + seed_offset, **(sampler_kwargs or {}))
    study = optuna.load_study(study_name=study_name, storage=storage, sampler=sampler)
    study.optimize(mixed_objective if steps is None else steps.objective(seed), n_trials=n_trials)


def run_in_processes(target: Callable[..., None], args: list[tuple[Any, ...]], timeout: float) -> list[int | None]:
    """Run ``target(*a)`` for each ``a`` in its own spawned process at once; their exit codes.

    Waits at most ``timeout`` seconds in all; a process still alive then is killed (exit code
    -9), so a hung worker fails the test instead of blocking it.
    """
    context = multiprocessing.get_context("spawn")
    processes = [context.Process(target=target, args=a) for a in args]
    for process in processes:
        process.start()
    deadline = time.monotonic() + timeout
    for process in processes:
        process.join(max(0.0, deadline - time.monotonic()))
        if process.is_alive():
            process.kill()
            process.join()
    return [process.exitcode for process in processes]


def assert_distinct_params(study: optuna.Study) -> None:
    """No two trials of the study have identical parameters."""
    points = [tuple(sorted(p.items())) for p in all_params(study)]
    duplicates = {p for p in points if points.count(p) > 1}
    assert not duplicates, f"trials with identical parameters: {duplicates}"


# --- Commands run by the tests (test_dashboard.py, test_examples.py) -------------------------


def run_bounded(
    command: list[str], timeout: float, cwd: str | os.PathLike[str] | None = None
) -> subprocess.CompletedProcess[str]:
    """Run a command in its own process group; on timeout kill the whole group and fail."""
    process = subprocess.Popen(
        command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True, cwd=cwd
    )
    try:
        stdout, stderr = process.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.communicate()
        pytest.fail(f"{command[0]} did not finish within {timeout:.0f} s", pytrace=False)
    return subprocess.CompletedProcess(command, process.returncode, stdout, stderr)


# --- Optuna versions ---------------------------------------------------------------------------

# Trial.set_constraint and FrozenTrial.constraints came with Optuna 5; Optuna 4 has only
# constraints_func (the sampler reads both through _optuna_compat.trial_constraints).
needs_named_constraints = pytest.mark.skipif(
    not HAS_NAMED_CONSTRAINTS, reason=f"Optuna {optuna.__version__} has no Trial.set_constraint (Optuna >= 5)"
)
