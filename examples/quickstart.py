"""Quickstart: a mixed-variable study with VPBOSampler, stored in SQLite.

Func2C (CoCaBO's synthetic benchmark): two categorical variables pick which of three 2-D test
functions are summed, two continuous variables are the point; the minimum is -0.206326 at
h1 = h2 = 1. Run: ``python examples/quickstart.py [--trials N] [--storage URL] [--fresh]``.

The study is stored in ``vpbo-quickstart.db`` in the current folder (the script prints its path)
unless ``--storage`` names another Optuna storage. A second run resumes the same study, says how
many trials it already has and adds ``--trials`` more; ``--fresh`` deletes the stored study first.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
import optuna
import sqlalchemy

from optuna_vpbo import VPBOSampler

# The minimum: the scaled six-hump camel's (-1.0316284534898774 / 10) twice.
FUNC2C_OPTIMUM = 2.0 * -1.0316284534898774 / 10.0
STUDY_NAME = "vpbo-quickstart"
DEFAULT_DATABASE = "vpbo-quickstart.db"  # in the current folder


def rosenbrock(z: np.ndarray) -> float:
    z1, z2 = z
    return float((100.0 * (z2 - z1**2) ** 2 + (z1 - 1.0) ** 2) / 300.0)


def six_hump_camel(z: np.ndarray) -> float:
    z1, z2 = z
    return float(((4.0 - 2.1 * z1**2 + z1**4 / 3.0) * z1**2 + z1 * z2 + (-4.0 + 4.0 * z2**2) * z2**2) / 10.0)


def beale(z: np.ndarray) -> float:
    z1, z2 = z
    return float(((1.5 - z1 + z1 * z2) ** 2 + (2.25 - z1 + z1 * z2**2) ** 2 + (2.625 - z1 + z1 * z2**3) ** 2) / 50.0)


# The base function each level of h1 and of h2 adds.
H1_TERMS = (rosenbrock, six_hump_camel, beale)
H2_TERMS = (rosenbrock, six_hump_camel, beale, beale, beale)


def objective(trial: optuna.Trial) -> float:
    h1 = trial.suggest_categorical("h1", [0, 1, 2])
    h2 = trial.suggest_categorical("h2", [0, 1, 2, 3, 4])
    x = np.array([trial.suggest_float("x1", -1.0, 1.0), trial.suggest_float("x2", -1.0, 1.0)])
    z = 2.0 * x  # the base functions are evaluated at z = 2 x
    return H1_TERMS[h1](z) + H2_TERMS[h2](z)


def shown(storage: str) -> str:
    """The storage URL as printed: with its password hidden."""
    try:
        return sqlalchemy.engine.make_url(storage).render_as_string(hide_password=True)
    except sqlalchemy.exc.ArgumentError:
        return storage


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=100)
    parser.add_argument("--storage", help=f"an Optuna storage URL (default: {DEFAULT_DATABASE} in the current folder)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--fresh", action="store_true", help="delete the stored study first rather than add trials to it")
    args = parser.parse_args()

    storage = args.storage or f"sqlite:///{Path(DEFAULT_DATABASE).resolve()}"
    print(f"study {STUDY_NAME!r} in {Path(DEFAULT_DATABASE).resolve() if args.storage is None else shown(storage)}")
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    if args.fresh and STUDY_NAME in optuna.get_all_study_names(storage=storage):
        optuna.delete_study(study_name=STUDY_NAME, storage=storage)
        print("deleted the stored study (--fresh)")
    study = optuna.create_study(
        study_name=STUDY_NAME,
        storage=storage,
        sampler=VPBOSampler(seed=args.seed),  # the one line that changes
        load_if_exists=True,
    )
    if n_stored := len(study.trials):
        print(f"resuming the stored study: {n_stored} trials already, adding {args.trials} (--fresh starts over)")
    study.optimize(objective, n_trials=args.trials, show_progress_bar=True)

    best = study.best_trial
    print(f"best value {study.best_value:.6f} (optimum {FUNC2C_OPTIMUM:.6f}, regret {study.best_value - FUNC2C_OPTIMUM:.2e})")
    print(f"best params {best.params} (trial #{best.number} of {len(study.trials)})")
    print(f"look at the study: pip install optuna-dashboard && optuna-dashboard {shown(storage)}")


if __name__ == "__main__":
    main()
