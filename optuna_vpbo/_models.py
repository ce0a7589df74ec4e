"""The model step of a trial: one GP per output (objectives, constraints, the success of trials),
fitted or reused through the model cache, the objectives conditioned on the running trials
(``fit_models``)."""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping, Sequence

import numpy as np
from optuna.study import StudyDirection

from optuna_vpbo import _core
from optuna_vpbo._fit import FitStore, GPHyperparameters, ModelCache
from optuna_vpbo._observations import Observations
from optuna_vpbo._output_transforms import (
    ConstraintStandardize,
    FittedConstraintStandardize,
    FittedTransform,
    OutputTransform,
    make_output_transform,
    target_variances,
)
from optuna_vpbo._proposals import Repeats
from optuna_vpbo._repeat_policy import may_repeat_complete
from optuna_vpbo._trial_states import success_labels


@dataclasses.dataclass(frozen=True)
class ObjectiveModel:
    """An objective's GP conditioned on the running trials, its targets and hyperparameters, and
    the believed targets at the running trials."""

    gp: _core.MixedGP
    targets: np.ndarray
    hyperparameters: GPHyperparameters
    believed: np.ndarray
    transform: FittedTransform | None = None  # values -> targets, as fitted for this model
    values: np.ndarray | None = None  # the values the targets came from


@dataclasses.dataclass(frozen=True)
class ConstraintModel:
    """A constraint's GP and the image of its feasibility bound 0 in the GP's targets."""

    gp: _core.MixedGP
    threshold: float
    is_success_model: bool = False


@dataclasses.dataclass(frozen=True)
class ModelData:
    """What the models of one trial are fitted on: the trial numbers of the observations (the
    identity of a GP's training points between trials), their encoding, and where a long study's
    fits are kept between processes."""

    numbers: np.ndarray
    h: np.ndarray
    x: np.ndarray
    store: FitStore | None = None
    training: np.ndarray | None = None  # the rows an objective's GP trains on (None: all)

    def rows(self, selected: np.ndarray) -> ModelData:
        """The data of the ``selected`` observations (a mask or indices), every one trained on."""
        return ModelData(self.numbers[selected], self.h[selected], self.x[selected], self.store)


@dataclasses.dataclass(frozen=True)
class TrialModels:
    """The models of one trial: the objectives' GPs (one; one per objective under log EHVI,
    ``hypervolume``), the constraints' GPs and the success GP (when some trial failed), and which
    objective rows may be the incumbent (``feasible``: the feasible complete trials; an imputed
    pruned or failed trial never is)."""

    objectives: list[ObjectiveModel]
    constraints: list[ConstraintModel]
    feasible: np.ndarray
    hypervolume: bool

    def repeats(self, observed: Observations, policy: str) -> Repeats:
        """The points not to propose again: the pruned and failed trials, and the complete ones
        unless the repeat ``policy`` lets a complete configuration be proposed again
        (``_repeat_policy.may_repeat_complete``, on the objectives' noise and signal variances)."""
        n = len(observed.complete)
        noise = [m.gp.noise for m in self.objectives]
        signal = [m.hyperparameters.variance for m in self.objectives]
        repeat = may_repeat_complete(policy, observed.h[:n], observed.x[:n], observed.values[:n], noise, signal)
        return observed.repeats(not repeat, observed.complete_fraction)


def fit_models(
    cache: ModelCache,
    observed: Observations,
    columns: Sequence[tuple[np.ndarray, tuple[str, ...], StudyDirection]],
    transform: str,
    failed_trials: str,
    rng: np.random.Generator,
    training: np.ndarray | None = None,
) -> TrialModels:
    """The models of the trial that read ``observed``: one GP per objective column (values,
    model cache key, direction; ``_multi_objective.objective_columns``; several columns: log
    EHVI), each through the output ``transform`` and trained on the objective rows ``training``
    (None: all; the search policy's trust region); one GP per constraint; and, with
    ``failed_trials`` "classify" or "both" when some trial failed, the success GP on every
    finished trial."""
    numbers = np.array([t.number for t in (*observed.complete, *observed.imputed)], dtype=np.int64)
    data = ModelData(numbers, observed.h, observed.x, observed.fit_store)
    trained = dataclasses.replace(data, training=training)
    objectives = [
        objective_model(cache, key, trained, values, make_output_transform(transform, direction), observed.pending, rng)
        for values, key, direction in columns
    ]
    complete = observed.objective_rows
    constraints, feasible = constraint_models(cache, observed.key, observed.constraints, data.rows(complete), rng)
    if observed.failed and failed_trials in ("classify", "both"):
        finished_numbers = [t.number for t in (*observed.complete, *observed.pruned, *observed.failed)]
        labels = success_labels(len(observed.complete) + len(observed.pruned), len(observed.failed))
        finished = ModelData(np.array(finished_numbers, dtype=np.int64), *observed.finished, data.store)
        constraints.append(success_model(cache, observed.key, finished, labels, rng))
    feasible = np.concatenate([feasible, np.zeros(observed.n_imputed, dtype=bool)])
    return TrialModels(objectives, constraints, feasible, hypervolume=len(columns) > 1)


