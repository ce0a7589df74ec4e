"""Tune a scikit-learn support vector classifier on the handwritten digits with VPBOSampler.

The search space mixes categorical choices (kernel, gamma mode, feature scaler, class weights)
with numeric ones (C and gamma on log scales, the polynomial degree, coef0); the objective is the
3-fold cross-validated accuracy on scikit-learn's bundled digits data set (1797 images, 10
classes). About 20 seconds at the default 100 trials on 2 cores.

Run: ``python examples/sklearn_svm.py [--trials N] [--seed S]``.
"""

from __future__ import annotations

import argparse

import optuna
from sklearn.datasets import load_digits
from sklearn.model_selection import cross_val_score
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import MinMaxScaler, RobustScaler, StandardScaler
from sklearn.svm import SVC

from optuna_vpbo import VPBOSampler

SCALERS = {"standard": StandardScaler, "minmax": MinMaxScaler, "robust": RobustScaler}


def objective(trial: optuna.Trial) -> float:
    x, y = load_digits(return_X_y=True)
    kernel = trial.suggest_categorical("kernel", ["linear", "rbf", "poly", "sigmoid"])
    gamma_mode = trial.suggest_categorical("gamma_mode", ["scale", "auto", "value"])
    scaler = trial.suggest_categorical("scaler", list(SCALERS))
    class_weight = trial.suggest_categorical("class_weight", ["none", "balanced"])
    c = trial.suggest_float("C", 1e-2, 1e2, log=True)
    gamma_value = trial.suggest_float("gamma", 1e-4, 1e0, log=True)  # used when gamma_mode is "value"
    degree = trial.suggest_int("degree", 2, 5)  # poly only
    coef0 = trial.suggest_float("coef0", -1.0, 1.0)  # poly and sigmoid only
    model = make_pipeline(
        SCALERS[scaler](),
        SVC(
            kernel=kernel,
            C=c,
            gamma=gamma_value if gamma_mode == "value" else gamma_mode,
            degree=degree,
            coef0=coef0,
            class_weight=None if class_weight == "none" else class_weight,
        ),
    )
    return float(cross_val_score(model, x, y, cv=3, scoring="accuracy").mean())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=100)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()

    optuna.logging.set_verbosity(optuna.logging.WARNING)
    study = optuna.create_study(direction="maximize", sampler=VPBOSampler(seed=args.seed))
    study.optimize(objective, n_trials=args.trials)

    print(f"best accuracy {study.best_value:.4f} (trial #{study.best_trial.number} of {len(study.trials)})")
    print(f"best params {study.best_params}")


if __name__ == "__main__":
    main()
