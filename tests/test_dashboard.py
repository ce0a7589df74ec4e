"""optuna-dashboard shows VPBOSampler's diagnostics on a trial's page, in a real browser.

``examples/dashboard.py`` runs a short study with ``record_proposals=True`` into SQLite; the test
serves it with ``optuna-dashboard`` on a free localhost port and opens the page of the last trial
(the dashboard's route ``/dashboard/studies/<study id>/trials?numbers=<trial number>``) in
headless Chromium. The dashboard is a JavaScript single-page app, so the page is read from the DOM
that Chromium dumps after a virtual-time budget (``--dump-dom``): it must show the user attribute
``vpbo`` with its ``phase``, ``move`` and ``top_proposals``, and the trial's Markdown note rendered
(``optuna_vpbo._diagnostics``: the move the search policy made and why, the table of the top
value proposals and the fitted model). A
screenshot of the page stays in the test's temporary folder, and is copied to
``docs/figures/dashboard-trial.png`` when the environment variable ``VPBO_KEEP_SCREENSHOT`` is set.

Needs Debian's ``chromium`` (``bash .ci/system-packages.sh`` installs it; CI does) and PyPI's
``optuna-dashboard`` (the ``test`` extra); skipped without them.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import optuna
import pytest

from conftest import run_bounded
from optuna_vpbo._diagnostics import MOVE_TITLES

# A study served by optuna-dashboard and looked at in Chromium.
pytestmark = [pytest.mark.slow, pytest.mark.e2e]

REPOSITORY = Path(__file__).resolve().parents[1]
EXAMPLE = REPOSITORY / "examples" / "dashboard.py"
STUDY_NAME = "vpbo-dashboard"  # examples/dashboard.py's
N_TRIALS = 14  # past the example's 10-trial initial design: the last trials have value proposals
KEEP_SCREENSHOT_VARIABLE = "VPBO_KEEP_SCREENSHOT"
SCREENSHOT_COPY = REPOSITORY / "docs" / "figures" / "dashboard-trial.png"
EXAMPLE_TIMEOUT_SECONDS = 300
SERVER_START_TIMEOUT_SECONDS = 60
BROWSER_TIMEOUT_SECONDS = 120
# Virtual time that Chromium lets the page run (fetch the study, render) before it dumps the DOM;
# doubled on each retry when the diagnostics are not there yet.
VIRTUAL_TIME_BUDGET_MS = 10_000
BROWSER_ATTEMPTS = 3


def chromium_executable() -> str:
    for name in ("chromium", "chromium-browser", "google-chrome"):
        if found := shutil.which(name):
            return found
    pytest.skip("no Chromium: install Debian's `chromium` (`bash .ci/system-packages.sh`; CI does)")


def dashboard_command() -> list[str]:
    pytest.importorskip("optuna_dashboard", reason="optuna-dashboard is not installed (the `test` extra has it)")
    script = Path(sys.executable).parent / "optuna-dashboard"
    found = str(script) if script.exists() else shutil.which("optuna-dashboard")
    if found is None:
        pytest.skip("the optuna-dashboard command is not on PATH")
    return [found]


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.fixture(scope="module")
def storage_url(tmp_path_factory: pytest.TempPathFactory) -> str:
    """The example's study, run with a small budget into a fresh SQLite file."""
    directory = tmp_path_factory.mktemp("dashboard")
    url = f"sqlite:///{directory / 'dashboard.db'}"
    command = [sys.executable, str(EXAMPLE), "--trials", str(N_TRIALS), "--storage", url]
    result = run_bounded(command, EXAMPLE_TIMEOUT_SECONDS, cwd=directory)
    assert result.returncode == 0, result.stderr
    return url


@pytest.fixture
def dashboard(storage_url: str, tmp_path: Path) -> Iterator[str]:
    """optuna-dashboard serving the study on a free localhost port: its base URL."""
    command = dashboard_command()
    port = free_port()
    log = (tmp_path / "optuna-dashboard.log").open("w")
    server = subprocess.Popen(
        [*command, storage_url, "--host", "127.0.0.1", "--port", str(port)],
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + SERVER_START_TIMEOUT_SECONDS
        while True:
            if server.poll() is not None:
                pytest.fail(f"optuna-dashboard exited: {(tmp_path / 'optuna-dashboard.log').read_text()}")
            try:
                with urllib.request.urlopen(f"{base}/api/meta", timeout=2) as response:
                    if response.status == 200:
                        break
            except (urllib.error.URLError, OSError):
                pass
            if time.monotonic() > deadline:
                pytest.fail(f"optuna-dashboard did not answer within {SERVER_START_TIMEOUT_SECONDS} s")
            time.sleep(0.2)
        yield base
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        try:
            server.wait(10)
        except subprocess.TimeoutExpired:
            os.killpg(server.pid, signal.SIGKILL)
            server.wait()
        log.close()


def chromium(tmp_path: Path, budget_ms: int, *arguments: str) -> subprocess.CompletedProcess[str]:
    command = [
        chromium_executable(),
        "--headless",
        "--no-sandbox",  # Chromium refuses to run as root (CI) with its sandbox
        "--disable-gpu",
        "--disable-dev-shm-usage",
        "--hide-scrollbars",
        f"--user-data-dir={tmp_path / 'chromium-profile'}",
        "--window-size=1600,1500",
        f"--virtual-time-budget={budget_ms}",
        *arguments,
    ]
    return run_bounded(command, BROWSER_TIMEOUT_SECONDS)


def test_trial_page_shows_the_sampler_diagnostics(storage_url: str, dashboard: str, tmp_path: Path) -> None:
    chromium_executable()  # skip before any work without a browser
    study = optuna.load_study(study_name=STUDY_NAME, storage=storage_url)
    trial = study.trials[-1]
    assert trial.user_attrs["vpbo"]["phase"] == "proposals"
    page = f"{dashboard}/dashboard/studies/{study._study_id}/trials?numbers={trial.number}"

    diagnostics = trial.user_attrs["vpbo"]
    chosen = ", ".join(f"{k}={v}" for k, v in diagnostics["top_proposals"][0]["params"].items())
    move = MOVE_TITLES[diagnostics["move"]]
    # The user attribute, then the note: the move, its headings and the chosen combination in its table.
    wanted = ['"phase": "proposals"', f'"move": "{diagnostics["move"]}"', '"top_proposals"', f"Trial {trial.number}"]
    wanted += ["Move", move, "Top value proposals", "Fitted GP model", "lengthscale", chosen]
    budget = VIRTUAL_TIME_BUDGET_MS
    for _ in range(BROWSER_ATTEMPTS):
        dom = chromium(tmp_path, budget, "--dump-dom", page).stdout
        missing = [text for text in wanted if text not in dom]
        if not missing:
            break
        budget *= 2
    assert not missing, f"the trial page lacks {missing}; DOM starts: {dom[:2000]}"

    screenshot = tmp_path / "dashboard-trial.png"
    chromium(tmp_path, budget, f"--screenshot={screenshot}", page)
    assert screenshot.exists() and screenshot.stat().st_size > 10_000, "no screenshot of the page"
    if os.environ.get(KEEP_SCREENSHOT_VARIABLE):
        SCREENSHOT_COPY.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(screenshot, SCREENSHOT_COPY)
