"""Wall-clock guards for the linear-time tests: the best of a few runs.

A single timing on a shared 2-core CI machine can be stretched several times
over by something the test does not control: a garbage collection, a kernel
warm-up thread left by an earlier test holding the GIL, a neighbour process.
Catastrophic backtracking or a quadratic loop is slow on *every* run, so the
fastest of a few runs keeps the guard's power and loses the noise.
"""

from __future__ import annotations

import time
from collections.abc import Callable

REPEATS = 3


def best_seconds(call: Callable[..., object], *args: object) -> float:
    """The shortest wall-clock time of REPEATS calls of `call(*args)`."""
    best = float("inf")
    for _ in range(REPEATS):
        started = time.perf_counter()
        call(*args)
        best = min(best, time.perf_counter() - started)
    return best
