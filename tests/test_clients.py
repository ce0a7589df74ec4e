"""The examples of the tools that call VPBOSampler for their users (docs/other-tools.md): Ray Tune,
Hydra's optuna sweeper, optuna-integration's OptunaSearchCV and MLflowCallback.

Each example runs as a user runs it, in a subprocess from a temporary folder, against the real
client, with a budget a little past the initial design; the test asserts on what the user sees:
exit 0 and the summary line, every trial accounted for (in the study's storage and, for MLflow, as
runs), the trials that began after the initial design chosen by the model (user attribute "vpbo",
phase "proposals"), no warning from optuna_vpbo's loggers, and for Ray a saved searcher that,
restored in a fresh process, suggests what the original suggested.

Tier ``clients`` (with slow and e2e): the clients are not in the test extra. `.ci/clients.sh`
installs them in an environment of their own, with the install lines of docs/other-tools.md, and
runs ``pytest -m clients tests/test_clients.py`` (VPBO_REQUIRE_CLIENTS=1: a missing client fails);
elsewhere, without a client its tests skip.
"""

from __future__ import annotations

import ast
import importlib
import importlib.util
import json
import os
import pickle
import re
import sys
from collections.abc import Sequence
from pathlib import Path
from types import ModuleType
from typing import Any

import optuna
import pytest
from optuna.trial import FrozenTrial, TrialState

from conftest import run_bounded
from optuna_vpbo import VPBOSampler

pytestmark = [pytest.mark.clients, pytest.mark.slow, pytest.mark.e2e]

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
# The examples/*.py that this module runs (tests/test_examples.py runs the others); the Hydra
# app is examples/hydra_app/.
CLIENT_EXAMPLES = ("ray_tune", "search_cv", "mlflow_callback")
TIMEOUT_SECONDS = 300
# The size of the initial design; the studies run past it.
N_STARTUP = VPBOSampler().settings.n_startup_trials

# Runs an example with a handler on the package's logger that writes every warning of optuna_vpbo
# to the file named by VPBO_TEST_WARNINGS, whatever the client does to the root logger or stderr.
# The sampler runs in this process for every client (Ray Tune's searcher lives in the driver).
BOOTSTRAP = """\
import logging, os, runpy, sys
handler = logging.FileHandler(os.environ["VPBO_TEST_WARNINGS"])
handler.setLevel(logging.WARNING)
handler.setFormatter(logging.Formatter("%(name)s %(levelname)s %(message)s"))
logging.getLogger("optuna_vpbo").addHandler(handler)
sys.argv = sys.argv[1:]
sys.path[0] = os.path.dirname(os.path.abspath(sys.argv[0]))
runpy.run_path(sys.argv[0], run_name="__main__")
"""


def need(module: str) -> ModuleType:
    """The client's module; without it the test skips, unless VPBO_REQUIRE_CLIENTS=1 (.ci/clients.sh,
    where a missing client is a broken install line): then it fails."""
    if os.environ.get("VPBO_REQUIRE_CLIENTS") == "1":
        return importlib.import_module(module)
    return pytest.importorskip(module)


