"""matplotlib variants of :mod:`optuna_vpbo.visualization`, each returning an ``Axes`` like
``optuna.visualization.matplotlib``."""

from __future__ import annotations

from typing import Any

from optuna.study import Study

from optuna_vpbo.visualization._history import (
    DEFAULT_MAX_COMBINATIONS,
    import_optional,
    lengthscale_history,
    value_proposal_history,
)

PLOT_EXTRA_HINT = "pip install matplotlib"


def _new_axes() -> Any:
    plt = import_optional("matplotlib.pyplot", "optuna_vpbo.visualization.matplotlib", PLOT_EXTRA_HINT)
    _, axes = plt.subplots(figsize=(9, 5))
    return axes


def plot_value_proposals(study: Study, max_combinations: int = DEFAULT_MAX_COMBINATIONS) -> Any:
    """Matplotlib version of :func:`optuna_vpbo.visualization.plot_value_proposals`."""
    history = value_proposal_history(study, max_combinations)
    axes = _new_axes()
    for label, points in history.series.items():
        axes.scatter([n for n, _ in points], [v for _, v in points], s=18, alpha=0.7, label=label)
    axes.plot(
        [n for n, _ in history.chosen], [v for _, v in history.chosen], "k*-", linewidth=0.8, markersize=9, label="chosen"
    )
    axes.set_title("Value proposals of the categorical combinations")
    axes.set_xlabel("Trial")
    axes.set_ylabel(f"{history.acquisition} (value proposal)")
    axes.legend(title="combination", fontsize="small", loc="upper left", bbox_to_anchor=(1.01, 1.0))
    return axes


def plot_lengthscales(study: Study, objective: int = 0) -> Any:
    """Matplotlib version of :func:`optuna_vpbo.visualization.plot_lengthscales`."""
    history = lengthscale_history(study, objective)
    axes = _new_axes()
    for name, points in history.items():
        axes.plot([n for n, _ in points], [v for _, v in points], "o-", markersize=3, drawstyle="steps-post", label=name)
    axes.set_yscale("log")
    axes.set_title("Fitted lengthscales (shorter: more relevant)")
    axes.set_xlabel("Trial")
    axes.set_ylabel("lengthscale (parameter range = 1)")
    axes.legend(title="parameter", fontsize="small", loc="upper left", bbox_to_anchor=(1.01, 1.0))
    return axes
