"""optuna-vpbo: Bayesian Optimisation using Value Proposals as an Optuna sampler."""

from optuna_vpbo._core import INSTRUCTION_SET
from optuna_vpbo._settings import VPBOSettings
from optuna_vpbo.sampler import VPBOSampler

__version__ = "0.1.0"
# INSTRUCTION_SET: which build of the native core this process runs ("avx512", "avx2", "baseline"
# or "native"; docs/install.md), for bug reports and for benchmark records.
__all__ = ["INSTRUCTION_SET", "VPBOSampler", "VPBOSettings", "__version__"]
