"""How long a test waits for something that should happen, before calling it a hang.

A test never asserts how fast something is (benchmarks measure that, docs/testing.md): a wait
in a test is only a safety net that turns a hang into a failure. It is long, so that a machine
busy with other work (two cores shared by several suites) never reaches it; a passing test
returns as soon as what it waits for has happened.
"""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Awaitable, Callable

HANG_SECONDS = 120.0


async def until(condition: Callable[[], bool | Awaitable[bool]], *, poll: float = 0.01) -> None:
    """Return once `condition()` is true (checked every `poll` seconds); fail with TimeoutError
    after HANG_SECONDS."""

    async def check() -> None:
        while True:
            value = condition()
            if inspect.isawaitable(value):
                value = await value
            if value:
                return
            await asyncio.sleep(poll)

    await asyncio.wait_for(check(), HANG_SECONDS)
