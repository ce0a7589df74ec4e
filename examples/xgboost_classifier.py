"""Tune an XGBoost classifier on the breast cancer data set with VPBOSampler.

Categorical choices (booster, tree growing policy, class weighting) mix with numeric ones
(learning rate, depth, number of trees, sampling ratios, regularisation); the objective is the
validation log loss (lower is better) of scikit-learn's bundled breast cancer data (569 tumours,
30 features), on a fixed stratified split. About 15 seconds at the default 100 trials on 2
cores.

Run: ``python examples/xgboost_classifier.py [--trials N] [--seed S]``.
"""

from __future__ import annotations

import argparse

import numpy as np
import optuna
import xgboost as xgb
from sklearn.datasets import load_breast_cancer
from sklearn.metrics import accuracy_score, log_loss
from sklearn.model_selection import train_test_split

from optuna_vpbo import VPBOSampler


def load_split(seed: int = 0) -> tuple[np.ndarray, ...]:
    x, y = load_breast_cancer(return_X_y=True)
    return tuple(train_test_split(x, y, test_size=0.25, stratify=y, random_state=seed))


X_TRAIN, X_VALID, Y_TRAIN, Y_VALID = load_split()


def objective(trial: optuna.Trial) -> float:
    booster = trial.suggest_categorical("booster", ["gbtree", "dart"])
    grow_policy = trial.suggest_categorical("grow_policy", ["depthwise", "lossguide"])
    weighting = trial.suggest_categorical("class_weighting", ["none", "balanced"])
    params = {
        "booster": booster,
        "grow_policy": grow_policy,
        "tree_method": "hist",
        "learning_rate": trial.suggest_float("learning_rate", 1e-2, 0.5, log=True),
        "max_depth": trial.suggest_int("max_depth", 2, 8),
        "n_estimators": trial.suggest_int("n_estimators", 20, 200, log=True),
        "subsample": trial.suggest_float("subsample", 0.5, 1.0),
        "colsample_bytree": trial.suggest_float("colsample_bytree", 0.3, 1.0),
        "min_child_weight": trial.suggest_float("min_child_weight", 1e-2, 10.0, log=True),
        "reg_lambda": trial.suggest_float("reg_lambda", 1e-3, 10.0, log=True),
        "random_state": 0,
        "n_jobs": 1,  # small data: one thread is as fast, and calm on a busy machine
    }
    if booster == "dart":
        params["rate_drop"] = 0.1
    if weighting == "balanced":
        params["scale_pos_weight"] = float(np.sum(Y_TRAIN == 0) / np.sum(Y_TRAIN == 1))
    model = xgb.XGBClassifier(**params)
    model.fit(X_TRAIN, Y_TRAIN)
    probabilities = model.predict_proba(X_VALID)[:, 1]
    trial.set_user_attr("accuracy", float(accuracy_score(Y_VALID, probabilities > 0.5)))
    return float(log_loss(Y_VALID, probabilities))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=100)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()

    optuna.logging.set_verbosity(optuna.logging.WARNING)
    study = optuna.create_study(direction="minimize", sampler=VPBOSampler(seed=args.seed))
    study.optimize(objective, n_trials=args.trials)

    best = study.best_trial
    accuracy = best.user_attrs["accuracy"]
    print(f"best log loss {best.value:.4f}, accuracy {accuracy:.4f} (trial #{best.number} of {len(study.trials)})")
    print(f"best params {best.params}")


if __name__ == "__main__":
    main()
