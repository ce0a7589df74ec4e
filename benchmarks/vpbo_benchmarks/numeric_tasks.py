"""The scikit-learn tasks of the numeric group (:mod:`.numeric_problems`): Bayesmark's
published search ranges (``bayesmark/sklearn_funcs.py``), scored as Bayesmark scores them. Heavy
(scikit-learn): :mod:`.numeric_problems` reaches :func:`build` through :mod:`.lazy`.

The data: 80 % of a data set shipped with scikit-learn, split once (seed 0, shuffled), as
Bayesmark's training part; unlike Bayesmark, the features are standardised (StandardScaler fitted
once on that 80 %, before the folds). The value: the mean over 5 unshuffled stratified folds
(Bayesmark's ``cv=5``) of the log loss, or of 1 - accuracy for the decision tree. Every model
with a random state has it fixed: a configuration always gives the same value. Bayesmark's
"logit" ranges (the decision tree's fractions) are sampled as plain floats: Optuna has no logit
scale.
"""

from __future__ import annotations

import dataclasses
import functools
import warnings
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np
from optuna.trial import BaseTrial
from sklearn.datasets import load_breast_cancer, load_digits, load_wine
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import StratifiedKFold, cross_val_score, train_test_split
from sklearn.neighbors import KNeighborsClassifier
from sklearn.preprocessing import StandardScaler
from sklearn.svm import SVC
from sklearn.tree import DecisionTreeClassifier

from vpbo_benchmarks.problem import MINIMIZE, Problem

CV_SPLITS = 5
SPLIT_SEED = 0  # the 80/20 split and every model's random state
HOLDOUT_FRACTION = 0.2
DATA_LOADERS: Mapping[str, Callable[..., Any]] = {
    "breast": load_breast_cancer, "wine": load_wine, "digits": load_digits,
}
KNN_NEIGHBORS, KNN_P = (1, 25), (1, 4)  # 25 x 4 = 100 points

Objective = Callable[[BaseTrial], float]
ModelOfTrial = Callable[[BaseTrial], Any]


@dataclasses.dataclass(frozen=True)
class NumericTask:
    """A scikit-learn task: ``model(trial)`` suggests the parameters and returns the unfitted
    estimator; ``scoring`` is scikit-learn's (``neg_log_loss``: the value is the log loss;
    ``accuracy``: the value is 1 - accuracy)."""

    name: str
    data: str
    model: ModelOfTrial
    scoring: str
    description: str


@functools.cache
def training_data(name: str) -> tuple[np.ndarray, np.ndarray]:
    """80 % of a scikit-learn data set (Bayesmark's training part), features standardised."""
    x, y = DATA_LOADERS[name](return_X_y=True)
    x, _, y, _ = train_test_split(x, y, test_size=HOLDOUT_FRACTION, random_state=SPLIT_SEED, shuffle=True)
    return StandardScaler().fit_transform(x), y


def cv_loss(estimator: Any, data: tuple[np.ndarray, np.ndarray], scoring: str) -> float:
    """The mean 5-fold (stratified, unshuffled) loss: -score for ``neg_*`` scorings, else 1 - score."""
    x, y = data
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # ConvergenceWarning; degenerate folds of extreme settings
        score = float(np.mean(cross_val_score(estimator, x, y, scoring=scoring, cv=StratifiedKFold(CV_SPLITS))))
    return -score if scoring.startswith("neg_") else 1.0 - score


def knn_model(trial: BaseTrial) -> Any:
    return KNeighborsClassifier(n_neighbors=trial.suggest_int("n_neighbors", *KNN_NEIGHBORS), p=trial.suggest_int("p", *KNN_P))


def svm_model(trial: BaseTrial) -> Any:
    return SVC(
        kernel="rbf", probability=True, random_state=SPLIT_SEED,
        C=trial.suggest_float("C", 1.0, 1e3, log=True),
        gamma=trial.suggest_float("gamma", 1e-4, 1e-3, log=True),
        tol=trial.suggest_float("tol", 1e-5, 1e-1, log=True),
    )


def dt_model(trial: BaseTrial) -> Any:
    return DecisionTreeClassifier(
        random_state=SPLIT_SEED,
        max_depth=trial.suggest_int("max_depth", 1, 15),
        min_samples_split=trial.suggest_float("min_samples_split", 0.01, 0.99),
        min_samples_leaf=trial.suggest_float("min_samples_leaf", 0.01, 0.49),
        min_weight_fraction_leaf=trial.suggest_float("min_weight_fraction_leaf", 0.01, 0.49),
        max_features=trial.suggest_float("max_features", 0.01, 0.99),
        min_impurity_decrease=trial.suggest_float("min_impurity_decrease", 0.0, 0.5),
    )


def linear_model(trial: BaseTrial) -> Any:
    return LogisticRegression(
        solver="liblinear", random_state=SPLIT_SEED,
        C=trial.suggest_float("C", 1e-2, 1e2, log=True),
        intercept_scaling=trial.suggest_float("intercept_scaling", 1e-2, 1e2, log=True),
    )


_CV = "mean 5-fold CV on 80 % of the data (standardised features)"
KNN_SPACE = "ints n_neighbors 1-25 and p 1-4 (Minkowski power): 100 points, no categoricals"
TASKS: Mapping[str, NumericTask] = {t.name: t for t in (
    NumericTask("knn_breast", "breast", knn_model, "neg_log_loss", f"kNN on load_breast_cancer, {_CV} log loss: {KNN_SPACE}"),
    NumericTask("knn_wine", "wine", knn_model, "neg_log_loss", f"kNN on load_wine, {_CV} log loss: {KNN_SPACE}"),
    NumericTask(
        "svm_breast", "breast", svm_model, "neg_log_loss",
        f"RBF SVC (Platt probabilities) on load_breast_cancer, {_CV} log loss: log floats C in [1, 1e3], gamma in "
        "[1e-4, 1e-3], tol in [1e-5, 0.1]",
    ),
    NumericTask(
        "dt_digits", "digits", dt_model, "accuracy",
        f"decision tree on load_digits, {_CV} error (1 - accuracy): int max_depth 1-15, floats min_samples_split "
        "[0.01, 0.99], min_samples_leaf and min_weight_fraction_leaf [0.01, 0.49], max_features [0.01, 0.99] "
        "(Bayesmark's logit ranges, sampled uniformly), min_impurity_decrease [0, 0.5]; flat over most of the space",
    ),
    NumericTask(
        "linear_breast", "breast", linear_model, "neg_log_loss",
        f"L2 logistic regression (liblinear) on load_breast_cancer, {_CV} log loss: log floats C and "
        "intercept_scaling in [1e-2, 1e2]",
    ),
)}


def task_objective(task: NumericTask) -> Objective:
    """The Optuna objective of ``task`` (its data loaded once, here)."""
    data = training_data(task.data)

    def objective(trial: BaseTrial) -> float:
        return cv_loss(task.model(trial), data, task.scoring)

    return objective


def build(name: str) -> Problem:
    """The (minimised) :class:`~.problem.Problem` of scikit-learn task ``name``; no known optimum."""
    task = TASKS[name]
    return Problem(
        name=name, directions=(MINIMIZE,), optimum=None, n_combinations=0, objective=task_objective(task),
        description=f"[numeric, Bayesmark's ranges] {task.description}; deterministic",
    )