def run_example(script: Path, args: Sequence[str], cwd: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[str, str]:
    """Run ``script`` with ``args`` from ``cwd``; fail on a non-zero exit or a warning of
    optuna_vpbo's loggers. Returns the standard output and error."""
    warnings_file = cwd / f"vpbo-warnings-{script.stem}.log"
    warnings_file.unlink(missing_ok=True)
    monkeypatch.setenv("VPBO_TEST_WARNINGS", str(warnings_file))  # the subprocess inherits it
    result = run_bounded([sys.executable, "-c", BOOTSTRAP, str(script), *args], TIMEOUT_SECONDS, cwd=cwd)
    assert result.returncode == 0, result.stderr[-4000:]
    assert warnings_file.read_text() == "", warnings_file.read_text()
    return result.stdout, result.stderr


def check_trials(trials: Sequence[FrozenTrial], n_trials: int) -> None:
    """Every trial finished (complete, or pruned by an Optuna pruner), and each that began once the
    initial design was complete was proposed by the model."""
    assert len(trials) == n_trials, [t.state for t in trials]
    assert all(t.state in (TrialState.COMPLETE, TrialState.PRUNED) for t in trials), [t.state for t in trials]
    # The initial design counts complete and pruned trials (the default settings learn from pruned ones).
    finished_at = [t.datetime_complete for t in trials if t.datetime_complete]
    after_design = [t for t in trials if t.datetime_start and sum(c <= t.datetime_start for c in finished_at) >= N_STARTUP]
    assert after_design, "no trial began after the initial design"
    for trial in after_design:
        diagnostics = trial.user_attrs.get("vpbo", {})
        # A deliberately interleaved random trial is the sampler's choice too; a fallback is not.
        assert diagnostics.get("phase") == "proposals" or diagnostics.get("interleaved"), (trial.number, diagnostics)


def load_trials(storage: str, study_name: str) -> list[FrozenTrial]:
    return optuna.load_study(study_name=study_name, storage=storage).get_trials(deepcopy=False)


def test_every_client_example_exists() -> None:
    for name in CLIENT_EXAMPLES:
        assert (EXAMPLES / f"{name}.py").is_file(), name
    assert (EXAMPLES / "hydra_app" / "conf" / "hydra" / "sweeper" / "sampler" / "vpbo.yaml").is_file()


def test_ray_tune(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    need("ray.tune")
    n_trials = 24
    folder = tmp_path / "ray"
    script = EXAMPLES / "ray_tune.py"
    out, _ = run_example(script, ["--trials", str(n_trials), "--folder", str(folder)], tmp_path, monkeypatch)
    summary = re.search(rf"ray tune: (\d+) of {n_trials} trials COMPLETE in Optuna, (\d+) of them stopped early by ASHA", out)
    assert summary, out
    assert int(summary[1]) == n_trials, out
    assert "restored suggests as the original: True" in out, out
    original_next = re.search(r"^next suggestion (\{.*\})$", out, re.MULTILINE)
    assert original_next, out

    # The saved searcher, restored by a fresh process (the example's --restore).
    restored_out, _ = run_example(script, ["--restore", "--folder", str(folder)], tmp_path, monkeypatch)
    restored_next = re.search(r"next suggestion (\{.*\})$", restored_out, re.MULTILINE)
    assert restored_next, restored_out
    assert json.loads(restored_next[1]) == json.loads(original_next[1])

    # The study inside the saved searcher; its define-by-run space is the example's function.
    example = _load_module(script)

    class Unpickler(pickle.Unpickler):
        def find_class(self, module: str, name: str) -> Any:
            return getattr(example, name) if module == "__main__" else super().find_class(module, name)

    with open(folder / "vpbo-searcher.pkl", "rb") as file:
        state = Unpickler(file).load()
    trials = [t for t in state["_ot_study"].get_trials(deepcopy=False) if t.state != TrialState.RUNNING]  # minus the probe
    check_trials(trials, n_trials)
    # Ray's convention, the trap of docs/other-tools.md: the trials that ASHA stopped are COMPLETE.
    stopped = [t for t in trials if len(t.intermediate_values) < example.EPOCHS - 1]
    assert len(stopped) == int(summary[2]) and all(t.state == TrialState.COMPLETE for t in stopped)


def _load_module(path: Path) -> ModuleType:
    spec = importlib.util.spec_from_file_location(f"example_{path.stem}", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_hydra_sweeper(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    need("hydra")
    need("hydra_plugins.hydra_optuna_sweeper")
    n_trials = 22
    storage = f"sqlite:///{tmp_path / 'hydra.db'}"
    out, _ = run_example(
        EXAMPLES / "hydra_app" / "app.py",
        ["--multirun", f"hydra.sweeper.n_trials={n_trials}", f"hydra.sweeper.storage={storage}"],
        tmp_path,
        monkeypatch,
    )
    summary = re.search(
        rf"hydra sweep: {n_trials} trials COMPLETE in study vpbo-hydra \((.*)\), by phase (\{{.*?\}}); best loss", out
    )
    assert summary, out
    assert summary[1] == storage
    assert ast.literal_eval(summary[2]).get("proposals", 0) > 0, out
    assert "Sampler: VPBOSampler" in out, out  # the sweeper's own log line
    check_trials(load_trials(storage, "vpbo-hydra"), n_trials)
    assert len(list(tmp_path.glob("multirun/*/*/[0-9]*"))) == n_trials  # one job folder each


def test_search_cv(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    need("optuna_integration")
    need("sklearn")
    n_trials = 24
    storage = f"sqlite:///{tmp_path / 'search-cv.db'}"
    out, _ = run_example(EXAMPLES / "search_cv.py", ["--trials", str(n_trials), "--storage", storage], tmp_path, monkeypatch)
    summary = re.search(rf"search cv: {n_trials} trials \((\d+) complete, (\d+) pruned\); best cv accuracy 0\.\d{{4}}", out)
    assert summary, out
    assert int(summary[1]) > 0
    trials = load_trials(storage, "vpbo-search-cv")
    check_trials(trials, n_trials)
    assert sum(t.state == TrialState.PRUNED for t in trials) == int(summary[2])


def test_mlflow_callback(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    need("optuna_integration")
    mlflow = need("mlflow")
    need("sklearn")
    n_trials = 22
    folder = tmp_path / "mlflow"
    # The trap of docs/other-tools.md: without this variable MLflow 3 refuses a file store; the
    # example must not need it.
    monkeypatch.delenv("MLFLOW_ALLOW_FILE_STORE", raising=False)
    args = ["--trials", str(n_trials), "--folder", str(folder)]
    out, _ = run_example(EXAMPLES / "mlflow_callback.py", args, tmp_path, monkeypatch)
    expected = rf"mlflow: {n_trials} runs in experiment vpbo-mlflow for {n_trials} trials; best accuracy 0\.\d{{4}}"
    assert re.search(expected, out), out
    assert not (tmp_path / "mlruns").exists() and not (tmp_path / "mlartifacts").exists()  # all in the folder
    trials = load_trials(f"sqlite:///{folder / 'optuna.db'}", "vpbo-mlflow")
    check_trials(trials, n_trials)
    mlflow.set_tracking_uri(f"sqlite:///{folder / 'mlflow.db'}")
    runs = mlflow.search_runs(experiment_names=["vpbo-mlflow"], output_format="list")
    assert sorted(int(run.data.tags["number"]) for run in runs) == list(range(n_trials))
    by_number = {t.number: t for t in trials}
    for run in runs:
        assert float(run.data.metrics["accuracy"]) == pytest.approx(by_number[int(run.data.tags["number"])].value)
