"""The seed-0 suggestions of a few studies (flat, conditional, two objectives, pruned and failed
trials, two stalling studies) are those recorded in ``tests/data/reference_suggestions.json``, for
the defaults (recorded as ``v4``) and the paper's: refactorings change no suggestion (``tests/reference_suggestions.py`` says how
they were recorded and when to record them anew)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from reference_suggestions import KERNELS, REFERENCE_FILE, SAMPLERS, STUDIES


@pytest.mark.parametrize("sampler", sorted(SAMPLERS))
@pytest.mark.parametrize("study", sorted(STUDIES))
def test_suggestions_match_the_recorded_ones(study: str, sampler: str) -> None:
    expected = json.loads(REFERENCE_FILE.read_text())[f"{study}/{sampler}"]
    # A child process with the recorded kernels (the baseline core, OpenBLAS's Nehalem): their round-off.
    code = (
        "import json, optuna, reference_suggestions as r; optuna.logging.set_verbosity(optuna.logging.ERROR); "
        f"print(json.dumps(r.run_study({study!r}, {sampler!r})))"
    )
    # Run from tests/: the repository root on sys.path would shadow the installed package.
    here = os.path.dirname(os.path.abspath(__file__))
    env = {**os.environ, **KERNELS}
    result = subprocess.run([sys.executable, "-c", code], env=env, cwd=here, capture_output=True, text=True, check=True)
    actual = json.loads(result.stdout.strip().splitlines()[-1])
    assert len(actual) == len(expected)
    for number, (got, want) in enumerate(zip(actual, expected)):
        assert got == want, f"trial {number} of {study}/{sampler}"
