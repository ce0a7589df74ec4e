"""Conditional (define-by-run) search spaces: the inferred tree, and the sampler on it.

The tree tests build completed trials directly; the study tests use ``conditional_objective``,
whose parameters depend on a root choice and, in one branch, on a nested choice.
"""

from __future__ import annotations

import logging
import math
import re
from typing import Any

import numpy as np
import optuna
import pytest
from optuna.distributions import (
    BaseDistribution,
    CategoricalDistribution,
    FloatDistribution,
    IntDistribution,
)
from optuna.trial import FrozenTrial, TrialState

from conftest import assert_all_complete, make_sampler, needs_named_constraints, published_params, run_study
from optuna_vpbo import _core
from optuna_vpbo._search_tree import MIN_TRIALS_FOR_CONDITIONS, Condition, Leaf, SearchTree, infer_search_tree

SAMPLER_LOGGER = "optuna_vpbo.sampler"
_WARNING = re.compile(r"The parameter `(\w+)` in Trial#(\d+) is sampled independently")
MODEL = CategoricalDistribution(["linear", "tree", "constant"])
KIND = CategoricalDistribution(["shallow", "deep"])
UNIT = FloatDistribution(0.0, 1.0)
DEPTH = IntDistribution(1, 8)
LR = FloatDistribution(1e-3, 1.0, log=True)


def complete_trial(params: dict[str, Any], distributions: dict[str, BaseDistribution]) -> FrozenTrial:
    return optuna.trial.create_trial(params=params, distributions=distributions, value=0.0)


def conditional_params(model: str, kind: str = "deep") -> tuple[dict[str, Any], dict[str, BaseDistribution]]:
    """The parameters ``conditional_objective`` would suggest for these choices."""
    if model == "linear":
        return {"model": model, "w": 0.5}, {"model": MODEL, "w": UNIT}
    if model == "constant":
        return {"model": model}, {"model": MODEL}
    params: dict[str, Any] = {"model": model, "kind": kind, "depth": 3}
    distributions: dict[str, BaseDistribution] = {"model": MODEL, "kind": KIND, "depth": DEPTH}
    if kind == "deep":
        params["lr"], distributions["lr"] = 0.01, LR
    return params, distributions


def conditional_trials(choices: list[tuple[str, str]]) -> list[FrozenTrial]:
    return [complete_trial(*conditional_params(model, kind)) for model, kind in choices]


# Three trials of every branch: enough for conditions to be inferred (MIN_TRIALS_FOR_CONDITIONS).
ALL_BRANCHES = [("linear", ""), ("constant", ""), ("tree", "shallow"), ("tree", "deep")] * 3


def all_leaves(tree: SearchTree) -> list[Leaf]:
    """Every leaf of a tree of at most 10 (``leaves`` is None for a larger one)."""
    leaves = tree.leaves(limit=10)
    assert leaves is not None
    return leaves


def conditional_objective(trial: optuna.Trial) -> float:
    model = trial.suggest_categorical("model", list(MODEL.choices))
    if model == "linear":
        return (trial.suggest_float("w", 0.0, 1.0) - 0.3) ** 2
    if model == "constant":
        return 0.8
    kind = trial.suggest_categorical("kind", list(KIND.choices))
    depth = trial.suggest_int("depth", 1, 8)  # in both kinds: its parent is "model", not "kind"
    if kind == "shallow":
        return 0.5 + 0.1 * abs(depth - 4)
    lr = trial.suggest_float("lr", 1e-3, 1.0, log=True)
    return 0.1 * abs(depth - 4) + (math.log10(lr) + 2.0) ** 2


# --- The tree ------------------------------------------------------------------------------


def test_few_trials_give_a_flat_tree() -> None:
    few = conditional_trials(ALL_BRANCHES[: MIN_TRIALS_FOR_CONDITIONS - 1])
    assert infer_search_tree(few).is_flat
    assert list(infer_search_tree(few).distributions) == ["model"]


def test_flat_space_is_the_intersection() -> None:
    distributions = {"model": MODEL, "w": UNIT, "single": CategoricalDistribution(["only"])}
    trials = [complete_trial({"model": m, "w": 0.1, "single": "only"}, distributions) for m in MODEL.choices]
    tree = infer_search_tree(trials)
    assert tree.is_flat
    assert tree.distributions == {"model": MODEL, "w": UNIT}


