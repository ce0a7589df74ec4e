"""A constrained study with VPBOSampler: the most precise tumour classifier that misses few cancers.

A gradient-boosted tree classifier (scikit-learn's GradientBoostingClassifier) on the bundled
breast cancer data set (569 tumours, 30 features in three groups: mean, standard error and worst
value of 10 measurements) maximises its cross-validated precision for malignant tumours, subject
to a recall of at least 95% (at most 5% of the cancers missed). The constraint is given with
Optuna's ``trial.set_constraint(name, value)``: a trial is feasible when every value is <= 0,
and ``study.best_trial`` is the best feasible trial. VPBOSampler models each constraint with its
own GP and favours points likely to be feasible. Categorical choices (feature group,
features per split, loss) mix with numeric ones (learning rate, trees, depth, subsampling and the
decision threshold). About a minute at the default 100 trials on 2 cores.

Run: ``python examples/constrained.py [--trials N] [--seed S]``.
"""

from __future__ import annotations

import argparse

import numpy as np
import optuna
from sklearn.datasets import load_breast_cancer
from sklearn.ensemble import GradientBoostingClassifier
from sklearn.metrics import precision_score, recall_score
from sklearn.model_selection import StratifiedKFold, cross_val_predict

from optuna_vpbo import VPBOSampler

MIN_RECALL = 0.95
DATA = load_breast_cancer()
MALIGNANT = 1 - DATA.target  # the data set labels malignant tumours 0; here they are the positives
FEATURE_GROUPS = {
    "all": np.arange(30),
    "mean": np.arange(0, 10),
    "mean+worst": np.r_[0:10, 20:30],
    "worst": np.arange(20, 30),
}


def objective(trial: optuna.Trial) -> float:
    features = trial.suggest_categorical("features", list(FEATURE_GROUPS))
    max_features = trial.suggest_categorical("max_features", ["sqrt", "log2", "all"])
    model = GradientBoostingClassifier(
        loss=trial.suggest_categorical("loss", ["log_loss", "exponential"]),
        max_features=None if max_features == "all" else max_features,
        learning_rate=trial.suggest_float("learning_rate", 1e-2, 0.5, log=True),
        n_estimators=trial.suggest_int("n_estimators", 10, 150, log=True),
        max_depth=trial.suggest_int("max_depth", 1, 5),
        subsample=trial.suggest_float("subsample", 0.5, 1.0),
        random_state=0,
    )
    threshold = trial.suggest_float("threshold", 0.05, 0.95)
    folds = StratifiedKFold(n_splits=3, shuffle=True, random_state=0)
    x = DATA.data[:, FEATURE_GROUPS[features]]
    probabilities = cross_val_predict(model, x, MALIGNANT, cv=folds, method="predict_proba")[:, 1]
    predicted = probabilities >= threshold
    recall = recall_score(MALIGNANT, predicted)
    trial.set_user_attr("recall", float(recall))
    trial.set_constraint("recall", MIN_RECALL - recall)  # feasible when recall >= MIN_RECALL
    return float(precision_score(MALIGNANT, predicted, zero_division=0.0))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=100)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()

    optuna.logging.set_verbosity(optuna.logging.WARNING)
    study = optuna.create_study(direction="maximize", sampler=VPBOSampler(seed=args.seed))
    study.optimize(objective, n_trials=args.trials)

    feasible = [t for t in study.trials if t.constraints and all(c <= 0 for c in t.constraints.values())]
    print(f"{len(feasible)} of {len(study.trials)} trials reach a recall of {MIN_RECALL:.0%}")
    if feasible:
        best = study.best_trial
        print(f"best precision {best.value:.4f} at recall {best.user_attrs['recall']:.4f} (trial #{best.number})")
        print(f"best params {best.params}")
    else:
        print("no feasible trial yet: run more trials")


if __name__ == "__main__":
    main()
