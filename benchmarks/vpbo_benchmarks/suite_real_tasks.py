"""The objectives of the broad suite's real tuning tasks (``hgb_breast_cancer``,
``svr_diabetes``): cross-validated scikit-learn models on data that ships with scikit-learn. Heavy
(scikit-learn): :mod:`.suite` reaches this module through :mod:`.lazy`; the tasks' settings are
in :mod:`.suite_families`.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
import threadpoolctl
from optuna.trial import BaseTrial
from sklearn.datasets import load_breast_cancer, load_diabetes
from sklearn.ensemble import HistGradientBoostingClassifier
from sklearn.model_selection import KFold, StratifiedKFold, cross_val_score
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.svm import SVR

from vpbo_benchmarks.suite_families import (
    HGB_CLASS_WEIGHTS,
    HGB_MAX_BINS,
    HGB_MAX_ITER,
    HGB_N_FOLDS,
    REAL_CV_SEED,
    SVR_KERNELS,
    SVR_MAX_ITER,
    SVR_MSE_CAP,
    SVR_N_FOLDS,
)


def hgb_breast_cancer_objective() -> Callable[[BaseTrial], float]:
    """3-fold stratified CV log-loss of HistGradientBoostingClassifier on load_breast_cancer."""
    x, y = load_breast_cancer(return_X_y=True)
    folds = StratifiedKFold(n_splits=HGB_N_FOLDS, shuffle=True, random_state=REAL_CV_SEED)

    def objective(trial: BaseTrial) -> float:
        class_weight = trial.suggest_categorical("class_weight", list(HGB_CLASS_WEIGHTS))
        model = HistGradientBoostingClassifier(
            max_iter=HGB_MAX_ITER,
            learning_rate=trial.suggest_float("learning_rate", 1e-3, 1.0, log=True),
            max_leaf_nodes=trial.suggest_int("max_leaf_nodes", 4, 64, log=True),
            min_samples_leaf=trial.suggest_int("min_samples_leaf", 2, 64, log=True),
            l2_regularization=trial.suggest_float("l2_regularization", 1e-6, 10.0, log=True),
            max_features=trial.suggest_float("max_features", 0.1, 1.0),
            max_bins=trial.suggest_categorical("max_bins", list(HGB_MAX_BINS)),
            class_weight=None if class_weight == "none" else class_weight,
            early_stopping=False,
            random_state=REAL_CV_SEED,
        )
        with threadpoolctl.threadpool_limits(limits=1):  # OpenMP threads only contend on one core
            return -float(np.mean(cross_val_score(model, x, y, cv=folds, scoring="neg_log_loss")))

    return objective


def svr_diabetes_objective() -> Callable[[BaseTrial], float]:
    """5-fold CV mean squared error of a standardised SVR on load_diabetes (target standardised),
    capped at SVR_MSE_CAP; gamma, degree and coef0 exist only for the kernels that use them."""
    x, y = load_diabetes(return_X_y=True)
    y = (y - y.mean()) / y.std()
    folds = KFold(n_splits=SVR_N_FOLDS, shuffle=True, random_state=REAL_CV_SEED)

    def objective(trial: BaseTrial) -> float:
        kernel = trial.suggest_categorical("kernel", list(SVR_KERNELS))
        kwargs: dict[str, Any] = {
            "C": trial.suggest_float("C", 1e-2, 1e3, log=True),
            "epsilon": trial.suggest_float("epsilon", 1e-3, 1.0, log=True),
        }
        if kernel != "linear":
            kwargs["gamma"] = trial.suggest_float("gamma", 1e-4, 10.0, log=True)
        if kernel == "poly":
            kwargs["degree"] = trial.suggest_int("degree", 2, 5)
        if kernel in ("poly", "sigmoid"):
            kwargs["coef0"] = trial.suggest_float("coef0", -1.0, 1.0)
        model = make_pipeline(StandardScaler(), SVR(kernel=kernel, max_iter=SVR_MAX_ITER, **kwargs))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # ConvergenceWarning at the iteration cap
            mse = -float(np.mean(cross_val_score(model, x, y, cv=folds, scoring="neg_mean_squared_error")))
        return min(mse, SVR_MSE_CAP) if math.isfinite(mse) else SVR_MSE_CAP

    return objective

