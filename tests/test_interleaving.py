"""Random trials interleaved with the model's (``_interleaving``): which trials, what they record,
and that they neither warn nor change the paper's preset."""

from __future__ import annotations

import logging

import optuna
import pytest

from conftest import make_sampler, mixed_objective
from optuna_vpbo import VPBOSampler, VPBOSettings
from optuna_vpbo._diagnostics import diagnostics_markdown
from optuna_vpbo._interleaving import interleaved_random


def test_one_trial_in_the_interval_is_random_once_the_design_is_finished() -> None:
    random = [n for n in range(40) if interleaved_random(n, n_finished=n, n_startup_trials=10, interval=8)]
    assert random == [15, 23, 31, 39]
    # Counted by finished trials, not by number: a trial begun before the design finished (another
    # worker's) is not random.
    assert not interleaved_random(15, n_finished=9, n_startup_trials=10, interval=8)
    assert not any(interleaved_random(n, n, 10, interval=0) for n in range(40))
    assert [n for n in range(6) if interleaved_random(n, n, 0, interval=1)] == list(range(6))


@pytest.mark.parametrize("value, error", [(-1, ValueError), (2.0, TypeError), (True, TypeError)])
def test_random_interval_is_validated(value: object, error: type[Exception]) -> None:
    with pytest.raises(error, match="random_interval"):
        VPBOSettings(random_interval=value)  # type: ignore[arg-type]


def test_random_trials_are_opt_in_and_the_paper_preset_has_none() -> None:
    assert VPBOSettings.paper().random_interval == 0
    assert VPBOSettings().random_interval == 0


def _phases(sampler: VPBOSampler, n_trials: int) -> dict[int, dict[str, object]]:
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    study = optuna.create_study(sampler=sampler)
    study.optimize(mixed_objective, n_trials=n_trials)
    return {t.number: t.user_attrs["vpbo"] for t in study.trials}


def test_a_study_draws_the_interleaved_trials_at_random_and_says_so(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING, logger="optuna_vpbo.sampler"):
        records = _phases(make_sampler(n_startup_trials=6, random_interval=4, record_proposals=True), 24)
    interleaved = sorted(n for n, r in records.items() if r.get("interleaved"))
    assert interleaved == [7, 11, 15, 19, 23]
    assert all(records[n]["phase"] == "random" for n in interleaved)
    assert all(records[n]["phase"] == "proposals" for n in range(8, 24) if n not in interleaved)
    # Random on purpose: no fallback warning for their parameters.
    assert "sampled independently" not in caplog.text
    note = diagnostics_markdown(records[7])
    assert "random_interval" in note and "random (initial design)" not in note


def test_without_the_interval_no_trial_after_the_design_is_random() -> None:
    records = _phases(make_sampler(n_startup_trials=6, random_interval=0, record_proposals=True), 16)
    assert all(r["phase"] == "proposals" for n, r in records.items() if n >= 6)
