"""Helpers shared by the lab's tests.

The lab's tests have no ``conftest.py``: run from the repository root beside the sampler's tests,
whose helpers are imported as the module ``conftest``, a second one would take its place in
``sys.modules``. This module's name is the lab's own.
"""

from __future__ import annotations

import os
import signal
import subprocess

import pytest


def run_bounded(command: list[str], timeout: float, **kwargs: object) -> subprocess.CompletedProcess[str]:
    """Run a command in its own process group; on timeout kill the whole group and fail."""
    process = subprocess.Popen(
        command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True, **kwargs
    )
    try:
        stdout, stderr = process.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.communicate()
        pytest.fail(f"{command[0]} did not finish within {timeout:.0f} s", pytrace=False)
    return subprocess.CompletedProcess(command, process.returncode, stdout, stderr)
