"""Freeing a replaced corpus snapshot a slice at a time, off the event loop.

A snapshot can hold hundreds of thousands of small objects (e.g. the numbers in its ids, for
suggesting real ones). Dropping the last reference frees them in one C call that holds the GIL,
which stalled the event loop for over half a second at 100k papers. A replaced snapshot is
handed here instead: after a grace period, if nothing else refers to it any more (a question in
flight holds its own reference), its big containers are emptied a slice at a time in a worker
thread, so the loop gets the GIL between slices. If something still refers to it, it is left
to be freed as usual.
"""

from __future__ import annotations

import asyncio
import sys
from typing import Any

GRACE_SECONDS = 5.0
_SLICE = 4096
# References to the snapshot inside `_dismantle` once it took it out of the box: its local
# name and getrefcount's own argument.
_ONLY_HERE = 2


async def release(box: list[Any], keep: Any) -> None:
    """Dismantle the snapshot in `box` (the caller holds no other reference) after the grace
    period; containers that `keep`, the snapshot now in use, shares with it are left alone."""
    await asyncio.sleep(GRACE_SECONDS)
    await asyncio.to_thread(_dismantle, box, keep)


def _dismantle(box: list[Any], keep: Any) -> None:
    snapshot = box.pop()
    if sys.getrefcount(snapshot) > _ONLY_HERE:
        return  # still in use somewhere: freed the ordinary way when that use ends
    kept = {id(value) for value in _containers(keep)}
    for container in _containers(snapshot):
        if id(container) in kept:
            continue
        if isinstance(container, list):
            while container:
                del container[-_SLICE:]
        elif isinstance(container, dict):
            while container:
                for _ in range(min(_SLICE, len(container))):
                    container.popitem()


def _containers(snapshot: Any) -> list[Any]:
    """The snapshot's per-paper lists and dicts."""
    return [value for value in vars(snapshot).values() if isinstance(value, list | dict)]
