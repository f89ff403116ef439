"""Smoke: the bot builds its tree and loads every cog without logging in; the tree obeys
Discord's rules; intents and command sync are deliberate."""

from __future__ import annotations

from typing import Any

import discord
import pytest

from bot.discord_shell.client import COGS, PaperBot, build_intents, payload_hash, tree_payload
from config.settings import Settings
from tests.bot.fakes import FakeEngine
from tests.bot.limits import command_problems

EXPECTED = {
    "ask", "search", "similar", "paper", "random", "collections", "stats", "help",
    "save", "unsave", "saved", "admin",
    "privacy", "forget-me", "watch", "watches", "unwatch", "shortlist",
    "trending",
}  # fmt: skip


async def build(settings: Settings, engine: FakeEngine | None = None) -> PaperBot:
    bot = PaperBot(settings, engine or FakeEngine(), auto_sync=False)
    await bot._async_setup_hook()
    await bot.setup_hook()
    return bot


def walk(items: list[dict[str, Any]]) -> list[dict[str, Any]]:
    out = []
    for item in items:
        out.append(item)
        out += walk(item.get("options") or [])
    return out


async def test_tree_builds_without_login_and_passes_discords_rules(settings: Settings) -> None:
    bot = await build(settings)
    assert set(bot.extensions) == set(COGS)
    payload = tree_payload(bot.tree, None)
    assert {c["name"] for c in payload} == EXPECTED
    assert command_problems(payload) == []
    for item in walk(payload):
        assert item["description"] != "…", f"{item['name']} has no description"
    admin = next(c for c in payload if c["name"] == "admin")
    # discord.py sends the permission bits as an int: Manage Server only
    assert admin["default_member_permissions"] == discord.Permissions(manage_guild=True).value


async def test_payload_hash_is_stable_and_sensitive(settings: Settings) -> None:
    first = payload_hash(tree_payload((await build(settings)).tree, None))
    again = payload_hash(tree_payload((await build(settings)).tree, None))
    assert first == again
    bot = await build(settings)
    bot.tree.remove_command("help")
    assert payload_hash(tree_payload(bot.tree, None)) != first


def test_intents_are_not_privileged_unless_asked(settings: Settings) -> None:
    intents = build_intents(settings)
    assert not intents.message_content and not intents.members and not intents.presences
    assert intents.guild_messages and intents.dm_messages and intents.guilds
    enabled = settings.model_copy(update={"message_content_intent": True})
    assert build_intents(enabled).message_content


class SyncSpy:
    def __init__(self) -> None:
        self.calls: list[int | None] = []

    async def __call__(self, *, guild: discord.abc.Snowflake | None = None) -> list[Any]:
        self.calls.append(guild.id if guild else None)
        return [object()] * 12


async def test_sync_only_when_the_payload_changed(
    settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    engine = FakeEngine()
    bot = await build(settings, engine)
    spy = SyncSpy()
    monkeypatch.setattr(bot.tree, "sync", spy)
    assert await bot.sync_if_changed() is True
    assert await bot.sync_if_changed() is False
    assert spy.calls == [None]
    assert engine.meta  # the hash is kept in the store

    restarted = await build(settings, engine)
    monkeypatch.setattr(restarted.tree, "sync", spy)
    assert await restarted.sync_if_changed() is False  # same tree after a restart: no sync
    restarted.tree.remove_command("stats")
    assert await restarted.sync_if_changed() is True
    assert spy.calls == [None, None]


async def test_a_new_application_over_the_same_database_syncs(
    settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A new token is a new application with no commands, whatever the last one synced.
    engine = FakeEngine()
    spy = SyncSpy()
    for application_id, synced in ((111, True), (111, False), (222, True)):
        bot = await build(settings, engine)
        bot._connection.application_id = application_id
        monkeypatch.setattr(bot.tree, "sync", spy)
        assert await bot.sync_if_changed() is synced
    assert spy.calls == [None, None]


async def test_dev_guild_sync_copies_globals_to_the_guild(
    settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    dev = settings.model_copy(update={"dev_guild_id": 1234})
    bot = await build(dev)
    spy = SyncSpy()
    monkeypatch.setattr(bot.tree, "sync", spy)
    assert await bot.sync_if_changed() is True
    assert spy.calls == [1234]
    assert {c.name for c in bot.tree.get_commands(guild=discord.Object(1234))} == EXPECTED


async def test_failed_sync_is_retried_next_time(
    settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    engine = FakeEngine()
    bot = await build(settings, engine)

    async def broken(**_: Any) -> list[Any]:
        raise discord.HTTPException(_Response(), {"message": "nope", "code": 0})  # type: ignore[arg-type]

    monkeypatch.setattr(bot.tree, "sync", broken)
    assert await bot.sync_if_changed() is False
    assert engine.meta == {}


async def test_sync_now_never_leaves_commands_in_both_scopes(
    settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    bot = await build(settings)
    bot._connection.application_id = 900
    monkeypatch.setattr(bot.tree, "sync", SyncSpy())
    cleared: list[tuple[str, int | None, list[Any]]] = []

    async def clear_global(app_id: int, payload: list[Any]) -> list[Any]:
        cleared.append(("global", None, payload))
        return []

    async def clear_guild(app_id: int, guild_id: int, payload: list[Any]) -> list[Any]:
        cleared.append(("guild", guild_id, payload))
        return []

    monkeypatch.setattr(bot.http, "bulk_upsert_global_commands", clear_global)
    monkeypatch.setattr(bot.http, "bulk_upsert_guild_commands", clear_guild)
    guild_summary = await bot.sync_now(77)
    assert guild_summary.startswith("Synced 12 commands to guild 77 and removed the global")
    assert cleared == [("global", None, [])]
    assert await bot.sync_if_changed() is False  # the next start does not republish globally
    summary = await bot.sync_now(None, here=77)
    assert summary == "Synced 12 commands globally (may take a while to appear)."
    assert cleared[-1] == ("guild", 77, [])
    assert bot.tree.get_commands(guild=discord.Object(77)) == []


class _Response:
    status = 400
    reason = "Bad Request"


def test_shard_settings_reach_the_client_and_only_shard_zero_syncs() -> None:
    sharded = Settings(_env_file=None, shard_count=4, shard_ids=[2, 3])  # type: ignore[call-arg]
    bot = PaperBot(sharded, FakeEngine())
    assert (bot.shard_count, bot.shard_ids) == (4, [2, 3])
    assert not sharded.owns_shard_zero
    whole = PaperBot(Settings(_env_file=None), FakeEngine())  # type: ignore[call-arg]
    assert whole.shard_ids is None and whole.settings.owns_shard_zero


async def test_the_engine_is_warmed_before_the_gateway_connects(
    bot: PaperBot, engine: FakeEngine
) -> None:
    assert engine.warmed  # setup_hook runs before the connection to Discord
