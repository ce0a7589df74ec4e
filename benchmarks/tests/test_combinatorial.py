"""The field's combinatorial tasks (MCBO's definitions) and their problem set, checked against
references written here independently: Pest Control simulation by simulation in plain Python (and
in closed form where no pesticide is used), Ackley by its textbook formula."""

from __future__ import annotations

import datetime
import math

import numpy as np
import optuna
import pytest
from optuna.distributions import CategoricalDistribution, FloatDistribution

from vpbo_benchmarks import combinatorial, registry
from vpbo_benchmarks.cli import main
from vpbo_benchmarks.problem import single_objective

# ------------------------------------------------------------------ an independent Pest Control


def beta_sample(a: float, b: float) -> list[float]:
    """The 100 Beta(a, b) draws of a fresh RandomState(0), as MCBO draws every sample."""
    return [float(v) for v in np.random.RandomState(0).beta(a, b, size=100)]


def reference_pest_control(stages: list[int]) -> float:
    """Pest Control from its description, one simulation at a time: the share above 0.1 is counted
    at the start of each stage; pesticide k (1-4) costs price_k (1 - discount_k / 25 * its number of
    uses) and its control rate's Beta(1, b_k) has b_k grow by tolerance_k / 25 after each use."""
    prices = {1: 1.0, 2: 0.8, 3: 0.7, 4: 0.5}
    discounts = {1: 0.2, 2: 0.3, 3: 0.3, 4: 0.0}
    tolerances = {1: 1.0 / 7.0, 2: 2.5 / 7.0, 3: 2.0 / 7.0, 4: 0.5 / 7.0}
    b = {1: 2.0 / 7.0, 2: 3.0 / 7.0, 3: 3.0 / 7.0, 4: 5.0 / 7.0}
    pests = beta_sample(1.0, 30.0)
    spread = beta_sample(1.0, 17.0 / 3.0)
    cost = 0.0
    shares = 0.0
    for k in stages:
        shares += sum(p > 0.1 for p in pests) / len(pests)
        if k == 0:
            pests = [p + s * (1.0 - p) for p, s in zip(pests, spread)]
            continue
        control = beta_sample(1.0, b[k])
        pests = [p * (1.0 - c) for p, c in zip(pests, control)]
        b[k] += tolerances[k] / len(stages)
        cost += prices[k] * (1.0 - discounts[k] * stages.count(k) / len(stages))
    return cost + shares


def no_pesticide_closed_form() -> float:
    """All stages without pesticide: 1 - p_t = (1 - s)^t (1 - p_0), so a simulation is above 0.1 at
    stage t (t = 0..24) when (1 - s)^t (1 - p_0) < 0.9; nothing is paid."""
    p0 = np.random.RandomState(0).beta(1.0, 30.0, size=100)
    s = np.random.RandomState(0).beta(1.0, 17.0 / 3.0, size=100)
    t = np.arange(25)[:, None]
    return float(np.sum(np.mean((1.0 - s) ** t * (1.0 - p0) < 0.9, axis=1)))


FIXED_STAGES = {
    "no pesticide": [0] * 25,
    "pesticide 4 throughout": [4] * 25,
    "pesticide 1 throughout": [1] * 25,
    "cycling 0-4": [i % 5 for i in range(25)],
    "alternating 2 and 3": [2 + i % 2 for i in range(25)],
    "random 1": np.random.RandomState(11).randint(0, 5, 25).tolist(),
    "random 2": np.random.RandomState(12).randint(0, 5, 25).tolist(),
}


@pytest.mark.parametrize("label", list(FIXED_STAGES))
def test_pest_control_matches_the_reference(label: str) -> None:
    stages = FIXED_STAGES[label]
    assert combinatorial.pest_control(stages) == pytest.approx(reference_pest_control(stages), rel=1e-12, abs=1e-12)


def test_pest_control_without_pesticide_is_the_closed_form() -> None:
    assert combinatorial.pest_control([0] * 25) == pytest.approx(no_pesticide_closed_form(), abs=1e-12)


def test_the_prices_of_one_pesticide_throughout() -> None:
    """25 uses of one pesticide: 25 price (1 - max discount); the pests' share is at most 25."""
    for k, price, discount in ((1, 1.0, 0.2), (4, 0.5, 0.0)):
        value = combinatorial.pest_control([k] * 25)
        assert 25 * price * (1 - discount) <= value <= 25 * price * (1 - discount) + 25


