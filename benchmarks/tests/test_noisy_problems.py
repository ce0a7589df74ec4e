"""Tests of the problems with point-dependent noise (vpbo_benchmarks/noisy_problems.py): each
combination's stated best against an independent search (``lab_testing``'s rule of these tests), and
what makes each problem hard."""

from __future__ import annotations

import math

import numpy as np
import optuna
import pytest
from scipy.stats import skew
from scipy.stats import t as student_t

from lab_testing import grid_then_polish, observed, present, two_float_check
from vpbo_benchmarks import held_out_sets
from vpbo_benchmarks import noisy_problems as noisy
from vpbo_benchmarks.problem import NOISELESS_ATTR

optuna.logging.set_verbosity(optuna.logging.ERROR)


def test_hetero_branin_every_combination_by_grid_and_lbfgsb() -> None:
    bounds = [noisy.HB_X1_BOUNDS, noisy.HB_X2_BOUNDS]
    two_float_check("hetero_branin", bounds, 761, held_out_sets.PROBLEMS_BY_NAME["hetero_branin"].combinations())


def test_hetero_branin_noise_depends_on_the_device() -> None:
    spec = held_out_sets.SPECS["hetero_branin"]
    objective = held_out_sets.build_problem("hetero_branin").objective
    best_point = present(spec.best_point)
    for device in (0, 3):
        point = dict(best_point(), device=device)
        deviations = []
        for number in range(1500):
            trial = optuna.trial.FixedTrial(point, number=number)
            deviations.append(objective(trial) - trial.user_attrs[NOISELESS_ATTR])
        assert np.std(deviations) == pytest.approx(noisy.HB_DEVICE_NOISE_SD[device], rel=0.1)
    assert best_point()["device"] == int(np.argmax(noisy.HB_DEVICE_NOISE_SD))


def test_noisy_batch_every_combination_by_enumeration_and_grid() -> None:
    problem = held_out_sets.PROBLEMS_BY_NAME["noisy_batch"]
    batches = np.arange(noisy.NB_BATCH[0], noisy.NB_BATCH[1] + 1)
    for c in problem.combinations():
        start = {**c, "batch": 64, "lr": 0.01, "warmup": 0.15}
        # The value is a batch term plus an (lr, warmup) term: each searched over its whole range.
        bounds = [tuple(np.log10(noisy.NB_LR)), noisy.NB_WARMUP]
        numeric = grid_then_polish(lambda u, w, s=start: problem.value({**s, "lr": 10.0**u, "warmup": w}), bounds, 801)
        batch = float(np.min(problem.value({**start, "batch": batches}))) - float(problem.value(start))
        found = numeric + batch
        assert found >= problem.combination_best(c) - 1e-9
        assert found == pytest.approx(problem.combination_best(c), abs=1e-8)


def test_noisy_batch_noise_grows_as_the_batch_shrinks_and_has_heavy_tails() -> None:
    problem = held_out_sets.PROBLEMS_BY_NAME["noisy_batch"]
    point = problem.best_point()
    # The median absolute deviation of Student-t noise scaled to unit standard deviation.
    scale_mad = float(student_t.ppf(0.75, noisy.NB_T_DOF)) / math.sqrt(noisy.NB_T_DOF / (noisy.NB_T_DOF - 2))
    for batch in (8, 64, 512):
        deviations = np.array([np.subtract(*observed(problem, dict(point, batch=batch), n)) for n in range(3000)])
        sd = noisy.NB_NOISE_SD_AT_64 * math.sqrt(64 / batch)
        assert float(np.median(np.abs(deviations))) == pytest.approx(sd * scale_mad, rel=0.1)
        assert float(np.mean(np.abs(deviations) > 3 * sd)) > 0.01  # a Gaussian's share: 0.0027
    assert problem.max_noise_sd == pytest.approx(noisy.NB_NOISE_SD_AT_64 * math.sqrt(8.0))


def test_skewed_salomon_every_combination_by_grid_and_nelder_mead() -> None:
    problem = held_out_sets.PROBLEMS_BY_NAME["skewed_salomon"]
    bounds = [tuple(np.log10(noisy.SS_RATE)), noisy.SS_MOMENTUM, noisy.SS_DROPOUT]
    for c in problem.combinations():
        found = grid_then_polish(lambda u, m, d, c=c: problem.value({**c, "rate": 10.0**u, "momentum": m, "dropout": d}), bounds,
                                  61, 6, "Nelder-Mead")
        assert found >= problem.combination_best(c) - 1e-12, c
        assert found == pytest.approx(problem.combination_best(c), abs=1e-8), c


def test_skewed_salomon_noise_is_centred_skewed_and_grows_with_the_rate() -> None:
    problem = held_out_sets.PROBLEMS_BY_NAME["skewed_salomon"]
    point = problem.best_point()
    for rate in (1e-5, point["rate"], 1.0):
        deviations = np.array([np.subtract(*observed(problem, dict(point, rate=rate), n)) for n in range(4000)])
        sd = noisy.SS_NOISE_SD_AT * (rate / noisy.SS_NOISE_RATE) ** noisy.SS_NOISE_POWER
        assert float(np.mean(deviations)) == pytest.approx(0.0, abs=0.06 * sd)
        assert float(np.std(deviations)) == pytest.approx(sd, rel=0.08)
        assert float(skew(deviations)) > 0.9  # a centred gamma of shape 2: sqrt 2
        assert float(deviations.min()) >= -math.sqrt(noisy.SS_GAMMA_SHAPE) * sd - 1e-12
    assert problem.max_noise_sd == pytest.approx(noisy.SS_NOISE_SD_AT * 100.0**noisy.SS_NOISE_POWER)
    # The noise at the best point exceeds the gap to the second-best combination.
    bests = sorted(problem.combination_best(c) for c in problem.combinations())
    assert float(noisy.skewed_salomon_noise_sd(point)) > bests[1] - bests[0]