def test_one_level_and_nested_branches() -> None:
    tree = infer_search_tree(conditional_trials(ALL_BRANCHES))
    assert not tree.is_flat
    assert list(tree.distributions) == ["depth", "kind", "lr", "model", "w"]
    assert tree.conditions == {
        "w": Condition("model", frozenset({0})),
        "kind": Condition("model", frozenset({1})),
        "depth": Condition("model", frozenset({1})),  # always with "kind": "model" explains it
        "lr": Condition("kind", frozenset({1})),  # a branch inside a branch
    }
    assert all_leaves(tree) == [
        Leaf((("model", 0),), ("w",)),
        Leaf((("kind", 0), ("model", 1)), ("depth",)),
        Leaf((("kind", 1), ("model", 1)), ("depth", "lr")),
        Leaf((("model", 2),), ()),
    ]
    assert tree.leaves(limit=3) is None
    rng = np.random.default_rng(0)
    assert {tree.random_leaf(rng) for _ in range(100)} == set(all_leaves(tree))


def test_too_many_leaves_are_sampled_with_the_best_observed_first() -> None:
    from optuna_vpbo._combinations import candidate_rows
    from optuna_vpbo._tree_encoder import TreeEncoder

    encoder = TreeEncoder(infer_search_tree(conditional_trials(ALL_BRANCHES)))
    best = encoder.row(Leaf((("model", 2),), ())).reshape(1, -1)
    sampled = [encoder.leaf_of_row(row) for row in candidate_rows(encoder, 3, np.random.default_rng(0), best)]
    assert sampled[0] == encoder.leaf_of_row(best[0])
    assert len(set(sampled)) == len(sampled) and set(sampled) <= set(all_leaves(encoder.tree))
    every = candidate_rows(encoder, 10, np.random.default_rng(0), best)
    assert [encoder.leaf_of_row(row) for row in every] == all_leaves(encoder.tree)


def test_leaf_of_a_configuration() -> None:
    tree = infer_search_tree(conditional_trials(ALL_BRANCHES))
    assert tree.leaf_of({"model": "tree", "kind": "deep", "depth": 2, "lr": 0.1}) == Leaf(
        (("kind", 1), ("model", 1)), ("depth", "lr")
    )
    assert tree.leaf_of({"model": "tree", "kind": "deep", "depth": 2}) is None  # still being suggested
    assert tree.leaf_of({"model": "unknown"}) is None


def test_a_branch_that_appears_late_joins_the_tree() -> None:
    early = [("linear", ""), ("tree", "shallow")] * 15  # 30 trials, never "deep" nor "constant"
    tree = infer_search_tree(conditional_trials(early))
    assert "lr" not in tree.distributions
    assert tree.conditions["kind"] == Condition("model", frozenset({1}))
    # Choices never tried are leaves without parameters of their own.
    assert Leaf((("kind", 1), ("model", 1)), ("depth",)) in all_leaves(tree)
    assert Leaf((("model", 2),), ()) in all_leaves(tree)
    late = infer_search_tree(conditional_trials(early + [("tree", "deep"), ("constant", "")]))  # trials 31, 32
    assert late.conditions["lr"] == Condition("kind", frozenset({1}))
    assert Leaf((("kind", 1), ("model", 1)), ("depth", "lr")) in all_leaves(late)


def test_a_numeric_threshold_branch_is_left_to_the_independent_sampler() -> None:
    trials = []
    for i in range(10):
        x = i / 10
        params: dict[str, Any] = {"model": MODEL.choices[i % 3], "x": x}
        distributions: dict[str, BaseDistribution] = {"model": MODEL, "x": UNIT}
        if x > 0.5:  # present above a threshold on a number: no categorical explains it
            params.update(extra=0.3, flavour="b")
            distributions.update(extra=UNIT, flavour=CategoricalDistribution(["a", "b"]))
            if i % 2:
                params["child"], distributions["child"] = 0.2, UNIT  # child of an unmodelled parent
        trials.append(complete_trial(params, distributions))
    tree = infer_search_tree(trials)
    assert tree.is_flat
    assert set(tree.distributions) == {"model", "x"}


