"""`paperbot migrate-store`: copy a SQLite database into an empty PostgreSQL one. The shells'
door to `retrieval.stores.migrate`, which does the work (the shells never import the stores)."""

from __future__ import annotations

from pathlib import Path


async def copy_to_postgres(source: Path, url: str) -> str:
    """Copy every table of the SQLite database at `source` into the PostgreSQL database at
    `url`; returns the report to print (per-table row counts). StoreError if it cannot."""
    # Imported here: a SQLite-only run never loads asyncpg.
    from retrieval.stores.migrate import copy_sqlite_to_postgres, format_report

    return format_report(source, url, await copy_sqlite_to_postgres(source, url))
