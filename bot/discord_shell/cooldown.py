"""A per-user sliding-window rate limit for questions, with an injectable clock (pure)."""

from __future__ import annotations

import math
import time
from collections import deque
from collections.abc import Callable


class Cooldown:
    """At most `rate` questions per `per` seconds per user.

    `hit(user)` records a question and returns None, or returns the seconds to wait (and
    records nothing) when the user is over the limit.
    """

    def __init__(
        self, rate: int, per: float, *, clock: Callable[[], float] = time.monotonic
    ) -> None:
        if rate < 1 or per <= 0:
            raise ValueError("cooldown needs rate >= 1 and per > 0")
        self.rate = rate
        self.per = per
        self._clock = clock
        self._hits: dict[int, deque[float]] = {}

    def _window(self, user_id: int, now: float) -> deque[float]:
        hits = self._hits.setdefault(user_id, deque())
        while hits and hits[0] <= now - self.per:
            hits.popleft()
        return hits

    def retry_after(self, user_id: int) -> float | None:
        """Seconds until `user_id` may ask again, or None if they may ask now (records nothing)."""
        now = self._clock()
        hits = self._window(user_id, now)
        if len(hits) < self.rate:
            return None
        return max(hits[0] + self.per - now, 0.0)

    def hit(self, user_id: int) -> float | None:
        """Record a question; return None if allowed, else the seconds to wait."""
        wait = self.retry_after(user_id)
        if wait is None:
            self._hits[user_id].append(self._clock())
            self._prune()
        return wait

    def _prune(self) -> None:
        if len(self._hits) < 10_000:
            return
        now = self._clock()
        for user_id in [
            uid for uid, hits in self._hits.items() if not hits or hits[-1] <= now - self.per
        ]:
            del self._hits[user_id]


def wait_text(seconds: float) -> str:
    """'try again in N s' with N rounded up, never 0."""
    return f"You're asking quickly — try again in {max(1, math.ceil(seconds))} s."
