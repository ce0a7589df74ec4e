"""``optuna_vpbo.visualization``: what the figures contain, from diagnostics written into a study
(exact values) and from a real VPBOSampler run."""

from __future__ import annotations

import sys
from typing import Any

import optuna
import pytest

from optuna_vpbo import VPBOSampler
from optuna_vpbo.visualization import matplotlib as vpbo_matplotlib
from optuna_vpbo.visualization import plot_lengthscales, plot_value_proposals

pytest.importorskip("plotly", reason="plotly is in the `test` extra")

# Three trials' diagnostics: a random one, then value proposals; "a" is chosen twice.
DIAGNOSTICS: list[dict[str, Any]] = [
    {"phase": "random"},
    {
        "phase": "proposals",
        "top_proposals": [
            {"params": {"c": "a"}, "acquisition": -1.0},
            {"params": {"c": "b"}, "acquisition": -2.0},
            {"params": {"c": "z"}, "acquisition": -3.0},
        ],
        "lambda": 0.5,
        "noise": 1e-4,
        "lengthscales": {"x": 0.2, "y": 2.0},
    },
    {
        "phase": "proposals",
        "top_proposals": [
            {"params": {"c": "a"}, "acquisition": -4.0},
            {"params": {"c": "b"}, "acquisition": -5.0},
        ],
        "lambda": 0.5,
        "noise": 1e-4,
        "lengthscales": {"x": 0.3, "y": 1.5},
    },
]


def study_with(diagnostics: list[dict[str, Any]]) -> optuna.Study:
    study = optuna.create_study()
    for record in diagnostics:
        trial = study.ask()
        trial.set_user_attr("vpbo", record)
        study.tell(trial, 0.0)
    return study


def traces(figure: Any) -> dict[str, tuple[list[float], list[float]]]:  # a plotly Figure (untyped)
    return {t.name: (list(t.x), list(t.y)) for t in figure.data}


def test_value_proposals_one_trace_per_combination_and_the_chosen() -> None:
    figure = plot_value_proposals(study_with(DIAGNOSTICS))
    assert traces(figure) == {
        "c=a": ([1, 2], [-1.0, -4.0]),
        "c=b": ([1, 2], [-2.0, -5.0]),
        "c=z": ([1], [-3.0]),
        "chosen": ([1, 2], [-1.0, -4.0]),
    }
    assert list(figure.data[-1].text) == ["c=a", "c=a"]
    assert figure.layout.yaxis.title.text == "log EI (value proposal)"


def test_value_proposals_merge_the_rarest_combinations() -> None:
    figure = plot_value_proposals(study_with(DIAGNOSTICS), max_combinations=1)
    assert traces(figure) == {
        "c=a": ([1, 2], [-1.0, -4.0]),
        "other combinations": ([1, 1, 2], [-2.0, -3.0, -5.0]),
        "chosen": ([1, 2], [-1.0, -4.0]),
    }


def test_lengthscales_per_parameter_on_a_log_axis() -> None:
    figure = plot_lengthscales(study_with(DIAGNOSTICS))
    assert traces(figure) == {"x": ([1, 2], [0.2, 0.3]), "y": ([1, 2], [2.0, 1.5])}
    assert figure.layout.yaxis.type == "log"


def test_lengthscales_of_the_chosen_objective_with_log_ehvi() -> None:
    record = {
        "phase": "proposals",
        "acquisition": "log EHVI",
        "top_proposals": [{"params": {"c": "a"}, "acquisition": 0.1}],
        "objectives": [{"lengthscales": {"x": 0.1}}, {"lengthscales": {"x": 0.9}}],
    }
    study = study_with([record])
    assert traces(plot_lengthscales(study, objective=1)) == {"x": ([0], [0.9])}
    assert plot_value_proposals(study).layout.yaxis.title.text == "log EHVI (value proposal)"
    with pytest.raises(ValueError, match="objective 2 out of range"):
        plot_lengthscales(study, objective=2)


def test_matplotlib_variants_draw_the_same_points() -> None:
    pytest.importorskip("matplotlib")
    import matplotlib

    matplotlib.use("Agg")
    study = study_with(DIAGNOSTICS)
    axes = vpbo_matplotlib.plot_value_proposals(study)
    scatter = {c.get_label(): c.get_offsets().tolist() for c in axes.collections}
    assert scatter == {"c=a": [[1, -1], [2, -4]], "c=b": [[1, -2], [2, -5]], "c=z": [[1, -3]]}
    (chosen,) = axes.get_lines()
    assert chosen.get_label() == "chosen" and chosen.get_ydata().tolist() == [-1.0, -4.0]
    axes = vpbo_matplotlib.plot_lengthscales(study)
    assert {line.get_label(): line.get_ydata().tolist() for line in axes.get_lines()} == {
        "x": [0.2, 0.3],
        "y": [2.0, 1.5],
    }
    assert axes.get_yscale() == "log"


def test_without_diagnostics_the_error_says_what_to_do() -> None:
    study = study_with([{"phase": "random"}])
    with pytest.raises(ValueError, match=r"record_proposals=True"):
        plot_value_proposals(study)
    with pytest.raises(ValueError, match=r"record_proposals=True"):
        vpbo_matplotlib.plot_lengthscales(study)


def test_without_plotly_the_error_says_what_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "plotly.graph_objects", None)
    with pytest.raises(ImportError, match=r"optuna-vpbo\[plot\]"):
        plot_value_proposals(study_with(DIAGNOSTICS))


def test_value_proposals_of_a_real_study_follow_the_trials() -> None:
    def objective(trial: optuna.Trial) -> float:
        kind = trial.suggest_categorical("kind", ["a", "b", "c"])
        return (trial.suggest_float("x", 0.0, 1.0) - 0.3) ** 2 + {"a": 0.0, "b": 0.5, "c": 1.0}[kind]

    optuna.logging.set_verbosity(optuna.logging.WARNING)
    study = optuna.create_study(sampler=VPBOSampler(seed=1, n_startup_trials=6, record_proposals=True))
    study.optimize(objective, n_trials=10)
    chosen = traces(plot_value_proposals(study))["chosen"]
    proposals = [t for t in study.trials if t.user_attrs["vpbo"]["phase"] == "proposals"]
    assert chosen == (
        [t.number for t in proposals],
        [t.user_attrs["vpbo"]["top_proposals"][0]["acquisition"] for t in proposals],
    )
    assert set(traces(plot_lengthscales(study))) == {"x"}
