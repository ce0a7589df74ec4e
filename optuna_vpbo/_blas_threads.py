"""One BLAS thread while a trial is sampled, taken once per process.

A multi-threaded OpenBLAS spinning inside SciPy's L-BFGS-B slowed sampling several-fold on a busy
2-core machine (docs/design.md), so sampling runs with one BLAS thread. threadpoolctl's limit is
process-wide: taken and restored by each sampler on its own, two samplers in two threads could
interleave (A limits, B limits and saves "1", A restores, B restores "1") and leave BLAS at one
thread for good. Here the first holder in the process sets the limit and the last one restores
the original, under one lock.

The limit stays process-wide: while any trial is sampled, objectives that run BLAS in other
threads of the process (``n_jobs``) get one thread too.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator

import numpy  # noqa: F401  # the BLAS libraries must be loaded before the controller looks for them
import scipy.linalg  # noqa: F401
import threadpoolctl

_CONTROLLER = threadpoolctl.ThreadpoolController()
_LOCK = threading.Lock()
_holders = 0
_limiter: threadpoolctl._ThreadpoolLimiter | None = None


@contextlib.contextmanager
def one_blas_thread() -> Iterator[None]:
    """BLAS limited to one thread inside the block; the limit is the process's while at least
    one block (of any thread) is open, and the original limits come back when the last closes."""
    global _holders, _limiter
    with _LOCK:
        if _holders == 0:
            _limiter = _CONTROLLER.limit(limits=1, user_api="blas")
        _holders += 1
    try:
        yield
    finally:
        with _LOCK:
            _holders -= 1
            if _holders == 0 and _limiter is not None:
                _limiter.restore_original_limits()
                _limiter = None
