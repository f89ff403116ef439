"""Corpus changes from other processes: LISTEN paperbot_corpus on a dedicated connection.

Every transaction that bumps the corpus generation sends `NOTIFY paperbot_corpus, '<n>'` when it
commits (postgres.py). `corpus_generations` turns that into an async iterator of generations
that survives the server going away: it reconnects with backoff, and because PostgreSQL does
not replay notifications sent while nobody listened, it reads the generation after each
(re)connect and polls it now and then, which also notices a connection that died silently.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator
from contextlib import suppress
from typing import TYPE_CHECKING

import asyncpg

from retrieval.stores.postgres_connect import QUICK_SECONDS, connect, is_unavailable

if TYPE_CHECKING:
    from retrieval.stores.postgres_connect import Db

log = logging.getLogger(__name__)

CHANNEL = "paperbot_corpus"
_FIRST_RETRY_SECONDS = 0.5
_MAX_RETRY_SECONDS = 5.0


async def corpus_generations(url: str, where: str, *, poll_seconds: float) -> AsyncIterator[int]:
    """Yield the current corpus generation, then every newer one, until the consumer stops.

    Strictly increasing: a notification older than what a poll already found is dropped.
    Never raises for a server that is away; it logs once per outage and keeps trying.
    """
    last = -1
    pause = _FIRST_RETRY_SECONDS
    outage = False
    while True:
        try:
            connection = await connect(url)
        except (asyncpg.PostgresError, asyncpg.InterfaceError, OSError, TimeoutError) as error:
            if not is_unavailable(error):
                raise
            if not outage:
                log.warning("%s: cannot LISTEN (%s); retrying", where, type(error).__name__)
                outage = True
            await asyncio.sleep(pause)
            pause = min(pause * 2, _MAX_RETRY_SECONDS)
            continue
        inbox = _Inbox()
        connection.add_termination_listener(inbox.terminated)
        try:
            await connection.add_listener(CHANNEL, inbox.notified)
            inbox.queue.put_nowait(await _generation(connection))  # what happened while away
            if outage:
                log.warning("%s: listening again", where)
            outage, pause = False, _FIRST_RETRY_SECONDS
            while True:
                try:
                    item = await asyncio.wait_for(inbox.queue.get(), poll_seconds)
                except TimeoutError:
                    item = await _generation(connection)
                if item is None:
                    break
                if item > last:
                    last = item
                    yield item
        except (asyncpg.PostgresError, asyncpg.InterfaceError, OSError, TimeoutError) as error:
            if not is_unavailable(error):
                raise
        finally:
            # terminate(), not close(): close waits on a server that may be gone.
            connection.terminate()
        if not outage:
            log.warning("%s: lost the LISTEN connection; reconnecting", where)
            outage = True


class _Inbox:
    """What the connection's callbacks report: a generation, or None when it is lost."""

    def __init__(self) -> None:
        self.queue: asyncio.Queue[int | None] = asyncio.Queue()

    def notified(self, _: object, __: int, ___: str, payload: object) -> None:
        with suppress(ValueError):
            self.queue.put_nowait(int(str(payload)))

    def terminated(self, _: object) -> None:
        self.queue.put_nowait(None)


async def _generation(connection: Db) -> int:
    value = await connection.fetchval(
        "SELECT value FROM meta WHERE key = 'generation'", timeout=QUICK_SECONDS
    )
    return int(value or 0)
