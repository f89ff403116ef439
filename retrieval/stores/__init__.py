"""Stores behind the engine: `open_store(settings)` picks the backend the settings name."""

from __future__ import annotations

from config.settings import Settings
from retrieval.stores.protocol import Store
from retrieval.stores.sqlite import SqliteStore


async def open_store(settings: Settings) -> Store:
    """SQLite at PAPERBOT_DB_PATH, the zero-setup default."""
    return await SqliteStore.open(settings.db_path)
