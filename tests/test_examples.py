"""Every example runs as a user runs it, with a tiny budget: ``python examples/NAME.py --trials 5``.

Each runs in a subprocess from a temporary folder (where any SQLite file it writes lands) and must
exit 0 and print its summary line.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

from conftest import run_bounded
from test_clients import CLIENT_EXAMPLES

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
N_TRIALS = 5
TIMEOUT_SECONDS = 300

# Each example and a pattern that its output must contain.
EXPECTED_OUTPUT = {
    "quickstart": r"best value -?\d+\.\d+ \(optimum",
    "sklearn_svm": r"best accuracy 0\.\d{4} \(trial #\d+ of 5\)",
    "xgboost_classifier": r"best log loss \d+\.\d{4}, accuracy 0\.\d{4}",
    "two_objectives": r"Pareto front: \d+ of 5 trials",
    "constrained": r"\d+ of 5 trials reach a recall of 95%",
    "dashboard": r"open the study: optuna-dashboard sqlite:///",
    "plot_value_proposals": r"wrote value_proposals\.html and value_proposals\.png",
}


def test_every_example_is_tested() -> None:
    # The examples of the tools that call the sampler run in tests/test_clients.py.
    assert sorted(p.stem for p in EXAMPLES.glob("*.py")) == sorted([*EXPECTED_OUTPUT, *CLIENT_EXAMPLES])


@pytest.mark.slow
@pytest.mark.e2e
@pytest.mark.parametrize("name", list(EXPECTED_OUTPUT))
def test_example_runs(name: str, tmp_path: Path) -> None:
    command = [sys.executable, str(EXAMPLES / f"{name}.py"), "--trials", str(N_TRIALS)]
    if name in ("quickstart", "dashboard"):  # they store their study in SQLite by default
        command += ["--storage", f"sqlite:///{tmp_path / 'study.db'}"]
    result = run_bounded(command, TIMEOUT_SECONDS, cwd=tmp_path)
    assert result.returncode == 0, result.stderr[-3000:]
    assert re.search(EXPECTED_OUTPUT[name], result.stdout), result.stdout
    if name == "quickstart":  # Optuna's progress bar (tqdm, on stderr) reaches the last trial
        assert f"{N_TRIALS}/{N_TRIALS}" in result.stderr, result.stderr[-3000:]


@pytest.mark.slow
@pytest.mark.e2e
@pytest.mark.parametrize("name", ["quickstart", "dashboard"])
def test_an_example_stores_its_study_in_the_current_folder_and_says_when_it_resumes(name: str, tmp_path: Path) -> None:
    command = [sys.executable, str(EXAMPLES / f"{name}.py"), "--trials", "3"]
    database = tmp_path / f"vpbo-{name}.db"
    first = run_bounded(command, TIMEOUT_SECONDS, cwd=tmp_path)
    assert first.returncode == 0, first.stderr[-3000:]
    assert database.is_file() and f"in {database}" in first.stdout and "resuming" not in first.stdout, first.stdout
    second = run_bounded(command, TIMEOUT_SECONDS, cwd=tmp_path)
    assert second.returncode == 0, second.stderr[-3000:]
    assert "resuming the stored study: 3 trials already, adding 3" in second.stdout, second.stdout
    if name == "dashboard":
        assert f"open the study: optuna-dashboard sqlite:///{database}" in second.stdout
    else:
        assert "(trial #" in first.stdout and " of 3)" in first.stdout and " of 6)" in second.stdout
        fresh = run_bounded([*command, "--fresh"], TIMEOUT_SECONDS, cwd=tmp_path)
        assert fresh.returncode == 0, fresh.stderr[-3000:]
        assert "resuming" not in fresh.stdout and " of 3)" in fresh.stdout, fresh.stdout
    assert sorted(p.name for p in tmp_path.iterdir()) == [database.name]  # nothing else written
