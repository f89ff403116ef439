"""Event-loop lag: how late a fixed-interval sleep wakes up, as a bounded window of samples.

Anything that blocks the loop (CPU work not moved to a thread, a synchronous call) delays every
interaction acknowledgement and the gateway heartbeat by the same amount; this makes it visible.
`LoopLag.start()` runs the probe as a background task (the bot starts it in `setup_hook`);
`snapshot()` gives p50/p99/max for `/stats`. A wake-up later than `warn_ms` logs a WARNING.
The clock and sleep are injectable, so the arithmetic is testable without waiting.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections import deque
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from retrieval.telemetry import percentile

log = logging.getLogger(__name__)

INTERVAL = 0.1  # seconds between probes
WINDOW = 3000  # samples kept: 5 minutes at 100 ms
WARN_MS = 500.0


@dataclass(frozen=True, slots=True)
class LagStats:
    """Event-loop lag over the kept window, in milliseconds (None before the first sample)."""

    samples: int
    p50_ms: float | None
    p99_ms: float | None
    max_ms: float | None


class LoopLag:
    """Sleep `interval` seconds in a loop and record how much later than asked it woke."""

    def __init__(
        self,
        *,
        interval: float = INTERVAL,
        window: int = WINDOW,
        warn_ms: float = WARN_MS,
        clock: Callable[[], float] = time.perf_counter,
        sleep: Callable[[float], Awaitable[object]] = asyncio.sleep,
    ) -> None:
        if interval <= 0 or window < 1:
            raise ValueError("loop lag needs interval > 0 and window >= 1")
        self.interval = interval
        self.warn_ms = warn_ms
        self._clock = clock
        self._sleep = sleep
        self._samples: deque[float] = deque(maxlen=window)
        self.warnings = 0
        self._task: asyncio.Task[None] | None = None

    def record(self, lag_ms: float) -> None:
        """Keep one sample (negative lags, from coarse clocks, count as 0)."""
        lag_ms = max(0.0, lag_ms)
        self._samples.append(lag_ms)
        if lag_ms > self.warn_ms:
            self.warnings += 1
            log.warning(
                "event loop blocked: a %.0f ms sleep woke %.0f ms late (threshold %.0f ms)",
                self.interval * 1000,
                lag_ms,
                self.warn_ms,
            )

    async def probe(self) -> float:
        """One sleep; records and returns its lag in milliseconds."""
        before = self._clock()
        await self._sleep(self.interval)
        lag_ms = (self._clock() - before - self.interval) * 1000
        self.record(lag_ms)
        return max(0.0, lag_ms)

    async def run(self, probes: int | None = None) -> None:
        """Probe forever (or `probes` times, for tests)."""
        count = 0
        while probes is None or count < probes:
            await self.probe()
            count += 1

    def start(self) -> asyncio.Task[None]:
        """Start the background probe on the running loop (idempotent)."""
        if self._task is None or self._task.done():
            self._task = asyncio.get_running_loop().create_task(
                self.run(), name="paperbot-loop-lag"
            )
        return self._task

    async def stop(self) -> None:
        task, self._task = self._task, None
        if task is not None and not task.done():
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task

    @property
    def running(self) -> bool:
        return self._task is not None and not self._task.done()

    def snapshot(self) -> LagStats:
        samples = list(self._samples)
        if not samples:
            return LagStats(0, None, None, None)
        return LagStats(
            samples=len(samples),
            p50_ms=percentile(samples, 0.5),
            p99_ms=percentile(samples, 0.99),
            max_ms=max(samples),
        )