def test_a_parameter_whose_distribution_changes_is_not_modelled() -> None:
    trials = conditional_trials(ALL_BRANCHES)
    trials.append(complete_trial({"model": "linear", "w": 0.5}, {"model": MODEL, "w": FloatDistribution(0.0, 2.0)}))
    tree = infer_search_tree(trials)
    assert "w" not in tree.distributions
    assert "lr" in tree.distributions


# --- The sampler on a conditional space ---------------------------------------------------


class SpyRandomSampler(optuna.samplers.RandomSampler):
    """Records which parameters the sampler leaves to its independent sampler, per trial."""

    def __init__(self, seed: int) -> None:
        super().__init__(seed=seed)
        self.calls: list[tuple[int, str]] = []

    def sample_independent(self, study, trial, param_name, param_distribution):  # type: ignore[no-untyped-def]
        self.calls.append((trial.number, param_name))
        return super().sample_independent(study, trial, param_name, param_distribution)


def test_no_parameter_seen_before_is_sampled_at_random_after_the_startup(caplog: pytest.LogCaptureFixture) -> None:
    spy = SpyRandomSampler(seed=0)
    n_startup = MIN_TRIALS_FOR_CONDITIONS  # the tree is known from the end of the initial design
    sampler = make_sampler(n_startup_trials=n_startup, independent_sampler=spy, record_proposals=True)
    with caplog.at_level(logging.WARNING, logger=SAMPLER_LOGGER):
        study = run_study(conditional_objective, 20, sampler)
    assert_all_complete(study, 20)
    seen_before = {
        t.number: {name for done in study.trials[: t.number] for name in done.params} for t in study.trials
    }
    n_random = n_startup // 2
    late_random = [(n, name) for n, name in spy.calls if n >= n_startup and name in seen_before[n]]
    assert late_random == []
    warned = {(int(m.group(2)), m.group(1)) for m in _WARNING.finditer(caplog.text)}
    assert all(name not in seen_before[n] for n, name in warned)
    phases = [t.user_attrs["vpbo"]["phase"] for t in study.trials]
    assert phases[:n_random] == ["random"] * n_random and phases[-1] == "proposals"
    for trial in study.trials[n_startup:]:
        # The suggestion is one leaf, taken whole, with values in the distributions; only a
        # parameter never seen before comes on top of it.
        suggestion = published_params(trial)
        assert suggestion is not None
        assert suggestion == {name: trial.params[name] for name in suggestion}
        assert set(trial.params) - set(suggestion) <= set(trial.params) - seen_before[trial.number]
    top = study.trials[-1].user_attrs["vpbo"]["top_proposals"]
    assert top and all("model" in proposal["params"] for proposal in top)


def test_same_seed_same_suggestions() -> None:
    def params(seed: int) -> list[dict[str, Any]]:
        return [t.params for t in run_study(conditional_objective, 12, make_sampler(seed)).trials]

    assert params(3) == params(3)
    assert params(3) != params(4)


def test_two_threads() -> None:
    study = optuna.create_study(sampler=make_sampler())
    study.optimize(conditional_objective, n_trials=16, n_jobs=2)
    assert_all_complete(study, 16)


@needs_named_constraints
def test_multi_objective_and_constraints() -> None:
    def objective(trial: optuna.Trial) -> tuple[float, float]:
        value = conditional_objective(trial)
        trial.set_constraint("depth_at_most_6", float(trial.params.get("depth", 0) - 6))
        return value, float(len(trial.params))

    study = run_study(objective, 12, directions=["minimize", "minimize"])
    assert_all_complete(study, 12)
    assert published_params(study.trials[-1]) == study.trials[-1].params


def test_a_failing_model_never_fails_the_trial(monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture) -> None:
    def broken(*args: object, **kwargs: object) -> None:
        raise _core.NumericalError("Cholesky: simulated failure")

    monkeypatch.setattr(_core, "value_proposals", broken)
    with caplog.at_level(logging.WARNING, logger=SAMPLER_LOGGER):
        study = run_study(conditional_objective, 12)
    assert_all_complete(study, 12)
    assert "simulated failure" in caplog.text


