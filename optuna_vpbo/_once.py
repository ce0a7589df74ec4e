"""Which events were already reported: a failure that repeats every trial is logged or warned
once per key (a trial, a set of values), not once per call."""

from __future__ import annotations

import collections
import threading
from collections.abc import Hashable

# Keys remembered; the oldest are forgotten beyond it (a long process must not grow without bound).
CAPACITY = 4096


class FirstTime:
    """``first(key)``: True the first time ``key`` is seen (among the last ``capacity`` keys)."""

    def __init__(self, capacity: int = CAPACITY) -> None:
        self._seen: collections.OrderedDict[Hashable, None] = collections.OrderedDict()
        self._capacity = capacity
        self._lock = threading.Lock()

    def first(self, key: Hashable) -> bool:
        with self._lock:
            if key in self._seen:
                return False
            self._seen[key] = None
            if len(self._seen) > self._capacity:
                self._seen.popitem(last=False)
            return True
