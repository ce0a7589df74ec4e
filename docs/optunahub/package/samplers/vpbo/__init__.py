"""OptunaHub package of VPBOSampler: the sampler itself comes from the PyPI package optuna-vpbo
(see requirements.txt), which holds the compiled core."""

from optuna_vpbo import VPBOSampler, VPBOSettings

__all__ = ["VPBOSampler", "VPBOSettings"]
