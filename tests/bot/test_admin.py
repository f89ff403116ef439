"""/admin: owners or Manage Server only; uploads validated before the engine sees them."""

from __future__ import annotations

from typing import Any

import pytest

from bot.discord_shell.client import PaperBot
from tests.bot.discordfakes import MANAGE_GUILD, Recorder, slash, snowflake
from tests.bot.fakes import FakeEngine
from tests.bot.helpers import run

OWNER = 424242


def attachment(name: str, size: int) -> tuple[str, dict[str, Any]]:
    attachment_id = str(snowflake())
    url = f"https://cdn.discordapp.com/attachments/1/{attachment_id}/{name}"
    data = {"id": attachment_id, "filename": name, "size": size, "url": url, "proxy_url": url}
    return attachment_id, {"attachments": {attachment_id: data}}


@pytest.fixture
def cdn(bot: PaperBot, monkeypatch: pytest.MonkeyPatch) -> dict[str, bytes]:
    files: dict[str, bytes] = {}

    async def get_from_cdn(url: str) -> bytes:
        return files[url.rsplit("/", 1)[-1]]

    monkeypatch.setattr(bot.http, "get_from_cdn", get_from_cdn)
    return files


async def ingest(bot: PaperBot, name: str, data: bytes, cdn: dict[str, bytes], **kw: Any):
    cdn[name] = data
    attachment_id, resolved = attachment(name, len(data))
    return await run(
        bot, slash(bot, "admin ingest", {"file": attachment_id}, resolved=resolved, **kw)
    )


async def test_member_without_manage_server_is_refused(bot: PaperBot, recorder: Recorder) -> None:
    interaction = await run(bot, slash(bot, "admin reload", permissions=0))
    sent = recorder.for_interaction(interaction)
    assert len(sent) == 1 and sent[0].ephemeral
    assert "Only the bot's owners or members with Manage Server" in sent[0].body["data"]["content"]


async def test_manage_server_may_reload(bot: PaperBot, recorder: Recorder) -> None:
    interaction = await run(bot, slash(bot, "admin reload", permissions=MANAGE_GUILD))
    text = recorder.text(interaction)
    assert "Reloaded the seeds folder" in text and "76" in text


async def test_owner_may_reload_even_in_dms(bot: PaperBot, recorder: Recorder) -> None:
    interaction = await run(bot, slash(bot, "admin reload", user_id=OWNER, guild=False))
    assert "Reloaded" in recorder.text(interaction)


async def test_manage_server_in_dms_is_not_enough(bot: PaperBot, recorder: Recorder) -> None:
    interaction = await run(bot, slash(bot, "admin reload", guild=False))
    assert "Only the bot's owners" in recorder.text(interaction)


async def test_ingest_reports_counts(
    bot: PaperBot, recorder: Recorder, engine: FakeEngine, cdn: dict[str, bytes]
) -> None:
    interaction = await ingest(
        bot, "list.jsonl", b'{"abstract": "x"}\n', cdn, permissions=MANAGE_GUILD
    )
    assert "Papers added" in recorder.text(interaction)
    assert engine.ingested == [("list.jsonl", b'{"abstract": "x"}\n')]


async def test_ingest_format_error_names_the_line(
    bot: PaperBot, recorder: Recorder, engine: FakeEngine, cdn: dict[str, bytes]
) -> None:
    interaction = await ingest(bot, "list.jsonl", b"ok\nbad\n", cdn, permissions=MANAGE_GUILD)
    sent = recorder.for_interaction(interaction)
    assert (
        sent[-1].ephemeral
        and "list.jsonl:2: a JSON line must be an object" in sent[-1].body["content"]
    )


@pytest.mark.parametrize(
    ("name", "data", "message"),
    [
        ("notes.pdf", b"x", "Upload a `.txt` paper list or a `.jsonl` file"),
        ("empty.txt", b"", "is empty"),
        ("big.txt", b"x" * 5_000_001, "the limit is"),
        ("latin1.txt", "caf\xe9".encode("latin-1"), "is not UTF-8 text"),
    ],
)
async def test_bad_uploads_are_refused_before_the_engine(
    bot: PaperBot,
    recorder: Recorder,
    engine: FakeEngine,
    cdn: dict[str, bytes],
    name: str,
    data: bytes,
    message: str,
) -> None:
    interaction = await ingest(bot, name, data, cdn, user_id=OWNER)
    assert message in recorder.text(interaction)
    assert recorder.for_interaction(interaction)[-1].ephemeral
    assert engine.ingested == []


async def test_ingest_refused_for_regular_members(
    bot: PaperBot, recorder: Recorder, engine: FakeEngine, cdn: dict[str, bytes]
) -> None:
    interaction = await ingest(bot, "list.txt", b"hello", cdn)
    assert "Only the bot's owners" in recorder.text(interaction)
    assert engine.ingested == []


async def test_sync_is_owner_only(bot: PaperBot, recorder: Recorder) -> None:
    interaction = await run(
        bot, slash(bot, "admin sync", {"scope": "guild"}, permissions=MANAGE_GUILD)
    )
    assert "Only the bot's owners (PAPERBOT_OWNER_IDS)" in recorder.text(interaction)
