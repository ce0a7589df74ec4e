"""plotly figures of VPBOSampler's diagnostics, in the manner of ``optuna.visualization``."""

from __future__ import annotations

from typing import Any

from optuna.study import Study

from optuna_vpbo.visualization._history import (
    DEFAULT_MAX_COMBINATIONS,
    import_optional,
    lengthscale_history,
    value_proposal_history,
)

PLOT_EXTRA_HINT = "pip install plotly (or: pip install 'optuna-vpbo[plot]')"


def _graph_objects() -> Any:
    return import_optional("plotly.graph_objects", "optuna_vpbo.visualization", PLOT_EXTRA_HINT)


def plot_value_proposals(study: Study, max_combinations: int = DEFAULT_MAX_COMBINATIONS) -> Any:
    """Per trial, the value proposal (acquisition value) of each of its top categorical
    combinations, one trace per combination, and the proposal the trial took (stars).

    Needs ``VPBOSampler(record_proposals=True)``. The ``max_combinations`` most often chosen
    combinations get a trace each, the others share one. Returns a ``plotly.graph_objects.Figure``.
    """
    go = _graph_objects()
    history = value_proposal_history(study, max_combinations)
    figure = go.Figure()
    for label, points in history.series.items():
        figure.add_trace(
            go.Scatter(
                x=[n for n, _ in points], y=[v for _, v in points], mode="markers", name=label, opacity=0.7
            )
        )
    figure.add_trace(
        go.Scatter(
            x=[n for n, _ in history.chosen],
            y=[v for _, v in history.chosen],
            mode="lines+markers",
            name="chosen",
            text=history.chosen_labels,
            marker={"symbol": "star", "size": 11, "color": "black"},
            line={"color": "black", "width": 1},
        )
    )
    figure.update_layout(
        title="Value proposals of the categorical combinations",
        xaxis_title="Trial",
        yaxis_title=f"{history.acquisition} (value proposal)",
        legend_title="combination",
    )
    return figure


def plot_lengthscales(study: Study, objective: int = 0) -> Any:
    """The GP's fitted lengthscale of each numeric parameter over the trials (log scale, in units
    of the parameter's range scaled to [0, 1]): the shorter, the more the objective varies along
    that parameter. For several objectives (log EHVI), the GP of ``objective``.

    Needs ``VPBOSampler(record_proposals=True)``. Returns a ``plotly.graph_objects.Figure``.
    """
    go = _graph_objects()
    figure = go.Figure()
    for name, points in lengthscale_history(study, objective).items():
        figure.add_trace(go.Scatter(x=[n for n, _ in points], y=[v for _, v in points], mode="lines+markers", name=name))
    figure.update_layout(
        title="Fitted lengthscales (shorter: more relevant)",
        xaxis_title="Trial",
        yaxis_title="lengthscale (parameter range = 1)",
        yaxis_type="log",
        legend_title="parameter",
    )
    return figure
