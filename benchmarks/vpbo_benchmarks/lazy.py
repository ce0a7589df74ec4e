"""The one place where the lab defers imports, and why.

A few modules of the lab import heavy libraries at their top: scikit-learn, XGBoost and mlxtend
(the machine-learning problems, the suite's real tasks, the trial-states tasks, the numeric
group's tasks and the fresh pruning set's tasks), SMAC3 with dask and ConfigSpace, and the
``peers`` extra (cmaes; Ax with BoTorch and PyTorch). Importing them costs seconds, which
``vpbo-benchmark list``, ``table``, ``docs`` and the reports never need, and the peers may not be
installed at all. So the registries name those modules instead of importing
them: :func:`deferred` gives a callable that imports the module on its first call. Nothing else
in the lab imports inside a function, and none of these modules imports the module that names
it (no cycle hides behind a deferred import).
"""

from __future__ import annotations

import functools
import importlib
from collections.abc import Callable, Mapping
from typing import Any

# The modules reached only through deferred(), and what makes each heavy.
HEAVY_MODULES: Mapping[str, str] = {
    "vpbo_benchmarks.ml_problems": "scikit-learn, XGBoost and mlxtend",
    "vpbo_benchmarks.suite_real_tasks": "scikit-learn",
    "vpbo_benchmarks.trial_state_tasks": "scikit-learn, XGBoost and optuna-integration",
    "vpbo_benchmarks.numeric_tasks": "scikit-learn",
    "vpbo_benchmarks.pruning_models": "scikit-learn",
    "vpbo_benchmarks.smac_sampler": "SMAC3, with dask and ConfigSpace",
    "vpbo_benchmarks.peer_catcmawm": "cmaes (the peers extra)",
    "vpbo_benchmarks.peer_ax": "Ax, BoTorch and PyTorch (the peers extra)",
}


def deferred(module: str, name: str, /, **keywords: Any) -> Callable[..., Any]:
    """``module.name(*args, **keywords, **more)``, the module imported at the first call; picklable
    (a ``functools.partial`` of module-level names)."""
    if module not in HEAVY_MODULES:
        raise ValueError(f"{module} is not one of the lab's heavy modules ({', '.join(HEAVY_MODULES)})")
    return functools.partial(_call, module, name, **keywords)


def _call(module: str, name: str, /, *args: Any, **keywords: Any) -> Any:
    return getattr(importlib.import_module(module), name)(*args, **keywords)