def test_the_best_known_configuration_and_determinism() -> None:
    """Pesticide 4 at stages 1-24, none at 25: 12.07, where MCBO's trust-region methods end."""
    stages = list(combinatorial.PEST_CONTROL_BEST_KNOWN_STAGES)
    assert stages == [4] * 24 + [0]
    value = combinatorial.pest_control(stages)
    assert value == combinatorial.PEST_CONTROL_BEST_KNOWN == 12.07
    assert reference_pest_control(stages) == pytest.approx(value, rel=1e-12)
    assert combinatorial.pest_control(stages) == value  # the same value every time
    params = {f"stage{i}": k for i, k in enumerate(stages, start=1)}
    assert registry.get_problem("pest_control").objective(optuna.trial.FixedTrial(params)) == value


# ------------------------------------------------------------------ Ackley


def textbook_ackley(x: np.ndarray) -> float:
    d = len(x)
    return float(
        -20.0 * np.exp(-0.2 * np.sqrt(np.sum(x**2) / d)) - np.exp(np.sum(np.cos(2.0 * np.pi * x)) / d) + 20.0 + np.exp(1.0)
    )


def test_ackley_20x11_values_optimum_and_a_value() -> None:
    values = combinatorial.ACKLEY_20X11_VALUES
    assert len(values) == 11 and values[0] == -32.768 and values[-1] == 32.768 and values[5] == 0.0
    assert list(values) == np.linspace(-32.768, 32.768, 11).tolist()
    objective = single_objective(registry.get_problem("ackley_20x11"))
    assert objective(optuna.trial.FixedTrial({f"h{i}": 5 for i in range(1, 21)})) == pytest.approx(0.0, abs=1e-12)
    levels = np.random.RandomState(3).randint(0, 11, 20)
    expected = textbook_ackley(np.asarray(values)[levels])
    value = objective(optuna.trial.FixedTrial({f"h{i}": int(j) for i, j in enumerate(levels, start=1)}))
    assert value == pytest.approx(expected, rel=1e-12) and value > 1.0


def test_ackley53_is_mcbo_s_ackley_53() -> None:
    """MCBO's ackley-53: 50 categoricals of {0, 1} and 3 floats in [-1, 1], Ackley of the 53
    values; the lab's ackley53 is that function on that space."""
    problem = registry.get_problem("ackley53")
    study = optuna.create_study(sampler=optuna.samplers.RandomSampler(seed=0))
    study.optimize(problem.objective, n_trials=3)
    distributions = study.trials[0].distributions
    assert [distributions[f"h{i}"] for i in range(1, 51)] == [CategoricalDistribution((0, 1))] * 50
    assert [distributions[f"x{i}"] for i in range(1, 4)] == [FloatDistribution(-1.0, 1.0)] * 3
    for trial in study.trials:
        x = np.array([trial.params[f"h{i}"] for i in range(1, 51)] + [trial.params[f"x{i}"] for i in range(1, 4)], float)
        assert trial.value == pytest.approx(textbook_ackley(x), rel=1e-12)
    zero = {**{f"h{i}": 0 for i in range(1, 51)}, **{f"x{i}": 0.0 for i in range(1, 4)}}
    assert problem.objective(optuna.trial.FixedTrial(zero)) == pytest.approx(0.0, abs=1e-12)


# ------------------------------------------------------------------ the problem set


def test_the_combinatorial_set_is_a_frozen_group() -> None:
    problem_set = registry.PROBLEM_SETS["combinatorial"]
    assert problem_set is combinatorial.COMBINATORIAL
    assert problem_set.problems == ("pest_control", "ackley_20x11", "ackley53")
    assert registry.GROUPS["combinatorial"] == problem_set.problems
    assert registry.expand_groups(["combinatorial"]) == list(problem_set.problems)
    assert datetime.date.fromisoformat(problem_set.frozen) and "MCBO" in problem_set.rule
    sizes = {name: registry.get_problem(name).n_combinations for name in problem_set.problems}
    assert sizes == {"pest_control": 5**25, "ackley_20x11": 11**20, "ackley53": 2**50}
    assert all(math.log2(size) > 40 for size in sizes.values())  # far beyond enumeration


def test_list_shows_the_problems_and_the_set(capsys: pytest.CaptureFixture[str]) -> None:
    main(["list", "--problems", "combinatorial"])
    output = capsys.readouterr().out
    assert "| pest_control | 25 | 298,023,223,876,953,125 | 0 | minimize | unknown |" in output
    assert "| ackley_20x11 | 20 | 672,749,994,932,560,009,201 | 0 | minimize | 0 |" in output
    assert "| ackley53 | 50 | 1,125,899,906,842,624 | 3 | minimize | 0 |" in output
    assert "combinatorial: pest_control, ackley_20x11, ackley53" in output
    assert f"combinatorial (frozen {combinatorial.COMBINATORIAL.frozen}): " in output
