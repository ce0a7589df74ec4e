"""Two objectives with VPBOSampler: accuracy against model size of a random forest.

A random forest on scikit-learn's bundled digits data set (1797 images, 10 classes) maximises its
validation accuracy and minimises its size (the total number of tree nodes), over categorical
(split criterion, features per split, bootstrap) and numeric (trees, depth, leaf size) choices.
The result is a Pareto front of trade-offs rather than one best trial; VPBOSampler
models each objective with its own GP and proposes by log expected hypervolume improvement
(see the README). About 25 seconds at the default 100 trials on 2 cores shared with other jobs.

Run: ``python examples/two_objectives.py [--trials N] [--seed S]``.
"""

from __future__ import annotations

import argparse

import optuna
from sklearn.datasets import load_digits
from sklearn.ensemble import RandomForestClassifier
from sklearn.model_selection import train_test_split

from optuna_vpbo import VPBOSampler

X, Y = load_digits(return_X_y=True)
X_TRAIN, X_VALID, Y_TRAIN, Y_VALID = train_test_split(X, Y, test_size=0.3, stratify=Y, random_state=0)


def objective(trial: optuna.Trial) -> tuple[float, int]:
    max_features = trial.suggest_categorical("max_features", ["sqrt", "log2", "all"])
    forest = RandomForestClassifier(
        criterion=trial.suggest_categorical("criterion", ["gini", "entropy", "log_loss"]),
        max_features=None if max_features == "all" else max_features,
        bootstrap=trial.suggest_categorical("bootstrap", [True, False]),
        n_estimators=trial.suggest_int("n_estimators", 2, 100, log=True),
        max_depth=trial.suggest_int("max_depth", 2, 20),
        min_samples_leaf=trial.suggest_int("min_samples_leaf", 1, 20, log=True),
        random_state=0,
        n_jobs=2,
    )
    forest.fit(X_TRAIN, Y_TRAIN)
    n_nodes = sum(tree.tree_.node_count for tree in forest.estimators_)
    return float(forest.score(X_VALID, Y_VALID)), n_nodes


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=100)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()

    optuna.logging.set_verbosity(optuna.logging.WARNING)
    study = optuna.create_study(directions=["maximize", "minimize"], sampler=VPBOSampler(seed=args.seed))
    study.set_metric_names(["accuracy", "nodes"])
    study.optimize(objective, n_trials=args.trials)

    front = sorted(study.best_trials, key=lambda t: t.values[1])
    print(f"Pareto front: {len(front)} of {len(study.trials)} trials (accuracy, nodes)")
    for trial in front:
        print(f"  #{trial.number:3d}  accuracy {trial.values[0]:.4f}  nodes {trial.values[1]:6.0f}  {trial.params}")


if __name__ == "__main__":
    main()
