"""optuna-vpbo: Bayesian Optimisation using Value Proposals as an Optuna sampler."""

from optuna_vpbo._settings import VPBOSettings
from optuna_vpbo.sampler import VPBOSampler

__version__ = "0.1.0"
__all__ = ["VPBOSampler", "VPBOSettings", "__version__"]
