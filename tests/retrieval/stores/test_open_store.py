"""`open_store(settings)`: SQLite by default, PostgreSQL when PAPERBOT_DATABASE_URL is set, and
the engine answering the same over either."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from config.settings import Settings
from retrieval.engine import Engine
from retrieval.errors import StoreError
from retrieval.stores.opening import open_store
from retrieval.stores.postgres import PostgresStore
from retrieval.stores.sqlite import SqliteStore
from tests.conftest import FIXTURE_ABSTRACTS, write_list


async def test_without_a_database_url_the_store_is_sqlite_at_db_path(
    make_settings: Callable[..., Settings],
) -> None:
    settings = make_settings()
    async with await open_store(settings) as store:
        assert isinstance(store, SqliteStore)
    assert settings.db_path.is_file()


async def test_with_a_database_url_the_store_is_postgres(
    make_settings: Callable[..., Settings], pg_url: str
) -> None:
    settings = make_settings(database_url=pg_url)
    async with await open_store(settings) as store:
        assert isinstance(store, PostgresStore)
        assert await store.counts() == (0, 0)
    assert not settings.db_path.exists()  # no SQLite file on the side


async def test_an_unreachable_database_url_is_a_store_error_naming_the_setting(
    make_settings: Callable[..., Settings],
) -> None:
    settings = make_settings(database_url="postgresql://bot:pw-canary-5@127.0.0.1:1/paperbot")
    with pytest.raises(StoreError) as caught:
        await open_store(settings)
    assert str(caught.value).startswith("PAPERBOT_DATABASE_URL: cannot reach PostgreSQL")
    assert "pw-canary-5" not in str(caught.value)


async def test_the_engine_answers_the_same_over_both_backends(
    make_settings: Callable[..., Settings], pg_url: str, tmp_path: Path
) -> None:
    seeds = tmp_path / "seeds"
    seeds.mkdir()
    write_list(seeds / "fixture.txt", FIXTURE_ABSTRACTS)
    answers = []
    for overrides in (
        {},
        {"database_url": pg_url, "index_dir": tmp_path / "pg-index"},
    ):
        engine = await Engine.open(make_settings(seeds_dir=seeds, **overrides))
        try:
            answer = await engine.ask("RAG corpus poisoning attack", limit=3)
            _, saved = await engine.save_paper(9, answer.hits[0].paper.id)
            answers.append(
                (
                    [(hit.paper.id, round(hit.score, 6)) for hit in answer.hits],
                    saved,
                    [p.id for p in await engine.saved_papers(9)],
                )
            )
        finally:
            await engine.close()
    assert answers[0] == answers[1]
    assert answers[0][0][0][0] == "fixture2026-2"
