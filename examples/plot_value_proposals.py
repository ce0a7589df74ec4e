"""Draw what VPBOSampler decided, trial by trial: the value proposals and the fitted lengthscales.

A Func2C study (as in the quickstart) with ``record_proposals=True``; then
``optuna_vpbo.visualization.plot_value_proposals`` (per trial, the log EI of each of the top
categorical combinations, and the one the trial took) and ``plot_lengthscales`` (the GP's fitted
lengthscale of each numeric parameter), as interactive plotly HTML and as matplotlib PNG files.
A few seconds at the default 60 trials.

Run: ``python examples/plot_value_proposals.py [--trials N] [--seed S] [--out DIR]``
(needs plotly and matplotlib: ``pip install 'optuna-vpbo[plot]'``).
"""

from __future__ import annotations

import argparse
from pathlib import Path

import matplotlib

matplotlib.use("Agg")  # files only, no window

import matplotlib.pyplot as plt
import optuna

from optuna_vpbo import VPBOSampler
from optuna_vpbo.visualization import matplotlib as vpbo_matplotlib
from optuna_vpbo.visualization import plot_lengthscales, plot_value_proposals
from quickstart import objective  # the quickstart's Func2C (this script's folder is on sys.path)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=60)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, default=Path("."), help="folder of the HTML and PNG files")
    args = parser.parse_args()

    optuna.logging.set_verbosity(optuna.logging.WARNING)
    # A short initial design, so that most trials are chosen by value proposals.
    sampler = VPBOSampler(seed=args.seed, n_startup_trials=min(10, args.trials - 1), record_proposals=True)
    study = optuna.create_study(sampler=sampler)
    study.optimize(objective, n_trials=args.trials)

    args.out.mkdir(parents=True, exist_ok=True)
    for name, plotly_plot, matplotlib_plot in [
        ("value_proposals", plot_value_proposals, vpbo_matplotlib.plot_value_proposals),
        ("lengthscales", plot_lengthscales, vpbo_matplotlib.plot_lengthscales),
    ]:
        html = args.out / f"{name}.html"
        plotly_plot(study).write_html(html, include_plotlyjs="cdn")
        png = args.out / f"{name}.png"
        axes = matplotlib_plot(study)
        axes.figure.tight_layout()
        axes.figure.savefig(png, dpi=110)
        plt.close(axes.figure)
        print(f"wrote {html} and {png}")
    print(f"best value {study.best_value:.6f} (trial #{study.best_trial.number} of {len(study.trials)})")


if __name__ == "__main__":
    main()
