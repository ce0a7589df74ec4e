"""The fresh pruning set's tasks: scikit-learn learners on data shipped with
scikit-learn or generated, each reporting a validation loss per step (epochs, boosting rounds,
trees, training rows). Heavy (scikit-learn): :mod:`.pruning_tasks`, which holds the set and each
task's pruner, reaches this module through :mod:`.lazy`.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from optuna.trial import BaseTrial
from sklearn.datasets import load_diabetes, make_friedman1, make_friedman2, make_friedman3, make_hastie_10_2, make_moons
from sklearn.ensemble import GradientBoostingRegressor, RandomForestClassifier
from sklearn.kernel_approximation import RBFSampler
from sklearn.kernel_ridge import KernelRidge
from sklearn.linear_model import Perceptron, SGDRegressor
from sklearn.model_selection import train_test_split
from sklearn.neural_network import MLPRegressor
from sklearn.preprocessing import PolynomialFeatures, StandardScaler

from vpbo_benchmarks.learning_curves import (
    DATA_SEED,
    FOREST_STEPS,
    FOREST_TREES_PER_STEP,
    GBR_ROUNDS_PER_STEP,
    GBR_STEPS,
    MLP_EPOCHS,
    PERCEPTRON_EPOCHS,
    RIDGE_ROWS_PER_STEP,
    RIDGE_STEPS,
    SGD_EPOCHS,
    SGD_SCHEDULES,
    Objective,
    run_curve,
    sgd_learning_rate,
)


def _regression_split(x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, ...]:
    """70/30 split (fixed seed); features and target standardised with the training statistics."""
    x_train, x_valid, y_train, y_valid = train_test_split(x, y, test_size=0.3, random_state=DATA_SEED)
    scaler = StandardScaler().fit(x_train)
    mean, std = float(np.mean(y_train)), float(np.std(y_train))
    return scaler.transform(x_train), scaler.transform(x_valid), (y_train - mean) / std, (y_valid - mean) / std


def _mse(model: Any, x: np.ndarray, y: np.ndarray) -> float:
    return float(np.mean((model.predict(x) - y) ** 2))


def sgd_schedule_objective() -> Objective:
    """SGDRegressor.partial_fit on load_diabetes with its pairwise products (65 standardised
    features), one epoch per step, the learning rate set before each epoch by a schedule with a
    warm-up; averaged SGD as an option. Warm-up, decay and averaging all make early epochs a poor
    guide to the last. The value: validation MSE of the standardised target."""
    x, y = load_diabetes(return_X_y=True)
    x_train, x_valid, y_train, y_valid = _regression_split(PolynomialFeatures(2, include_bias=False).fit_transform(x), y)

    def objective(trial: BaseTrial) -> float:
        loss = trial.suggest_categorical("loss", ["squared_error", "huber", "epsilon_insensitive"])
        model = SGDRegressor(
            loss=loss, penalty=trial.suggest_categorical("penalty", ["l2", "l1", "elasticnet"]),
            alpha=trial.suggest_float("alpha", 1e-6, 1.0, log=True),
            epsilon=trial.suggest_float("epsilon", 1e-2, 1.0, log=True) if loss != "squared_error" else 0.1,
            average=trial.suggest_categorical("average", [False, True]),
            learning_rate="constant", random_state=DATA_SEED,
        )
        eta0 = trial.suggest_float("eta0", 1e-5, 0.1, log=True)
        schedule = trial.suggest_categorical("schedule", list(SGD_SCHEDULES))
        warmup = trial.suggest_int("warmup", 0, 10)

        def epoch_value(step: int) -> float:
            model.set_params(eta0=sgd_learning_rate(eta0, schedule, warmup, step - 1))
            model.partial_fit(x_train, y_train)
            return _mse(model, x_valid, y_valid)

        return run_curve(trial, epoch_value, SGD_EPOCHS)

    return objective


def mlp_regressor_objective() -> Objective:
    """MLPRegressor.partial_fit on make_friedman1 (1000 x 10, noise 1), one epoch per step; the
    value: validation MSE of the standardised target."""
    x_train, x_valid, y_train, y_valid = _regression_split(*make_friedman1(1000, noise=1.0, random_state=DATA_SEED))

    def objective(trial: BaseTrial) -> float:
        n_layers = trial.suggest_int("n_layers", 1, 3)
        model = MLPRegressor(
            hidden_layer_sizes=(trial.suggest_int("n_units", 4, 128, log=True),) * n_layers,
            activation=trial.suggest_categorical("activation", ["relu", "tanh", "logistic"]),
            solver=trial.suggest_categorical("solver", ["sgd", "adam"]),
            alpha=trial.suggest_float("alpha", 1e-6, 1.0, log=True),
            learning_rate_init=trial.suggest_float("learning_rate_init", 1e-4, 0.1, log=True),
            momentum=trial.suggest_float("momentum", 0.0, 0.99),
            batch_size=trial.suggest_categorical("batch_size", [16, 64, 256]),
            random_state=DATA_SEED,
        )

        def epoch_value(step: int) -> float:
            model.partial_fit(x_train, y_train)
            return _mse(model, x_valid, y_valid)

        return run_curve(trial, epoch_value, MLP_EPOCHS)

    return objective


def gbr_warm_start_objective() -> Objective:
    """GradientBoostingRegressor(warm_start=True) on make_friedman2 (500 x 4, noise 150),
    ``n_estimators`` grown by 4 per step; the value: validation MSE of the standardised target."""
    x_train, x_valid, y_train, y_valid = _regression_split(*make_friedman2(500, noise=150.0, random_state=DATA_SEED))

    def objective(trial: BaseTrial) -> float:
        model = GradientBoostingRegressor(
            loss=trial.suggest_categorical("loss", ["squared_error", "huber", "absolute_error"]),
            learning_rate=trial.suggest_float("learning_rate", 5e-3, 0.5, log=True),
            max_depth=trial.suggest_int("max_depth", 1, 4),
            min_samples_leaf=trial.suggest_int("min_samples_leaf", 1, 64, log=True),
            subsample=trial.suggest_float("subsample", 0.3, 1.0),
            max_features=trial.suggest_categorical("max_features", [1.0, 0.5, "sqrt"]),
            warm_start=True, random_state=DATA_SEED,
        )

        def round_value(step: int) -> float:
            model.set_params(n_estimators=GBR_ROUNDS_PER_STEP * step)
            model.fit(x_train, y_train)
            return _mse(model, x_valid, y_valid)

        return run_curve(trial, round_value, GBR_STEPS)

    return objective


def forest_trees_objective() -> Objective:
    """RandomForestClassifier(warm_start=True) on make_hastie_10_2 (800 x 10), grown by 2 trees
    per step; few trees favour shallow trees, many trees deep ones. The value: validation Brier
    score (mean squared error of the predicted probability of class 1)."""
    x, y = make_hastie_10_2(800, random_state=DATA_SEED)
    x_train, x_valid, y_train, y_valid = train_test_split(
        x, (y > 0).astype(int), test_size=0.3, random_state=DATA_SEED, stratify=y
    )

    def objective(trial: BaseTrial) -> float:
        bootstrap = trial.suggest_categorical("bootstrap", [True, False])
        model = RandomForestClassifier(
            criterion=trial.suggest_categorical("criterion", ["gini", "entropy"]),
            max_depth=trial.suggest_categorical("max_depth", [3, 6, 12, None]),
            min_samples_leaf=trial.suggest_int("min_samples_leaf", 1, 32, log=True),
            max_features=trial.suggest_float("max_features", 0.1, 1.0),
            bootstrap=bootstrap,
            max_samples=trial.suggest_float("max_samples", 0.2, 1.0) if bootstrap else None,
            warm_start=True, random_state=DATA_SEED,
        )

        votes = np.zeros(len(y_valid))  # the sum over trees of P(class 1): the forest's mean, kept as it grows

        def trees_value(step: int) -> float:
            model.set_params(n_estimators=FOREST_TREES_PER_STEP * step)
            model.fit(x_train, y_train)
            for tree in model.estimators_[-FOREST_TREES_PER_STEP:]:
                votes[:] += tree.predict_proba(x_valid)[:, 1]
            return float(np.mean((votes / len(model.estimators_) - y_valid) ** 2))

        return run_curve(trial, trees_value, FOREST_STEPS)

    return objective


def perceptron_features_objective() -> Objective:
    """Perceptron.partial_fit on random Fourier features (RBFSampler, fixed seed) of make_moons
    (1000 points, noise 0.3), one epoch per step: jumpy curves. The value: validation error."""
    x, y = make_moons(1000, noise=0.3, random_state=DATA_SEED)
    x_train, x_valid, y_train, y_valid = train_test_split(x, y, test_size=0.3, random_state=DATA_SEED, stratify=y)

    def objective(trial: BaseTrial) -> float:
        features = RBFSampler(
            gamma=trial.suggest_float("gamma", 1e-2, 1e2, log=True),
            n_components=trial.suggest_int("n_components", 16, 1024, log=True), random_state=DATA_SEED,
        ).fit(x_train)
        train, valid = features.transform(x_train), features.transform(x_valid)
        penalty = trial.suggest_categorical("penalty", ["none", "l2", "l1", "elasticnet"])
        model = Perceptron(
            penalty=None if penalty == "none" else penalty,
            alpha=trial.suggest_float("alpha", 1e-7, 1e-1, log=True),
            eta0=trial.suggest_float("eta0", 1e-3, 10.0, log=True),
            fit_intercept=trial.suggest_categorical("fit_intercept", [True, False]),
            random_state=DATA_SEED,
        )

        def epoch_value(step: int) -> float:
            model.partial_fit(train, y_train, classes=[0, 1])
            return 1.0 - float(model.score(valid, y_valid))

        return run_curve(trial, epoch_value, PERCEPTRON_EPOCHS)

    return objective


def kernel_ridge_rows_objective() -> Objective:
    """KernelRidge on make_friedman3 (1000 x 4, noise 0.1), refitted at each step on the first
    35 step rows of the (shuffled) training set: the resource is training rows, as in Hyperband's
    kernel experiments. Few rows favour strong regularisation and smooth kernels. The value:
    validation MSE of the standardised target."""
    x_train, x_valid, y_train, y_valid = _regression_split(*make_friedman3(1000, noise=0.1, random_state=DATA_SEED))

    def objective(trial: BaseTrial) -> float:
        kernel = trial.suggest_categorical("kernel", ["rbf", "laplacian", "polynomial"])
        model = KernelRidge(
            kernel=kernel, alpha=trial.suggest_float("alpha", 1e-6, 10.0, log=True),
            gamma=trial.suggest_float("gamma", 1e-3, 10.0, log=True),
            degree=trial.suggest_int("degree", 2, 5) if kernel == "polynomial" else 3,
            coef0=trial.suggest_float("coef0", 0.0, 3.0) if kernel == "polynomial" else 1.0,
        )

        def rows_value(step: int) -> float:
            rows = RIDGE_ROWS_PER_STEP * step
            model.fit(x_train[:rows], y_train[:rows])
            return _mse(model, x_valid, y_valid)

        return run_curve(trial, rows_value, RIDGE_STEPS)

    return objective
