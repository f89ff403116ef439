"""Reaching PostgreSQL: connections and pools, which errors mean "the server is away", and one-line
messages about PAPERBOT_DATABASE_URL that never show its password.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any, TypeAlias
from urllib.parse import parse_qs, urlsplit

import asyncpg

from config.settings import url_secrets

if TYPE_CHECKING:
    from asyncpg.pool import PoolConnectionProxy

    # A connection of its own or one lent by a pool: both run the same queries.
    Db: TypeAlias = asyncpg.Connection[asyncpg.Record] | PoolConnectionProxy[asyncpg.Record]

SETTING = "PAPERBOT_DATABASE_URL"
# A call a user waits for (an answer, a save, conversation memory) gives up after this.
QUICK_SECONDS = 2.0
# Whole-corpus reads, one file's ingest, re-deriving terms: big, but still bounded.
BULK_SECONDS = 300.0
_POOL_SIZE = 8
# Idle connections are closed after this, so a pool does not hold stale sockets for hours.
_IDLE_SECONDS = 300.0

# The server is down, restarting, unreachable or out of connections: the same call works later.
UNAVAILABLE: tuple[type[BaseException], ...] = (
    OSError,
    TimeoutError,
    asyncpg.PostgresConnectionError,
    asyncpg.exceptions.OperatorInterventionError,
    asyncpg.exceptions.InsufficientResourcesError,
)
# Two transactions collided; the server rolled one back and it may simply run again.
RETRYABLE: tuple[type[BaseException], ...] = (
    asyncpg.SerializationError,
    asyncpg.DeadlockDetectedError,
)


def is_unavailable(error: BaseException) -> bool:
    """True for the errors of a server that went away, including asyncpg's "connection is
    closed" (an InterfaceError) on a connection the server dropped between two statements."""
    if isinstance(error, UNAVAILABLE):
        return True
    return isinstance(error, asyncpg.InterfaceError) and "closed" in str(error)


def describe(url: str) -> str:
    """The URL as it may be shown: postgresql://user@host:port/database, never the password."""
    try:
        parts = urlsplit(url)
        query = parse_qs(parts.query)
        host = parts.hostname or query.get("host", ["localhost"])[0]
        port = parts.port or query.get("port", ["5432"])[0]
        user = parts.username or query.get("user", [""])[0]
    except ValueError:
        return "the URL given (not a valid postgresql:// URL)"
    at = f"{user}@" if user else ""
    return f"postgresql://{at}{host}:{port}{parts.path or '/'}"


def _scrub(text: str, url: str) -> str:
    """`text` without the URL's password, wherever the URL put it."""
    try:
        secrets = url_secrets(url)
    except ValueError:
        # Unparseable: nothing of the URL may be shown, the password could be anywhere in it.
        return "the URL cannot be parsed" if url in text or not text else text
    for secret in sorted(secrets, key=len, reverse=True):  # "p%40ss" before "p"
        text = text.replace(secret, "***")
    return text


def explain_open_error(error: BaseException, url: str) -> str:
    """One line naming the setting, the server (no password) and what to do."""
    where = describe(url)
    reason = _scrub(str(error) or type(error).__name__, url)
    if isinstance(error, asyncpg.InvalidPasswordError):
        return (
            f"{SETTING}: PostgreSQL at {where} rejected the password; fix the password in the URL."
        )
    if isinstance(error, asyncpg.InvalidAuthorizationSpecificationError):
        return (
            f"{SETTING}: PostgreSQL at {where} refused the user ({reason}); "
            "fix the user name in the URL or the server's pg_hba.conf."
        )
    if isinstance(error, asyncpg.InvalidCatalogNameError):
        return (
            f"{SETTING}: no such database at {where} ({reason}); "
            "create it (createdb) or fix the database name in the URL."
        )
    if isinstance(error, TimeoutError):
        return (
            f"{SETTING}: PostgreSQL at {where} did not answer within {QUICK_SECONDS:g} s; "
            "check that the server runs and the host and port are right."
        )
    if is_unavailable(error):
        return (
            f"{SETTING}: cannot reach PostgreSQL at {where} ({reason}); "
            "start the server or fix the host and port."
        )
    return f"{SETTING}: cannot use PostgreSQL at {where} ({reason}); check the URL."


def _options() -> dict[str, Any]:
    return {
        "timeout": QUICK_SECONDS,  # connecting, TLS negotiation included
        # jit off: right after a bulk ingest, before autovacuum has analyzed the tables, the
        # planner's guesses make PostgreSQL JIT-compile the corpus read: 1 s of compiling
        # for 0.1 s of work (benchmarks/pg_store.py, 8k papers).
        "server_settings": {"application_name": "paperbot", "jit": "off"},
    }


async def connect(url: str) -> asyncpg.Connection[asyncpg.Record]:
    """One connection outside any pool (LISTEN, migrations, copying a database)."""
    return await asyncpg.connect(url, **_options())


async def create_pool(url: str) -> asyncpg.Pool[asyncpg.Record]:
    """A pool that connects on demand and so recovers by itself: a connection the server
    dropped is replaced at the next acquire. min_size=0: with a floor to keep, asyncpg
    reconnects in the background and logs a traceback for every failure during an outage."""
    pool = asyncpg.create_pool(
        url,
        min_size=0,
        max_size=_POOL_SIZE,
        max_inactive_connection_lifetime=_IDLE_SECONDS,
        **_options(),
    )
    return await pool


async def close_pool(pool: asyncpg.Pool[asyncpg.Record]) -> None:
    """Close gracefully, or drop the connections if the server does not answer in time."""
    try:
        await asyncio.wait_for(pool.close(), QUICK_SECONDS)
    except UNAVAILABLE:
        pool.terminate()


def rowcount(status: str) -> int:
    """The row count in a command status such as 'INSERT 0 1' or 'DELETE 3'."""
    return int(status.rsplit(" ", 1)[-1])
