"""The numeric group (numeric_problems.py, numeric_tasks.py): Hartmann6's stated
minimum against an independent search, deterministic scikit-learn objectives, the kNN space."""

from __future__ import annotations

import itertools
import math

import numpy as np
import optuna
import pytest
from optuna.distributions import IntDistribution
from scipy.optimize import minimize

from vpbo_benchmarks import numeric_problems, registry
from vpbo_benchmarks.problem import single_objective

optuna.logging.set_verbosity(optuna.logging.ERROR)


def _value(name: str, params: dict[str, object]) -> float:
    """The registered objective of ``name`` (built anew: data and model from scratch) at ``params``."""
    return float(single_objective(registry.get_problem(name))(optuna.trial.FixedTrial(params)))


def test_the_group_is_registered_with_hartmann6_s_optimum() -> None:
    assert registry.GROUPS["numeric"] == ("hartmann6", "knn_breast", "knn_wine", "svm_breast", "dt_digits", "linear_breast")
    for name in registry.GROUPS["numeric"]:
        problem = registry.get_problem(name)
        assert problem.directions == ("minimize",) and problem.n_combinations == 0
        assert problem.optimum == (numeric_problems.HARTMANN6_MINIMUM if name == "hartmann6" else None)


def test_hartmann6_minimum_at_its_argmin_against_a_multistart_search() -> None:
    """L-BFGS-B from twelve random starts in [0, 1]^6: the best is the stated minimum, at the stated point."""
    rng = np.random.default_rng(27)
    results = [
        minimize(numeric_problems.hartmann6, start, method="L-BFGS-B", bounds=[(0.0, 1.0)] * 6,
                 options={"ftol": 1e-15, "gtol": 1e-12})
        for start in rng.uniform(0.0, 1.0, (12, 6))
    ]
    best = min(results, key=lambda r: r.fun)
    assert float(best.fun) == pytest.approx(numeric_problems.HARTMANN6_MINIMUM, abs=1e-10)
    assert float(best.fun) >= numeric_problems.HARTMANN6_MINIMUM - 1e-12
    assert best.x == pytest.approx(numeric_problems.HARTMANN6_ARGMIN, abs=1e-5)
    assert len({round(float(r.fun), 4) for r in results}) >= 2  # the starts found other local minima too
    at_argmin = _value("hartmann6", {f"x{i}": v for i, v in enumerate(numeric_problems.HARTMANN6_ARGMIN)})
    assert at_argmin == pytest.approx(numeric_problems.HARTMANN6_MINIMUM, abs=1e-9)
    assert at_argmin == pytest.approx(-3.32237, abs=5e-6)  # the Virtual Library's value


@pytest.mark.parametrize("name", numeric_problems.NUMERIC)
def test_the_same_configuration_twice_gives_the_same_value(name: str) -> None:
    """Three random configurations, each evaluated by two objectives built separately and twice by one."""
    study = optuna.create_study(sampler=optuna.samplers.RandomSampler(seed=5))
    objective = single_objective(registry.get_problem(name))
    study.optimize(objective, n_trials=3)
    for trial in study.trials:
        assert math.isfinite(trial.values[0])
        assert float(objective(optuna.trial.FixedTrial(trial.params))) == trial.values[0]
        assert _value(name, trial.params) == trial.values[0]


def test_the_knn_space_has_exactly_100_points() -> None:
    study = optuna.create_study(sampler=optuna.samplers.RandomSampler(seed=0))
    objective = single_objective(registry.get_problem("knn_wine"))
    study.optimize(objective, n_trials=1)
    distributions = study.trials[0].distributions
    assert set(distributions) == {"n_neighbors", "p"}
    ints = [d for d in distributions.values() if isinstance(d, IntDistribution)]
    assert len(ints) == len(distributions) and all(d.step == 1 and not d.log for d in ints)
    points = list(itertools.product(*(range(int(d.low), int(d.high) + 1) for d in ints)))
    assert len(points) == 100
    # Every point is a valid configuration with a finite value.
    values = [float(objective(optuna.trial.FixedTrial(dict(zip(distributions, point))))) for point in points]
    assert all(math.isfinite(v) and v > 0 for v in values)
    assert len(set(values)) > 10
