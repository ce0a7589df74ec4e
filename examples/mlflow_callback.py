"""VPBOSampler with optuna-integration's MLflowCallback: every trial becomes an MLflow run.

A conditional scikit-learn space on the bundled wine data set (178 samples, 13 features, 3
classes): the classifier (k nearest neighbours, logistic regression or an RBF support vector
machine), then that classifier's own parameters, scored by 3-fold cross-validated accuracy. The
callback logs each trial's parameters, accuracy and tags (its state, distributions and user
attributes) as a run of the MLflow experiment named after the study. Both stores are SQLite files
in --folder: MLflow's (mlflow.db; MLflow 3 refuses a plain ./mlruns file store unless
MLFLOW_ALLOW_FILE_STORE=true) and the study's (optuna.db). About 15 seconds at the default 30 trials.

Install: ``pip install optuna-integration mlflow scikit-learn``.

Run: ``python examples/mlflow_callback.py [--trials N] [--seed S] [--folder DIR]`` (default
./vpbo-mlflow), then ``mlflow ui --backend-store-uri sqlite:///DIR/mlflow.db``.
"""

from __future__ import annotations

import argparse
from collections import Counter
from pathlib import Path

import mlflow
import optuna
from optuna_integration import MLflowCallback
from sklearn.datasets import load_wine
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import cross_val_score
from sklearn.neighbors import KNeighborsClassifier
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.svm import SVC

from optuna_vpbo import VPBOSampler

STUDY_NAME = "vpbo-mlflow"


def objective(trial: optuna.Trial) -> float:
    x, y = load_wine(return_X_y=True)
    classifier = trial.suggest_categorical("classifier", ["knn", "logreg", "svc"])
    if classifier == "knn":
        model = KNeighborsClassifier(
            n_neighbors=trial.suggest_int("n_neighbors", 1, 30),
            weights=trial.suggest_categorical("weights", ["uniform", "distance"]),
        )
    elif classifier == "logreg":
        model = LogisticRegression(C=trial.suggest_float("logreg_C", 1e-4, 1e2, log=True), max_iter=500)
    else:
        model = SVC(C=trial.suggest_float("svc_C", 1e-3, 1e3, log=True), gamma=trial.suggest_float("gamma", 1e-4, 1.0, log=True))
    return float(cross_val_score(make_pipeline(StandardScaler(), model), x, y, cv=3).mean())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=30)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--folder", default="vpbo-mlflow")
    args = parser.parse_args()
    folder = Path(args.folder).resolve()
    folder.mkdir(parents=True, exist_ok=True)
    tracking_uri = f"sqlite:///{folder / 'mlflow.db'}"

    # The experiment's artifacts in the folder too (by default MLflow puts them under the current one).
    mlflow.set_tracking_uri(tracking_uri)
    if mlflow.get_experiment_by_name(STUDY_NAME) is None:
        mlflow.create_experiment(STUDY_NAME, artifact_location=(folder / "artifacts").as_uri())

    optuna.logging.set_verbosity(optuna.logging.WARNING)
    study = optuna.create_study(
        study_name=STUDY_NAME,
        storage=f"sqlite:///{folder / 'optuna.db'}",
        direction="maximize",
        # record_proposals: each trial's user attribute "vpbo" (an MLflow tag too) says which phase chose it.
        sampler=VPBOSampler(seed=args.seed, record_proposals=True),
        load_if_exists=True,
    )
    callback = MLflowCallback(tracking_uri=tracking_uri, metric_name="accuracy")
    study.optimize(objective, n_trials=args.trials, callbacks=[callback])

    runs = mlflow.search_runs(experiment_names=[STUDY_NAME], output_format="list")
    phases = Counter(t.user_attrs.get("vpbo", {}).get("phase", "none") for t in study.trials)
    print(
        f"mlflow: {len(runs)} runs in experiment {STUDY_NAME} for {len(study.trials)} trials; "
        f"best accuracy {study.best_value:.4f}"
    )
    print(f"trials by phase: {dict(sorted(phases.items()))}")
    print(f"best params {study.best_params}")
    print(f"look at the runs: mlflow ui --backend-store-uri {tracking_uri}")


if __name__ == "__main__":
    main()
