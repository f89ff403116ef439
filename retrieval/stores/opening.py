"""Opening the store the settings name: `open_store(settings)` picks the backend."""

from __future__ import annotations

from config.settings import Settings
from retrieval.stores.store import Store


async def open_store(settings: Settings) -> Store:
    """PostgreSQL when PAPERBOT_DATABASE_URL is set, else SQLite at PAPERBOT_DB_PATH (the
    zero-setup default). Raises StoreError (one line, no password) if it cannot be used."""
    if settings.database_url is not None:
        # Imported here: a SQLite-only run never loads asyncpg.
        from retrieval.stores.postgres import PostgresStore

        return await PostgresStore.open(settings.database_url.get_secret_value())
    # Imported here too: a PostgreSQL run never loads the SQLite backend.
    from retrieval.stores.sqlite import SqliteStore

    return await SqliteStore.open(settings.db_path)