def test_the_relative_search_space_is_the_union_of_the_branches() -> None:
    study = optuna.create_study(sampler=make_sampler())
    for trial in conditional_trials(ALL_BRANCHES):
        study.add_trial(trial)
    sampler = make_sampler()
    new = study.ask()
    space = sampler.infer_relative_search_space(study, study._storage.get_trial(new._trial_id))
    assert set(space) == {"model", "w", "kind", "depth", "lr"}
    study.tell(new, state=TrialState.FAIL)


# --- Branches decided by an int ------------------------------------------------------------


def mlp_objective(trial: optuna.Trial) -> float:
    """The pattern of Optuna's tutorials: a layer count, then one parameter per layer."""
    n_layers = trial.suggest_int("n_layers", 1, 4)
    lr = trial.suggest_float("lr", 1e-4, 1e-1, log=True)
    units = [trial.suggest_int(f"units_{i}", 8, 128, log=True) for i in range(n_layers)]
    return 0.1 * (n_layers - 3) ** 2 + sum((math.log(u / 64)) ** 2 for u in units) / n_layers + (math.log10(lr) + 2.5) ** 2


def mlp_trials(layer_counts: list[int]) -> list[FrozenTrial]:
    trials = []
    for n in layer_counts:
        params: dict[str, Any] = {"n_layers": n, "lr": 0.01, **{f"units_{i}": 32 for i in range(n)}}
        distributions: dict[str, BaseDistribution] = {
            "n_layers": IntDistribution(1, 4),
            "lr": FloatDistribution(1e-4, 1e-1, log=True),
            **{f"units_{i}": IntDistribution(8, 128, log=True) for i in range(n)},
        }
        trials.append(complete_trial(params, distributions))
    return trials


def test_an_int_layer_count_parents_its_layers_by_a_threshold() -> None:
    tree = infer_search_tree(mlp_trials([1, 2, 3, 4, 2, 3, 1, 4, 3, 2]))
    assert tree.conditions == {
        "units_1": Condition("n_layers", frozenset({1, 2, 3})),  # codes: n_layers - 1 >= 1
        "units_2": Condition("n_layers", frozenset({2, 3})),
        "units_3": Condition("n_layers", frozenset({3})),
    }
    assert tree.int_parents == {"n_layers"}
    assert len(all_leaves(tree)) == 4
    two_layers = {"n_layers": 2, "lr": 0.1, "units_0": 8, "units_1": 9}
    assert tree.leaf_of(two_layers) == Leaf((("n_layers", 1),), ("lr", "units_0", "units_1"))


def test_an_unseen_int_value_takes_its_side_of_the_threshold() -> None:
    tree = infer_search_tree(mlp_trials([1, 2, 4, 2, 1, 4, 2, 1, 4, 1]))  # never 3 layers
    assert tree.conditions["units_2"] == Condition("n_layers", frozenset({2, 3}))


def test_scattered_int_values_do_not_explain_a_parameter() -> None:
    trials = mlp_trials([1, 2, 3, 4, 1, 2, 3, 4, 1, 2])
    for trial in trials:  # present for odd layer counts: no threshold explains it
        if trial.params["n_layers"] % 2:
            trial.params["odd"] = 0.5
            trial.distributions["odd"] = UNIT
    assert "odd" not in infer_search_tree(trials).distributions


def test_the_sampler_models_every_layer_of_an_mlp_space() -> None:
    spy = SpyRandomSampler(seed=0)
    n_startup = MIN_TRIALS_FOR_CONDITIONS
    sampler = make_sampler(seed=1, n_startup_trials=n_startup, independent_sampler=spy, record_proposals=True)
    study = run_study(mlp_objective, 30, sampler)
    assert_all_complete(study, 30)
    seen_before = {t.number: {name for done in study.trials[: t.number] for name in done.params} for t in study.trials}
    # After the initial design no layer's parameters fall back to random sampling.
    assert [(n, name) for n, name in spy.calls if n >= n_startup and name in seen_before[n]] == []
    assert study.trials[-1].user_attrs["vpbo"]["phase"] == "proposals"
    assert study.best_value < 0.5
