"""Plots of VPBOSampler's diagnostics (``record_proposals=True``), like ``optuna.visualization``:
plotly figures here, matplotlib ``Axes`` in :mod:`optuna_vpbo.visualization.matplotlib`.

plotly and matplotlib are optional (``pip install 'optuna-vpbo[plot]'``): each is imported when a
plot is drawn, with an ImportError that says what to install."""

from optuna_vpbo.visualization import matplotlib
from optuna_vpbo.visualization._plotly import plot_lengthscales, plot_value_proposals

__all__ = ["matplotlib", "plot_lengthscales", "plot_value_proposals"]
