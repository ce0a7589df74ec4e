"""optuna-vpbo: Bayesian Optimisation using Value Proposals as an Optuna sampler."""

from optuna_vpbo.sampler import VPBOSampler

__version__ = "0.1.0"
__all__ = ["VPBOSampler", "__version__"]