def objective_model(
    cache: ModelCache,
    key: tuple[str, ...],
    data: ModelData,
    values: np.ndarray,
    transform: OutputTransform,
    pending: tuple[np.ndarray, np.ndarray],
    rng: np.random.Generator,
    value_variances: np.ndarray | None = None,
) -> ObjectiveModel:
    """The model of the objective ``values`` of ``data``, conditioned on the ``pending`` points
    (h, x) at its posterior mean there (the kriging believer: the mean is kept and the variance
    shrinks, so that workers spread out); the believer's GP is the model's GP grown by the
    pending points. ``value_variances`` (None: none): how uncertain each value is (a pruned
    trial's predicted final value), extra noise of its observation in the fit and the GP. The
    output transform and the GP are fitted on the rows ``data.training`` (None: all); the
    targets are every row's, through that transform."""
    y, hyperparameters, fitted = cache.fit_or_reuse(
        key, data.h, data.x, values, transform, rng, data.store, data.training, value_variances
    )
    extra = target_variances(fitted, values, value_variances)
    gp, order = cache.gp(key, data.numbers, (data.h, data.x, y), hyperparameters, extra, data.training)
    h_pending, x_pending = pending
    if not len(h_pending):
        return ObjectiveModel(gp, y, hyperparameters, np.zeros(0), fitted, values)
    mean, _ = gp.predict(h_pending, x_pending)
    believer = gp.extended(h_pending, x_pending, np.concatenate([y[order], mean]))
    return ObjectiveModel(believer, y, hyperparameters, mean, fitted, values)


def constraint_models(
    cache: ModelCache,
    key: tuple[str, ...],
    by_trial: Sequence[Mapping[str, float]],
    data: ModelData,
    rng: np.random.Generator,
) -> tuple[list[ConstraintModel], np.ndarray]:
    """One GP per constraint (Gardner et al. 2014) and which trials are feasible (all constraints
    <= 0). Trials of an unconstrained study are all feasible; a trial that lacks a constraint's
    value counts as infeasible and is left out of that constraint's GP. ``by_trial``: each
    complete trial's constraint values by name (``Observations.constraints``)."""
    names = sorted(set().union(*(c.keys() for c in by_trial)))
    if not names:
        return [], np.ones(len(by_trial), dtype=bool)
    values = np.array([[c.get(name, math.nan) for name in names] for c in by_trial])
    feasible = np.all(values <= 0.0, axis=1)  # NaN compares False: infeasible
    models = []
    for j, name in enumerate(names):
        known = ~np.isnan(values[:, j])
        models.append(_constraint_model(cache, (*key, f"constraint:{name}"), data.rows(known), values[known, j], rng))
    return models, feasible


def success_model(
    cache: ModelCache, key: tuple[str, ...], data: ModelData, labels: np.ndarray, rng: np.random.Generator
) -> ConstraintModel:
    """The GP of success labels (``_trial_states.success_labels``: <= 0 a success) of every
    finished trial, a constraint whose log P(feasible) is the log probability of success."""
    model = _constraint_model(cache, (*key, "success"), data, labels, rng)
    return ConstraintModel(model.gp, model.threshold, is_success_model=True)


def _constraint_model(
    cache: ModelCache, key: tuple[str, ...], data: ModelData, values: np.ndarray, rng: np.random.Generator
) -> ConstraintModel:
    """A GP of constraint ``values`` (<= 0 feasible) and the image of the bound 0 in its targets."""
    g, hyperparameters, transform = cache.fit_or_reuse(key, data.h, data.x, values, ConstraintStandardize(), rng, data.store)
    assert isinstance(transform, FittedConstraintStandardize)  # what ConstraintStandardize fits
    gp, _ = cache.gp(key, data.numbers, (data.h, data.x, g), hyperparameters)
    return ConstraintModel(gp, transform.threshold(values))


def predicted_value(model: ObjectiveModel, h_row: np.ndarray, x: np.ndarray) -> tuple[float, float] | None:
    """The model's prediction of the objective value at one point (h_row: k codes, x: d), mean and
    standard deviation in the objective's own units (noise excluded): the GP's targets mapped back
    through the output transform, by interpolation between the observed (target, value) pairs
    (the transform is monotone) and its slope beyond them; the standard deviation by the slope
    at the nearest observed value. None when the model keeps no values or the prediction is not
    finite in the objective's units."""
    if model.transform is None or model.values is None or not len(model.values):
        return None
    mean, variance = model.gp.predict(h_row.reshape(1, -1), x.reshape(1, -1))
    order = np.argsort(model.targets, kind="stable")
    targets, values = model.targets[order], np.asarray(model.values, dtype=np.float64)[order]
    slopes = model.transform.slopes(model.values)[order]
    target = float(mean[0])
    nearest = int(np.argmin(np.abs(targets - target)))
    slope = float(slopes[nearest])
    if not (math.isfinite(slope) and slope != 0.0 and math.isfinite(target)):
        return None  # a transform whose slope under- or overflowed (values near the float limit)
    if targets[0] <= target <= targets[-1]:
        value = float(np.interp(target, targets, values))
    else:
        value = float(values[nearest] + (target - targets[nearest]) / slope)
    sd = math.sqrt(max(float(variance[0]), 0.0)) / abs(slope)
    return (value, sd) if math.isfinite(value) and math.isfinite(sd) else None


def best_feasible_target(model: ObjectiveModel, feasible: np.ndarray) -> float | None:
    """The incumbent's target: the highest target of a ``feasible`` row (None: none is)."""
    return float(model.targets[feasible].max()) if feasible.any() else None
