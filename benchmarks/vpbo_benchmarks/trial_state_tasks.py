"""The trial-states suite's tasks on scikit-learn and XGBoost models: the pruning tasks
(incremental learners that report a validation error per epoch, or per group of boosting rounds,
and Optuna's ``XGBoostPruningCallback``) and the tasks with invalid combinations of options. The
task table, which states each task's budget and passes it here, is :mod:`.trial_states`; heavy
(scikit-learn, XGBoost): it reaches this module through :mod:`.lazy`.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable

import numpy as np
import optuna
import threadpoolctl
import xgboost as xgb
from optuna.trial import BaseTrial
from optuna_integration import XGBoostPruningCallback
from sklearn.datasets import load_breast_cancer, load_digits, load_wine, make_classification
from sklearn.ensemble import HistGradientBoostingClassifier
from sklearn.linear_model import LogisticRegression, SGDClassifier
from sklearn.metrics import log_loss
from sklearn.model_selection import train_test_split
from sklearn.neural_network import MLPClassifier
from sklearn.preprocessing import StandardScaler
from sklearn.svm import LinearSVC

DATA_SEED = 0  # train/validation splits and model seeds: a configuration always gives the same value

Objective = Callable[[BaseTrial], float]


def _split(x: np.ndarray, y: np.ndarray, *, scale: bool) -> tuple[np.ndarray, ...]:
    x_train, x_valid, y_train, y_valid = train_test_split(x, y, test_size=0.3, random_state=DATA_SEED, stratify=y)
    if scale:
        scaler = StandardScaler().fit(x_train)
        x_train, x_valid = scaler.transform(x_train), scaler.transform(x_valid)
    return x_train, x_valid, y_train, y_valid


def _report_or_prune(trial: BaseTrial, value: float, step: int) -> None:
    trial.report(value, step)
    if trial.should_prune():
        raise optuna.TrialPruned()


# --------------------------------------------------------------------------------------------
# Pruning tasks
# --------------------------------------------------------------------------------------------

SGD_LOSSES = ("hinge", "log_loss", "modified_huber", "squared_hinge", "perceptron")
SGD_PENALTIES = ("l2", "l1", "elasticnet")
SGD_SCHEDULES = ("constant", "optimal", "invscaling", "adaptive")


def sgd_digits_objective(epochs: int) -> Objective:
    """SGDClassifier on load_digits (standardised), ``partial_fit`` once per epoch for ``epochs``
    epochs; the value is the validation error after each epoch."""
    x_train, x_valid, y_train, y_valid = _split(*load_digits(return_X_y=True), scale=True)
    classes = np.unique(y_train)

    def objective(trial: BaseTrial) -> float:
        model = SGDClassifier(
            loss=trial.suggest_categorical("loss", list(SGD_LOSSES)),
            penalty=trial.suggest_categorical("penalty", list(SGD_PENALTIES)),
            learning_rate=trial.suggest_categorical("learning_rate", list(SGD_SCHEDULES)),
            alpha=trial.suggest_float("alpha", 1e-6, 1e-1, log=True),
            eta0=trial.suggest_float("eta0", 1e-4, 1.0, log=True),
            l1_ratio=trial.suggest_float("l1_ratio", 0.0, 1.0),
            random_state=DATA_SEED,
        )
        error = math.nan
        for epoch in range(epochs):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # ConvergenceWarning, overflow notes
                model.partial_fit(x_train, y_train, classes=classes)
            error = 1.0 - float(model.score(x_valid, y_valid))
            _report_or_prune(trial, error, epoch)
        return error

    return objective


MLP_DATA = dict(n_samples=1200, n_features=20, n_informative=8, n_redundant=4, n_classes=3, flip_y=0.03, class_sep=0.8)


def mlp_classification_objective(epochs: int) -> Objective:
    """MLPClassifier on a fixed make_classification set (3 classes, 20 features), ``partial_fit``
    once per epoch for ``epochs`` epochs; the value is the validation error after each epoch."""
    x_train, x_valid, y_train, y_valid = _split(*make_classification(random_state=DATA_SEED, **MLP_DATA), scale=True)
    classes = np.unique(y_train)

    def objective(trial: BaseTrial) -> float:
        n_layers = trial.suggest_int("n_layers", 1, 2)
        units = trial.suggest_int("n_units", 8, 128, log=True)
        model = MLPClassifier(
            hidden_layer_sizes=(units,) * n_layers,
            activation=trial.suggest_categorical("activation", ["relu", "tanh", "logistic"]),
            solver=trial.suggest_categorical("solver", ["sgd", "adam"]),
            alpha=trial.suggest_float("alpha", 1e-6, 1e-1, log=True),
            learning_rate_init=trial.suggest_float("learning_rate_init", 1e-4, 3e-1, log=True),
            batch_size=trial.suggest_categorical("batch_size", [16, 32, 64, 128]),
            random_state=DATA_SEED,
        )
        error = math.nan
        for epoch in range(epochs):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                model.partial_fit(x_train, y_train, classes=classes)
            error = 1.0 - float(model.score(x_valid, y_valid))
            _report_or_prune(trial, error, epoch)
        return error

    return objective




def hgb_warm_start_objective(steps: int, rounds_per_step: int) -> Objective:
    """HistGradientBoostingClassifier on load_breast_cancer with ``warm_start``: ``max_iter``
    grown by ``rounds_per_step`` rounds per step for ``steps`` steps, the validation log-loss
    reported after each step. (No
    class_weight: with sample weights a fit on these 398 rows is ten times slower.)"""
    x_train, x_valid, y_train, y_valid = _split(*load_breast_cancer(return_X_y=True), scale=False)

    def objective(trial: BaseTrial) -> float:
        model = HistGradientBoostingClassifier(
            learning_rate=trial.suggest_float("learning_rate", 1e-3, 1.0, log=True),
            max_leaf_nodes=trial.suggest_int("max_leaf_nodes", 2, 64, log=True),
            min_samples_leaf=trial.suggest_int("min_samples_leaf", 1, 64, log=True),
            l2_regularization=trial.suggest_float("l2_regularization", 1e-6, 10.0, log=True),
            max_features=trial.suggest_float("max_features", 0.1, 1.0),
            max_bins=trial.suggest_categorical("max_bins", [15, 63, 255]),
            max_depth=trial.suggest_categorical("max_depth", [None, 3, 6]),
            warm_start=True, early_stopping=False, random_state=DATA_SEED,
        )
        loss = math.nan
        for step in range(steps):
            model.set_params(max_iter=rounds_per_step * (step + 1))
            with threadpoolctl.threadpool_limits(limits=1):  # OpenMP threads only contend on a shared core
                model.fit(x_train, y_train)
                loss = float(log_loss(y_valid, model.predict_proba(x_valid)))
            _report_or_prune(trial, loss, step)
        return loss

    return objective




def xgb_callback_objective(rounds: int) -> Objective:
    """XGBoost (``xgb.train``) on load_wine with Optuna's ``XGBoostPruningCallback`` on the
    validation multi-class log-loss, one report per boosting round for ``rounds`` rounds, as in Optuna's
    ``xgboost/xgboost_integration.py`` example; the value is the final validation log-loss."""
    x_train, x_valid, y_train, y_valid = _split(*load_wine(return_X_y=True), scale=False)
    train, valid = xgb.DMatrix(x_train, label=y_train), xgb.DMatrix(x_valid, label=y_valid)

    def objective(trial: BaseTrial) -> float:
        booster = trial.suggest_categorical("booster", ["gbtree", "dart"])
        params = {
            "objective": "multi:softprob", "num_class": 3, "eval_metric": "mlogloss", "nthread": 1,
            "seed": DATA_SEED, "verbosity": 0, "booster": booster,
            "lambda": trial.suggest_float("lambda", 1e-8, 1.0, log=True),
            "alpha": trial.suggest_float("alpha", 1e-8, 1.0, log=True),
            "max_depth": trial.suggest_int("max_depth", 1, 9),
            "eta": trial.suggest_float("eta", 1e-3, 1.0, log=True),
            "gamma": trial.suggest_float("gamma", 1e-8, 1.0, log=True),
            "grow_policy": trial.suggest_categorical("grow_policy", ["depthwise", "lossguide"]),
            "subsample": trial.suggest_float("subsample", 0.4, 1.0),
        }
        callback = XGBoostPruningCallback(trial, "validation-mlogloss")
        model = xgb.train(
            params, train, num_boost_round=rounds, evals=[(valid, "validation")], callbacks=[callback],
            verbose_eval=False,
        )
        return float(model.eval(valid).split(":")[-1])

    return objective


# --------------------------------------------------------------------------------------------
# Invalid combinations
# --------------------------------------------------------------------------------------------

LOGREG_SOLVERS = ("lbfgs", "liblinear", "newton-cg", "newton-cholesky", "sag", "saga")
LOGREG_PENALTIES = ("l1", "l2", "elasticnet", "none")


def logreg_invalid_objective() -> Objective:
    """LogisticRegression on load_breast_cancer (standardised): solver x penalty x dual, of which
    33 of the 48 combinations raise ValueError in scikit-learn; validation log-loss."""
    x_train, x_valid, y_train, y_valid = _split(*load_breast_cancer(return_X_y=True), scale=True)

    def objective(trial: BaseTrial) -> float:
        penalty = trial.suggest_categorical("penalty", list(LOGREG_PENALTIES))
        model = LogisticRegression(
            solver=trial.suggest_categorical("solver", list(LOGREG_SOLVERS)),
            penalty=None if penalty == "none" else penalty,
            dual=trial.suggest_categorical("dual", [False, True]),
            C=trial.suggest_float("C", 1e-4, 1e4, log=True),
            l1_ratio=trial.suggest_float("l1_ratio", 0.0, 1.0) if penalty == "elasticnet" else None,
            max_iter=200, random_state=DATA_SEED,  # sag, saga and liblinear shuffle
        )
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # ConvergenceWarning; the deprecation of penalty (sklearn 1.8)
            model.fit(x_train, y_train)
        return float(log_loss(y_valid, model.predict_proba(x_valid)))

    return objective


def linear_svc_invalid_objective() -> Objective:
    """LinearSVC on a fixed make_classification set (standardised): loss x penalty x dual, of
    which 4 of the 8 combinations raise ValueError; validation error."""
    data = make_classification(n_samples=600, n_features=30, n_informative=6, flip_y=0.05, random_state=DATA_SEED)
    x_train, x_valid, y_train, y_valid = _split(*data, scale=True)

    def objective(trial: BaseTrial) -> float:
        loss = trial.suggest_categorical("loss", ["hinge", "squared_hinge"])
        penalty = trial.suggest_categorical("penalty", ["l1", "l2"])
        dual = trial.suggest_categorical("dual", [True, False])
        class_weight = trial.suggest_categorical("class_weight", ["none", "balanced"])
        model = LinearSVC(
            loss=loss, penalty=penalty, dual=dual,
            C=trial.suggest_float("C", 1e-4, 1e2, log=True),
            tol=trial.suggest_float("tol", 1e-6, 1e-1, log=True),
            class_weight=None if class_weight == "none" else class_weight,
            fit_intercept=trial.suggest_categorical("fit_intercept", [True, False]),
            max_iter=500, random_state=DATA_SEED,
        )
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # ConvergenceWarning at the iteration cap
            model.fit(x_train, y_train)
        return 1.0 - float(model.score(x_valid, y_valid))

    return objective
