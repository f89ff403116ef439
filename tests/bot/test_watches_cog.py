"""/watch, /watches, /unwatch and digest delivery over the real engine: one digest per watch
per ingest, to a DM or a channel, none for an unrelated watch; a refused delivery pauses."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import discord
import pytest

from bot.discord_shell.client import PaperBot
from bot.discord_shell.cogs.watches import WatchCog
from bot.discord_shell.digests import DigestSender
from config.settings import Settings
from retrieval.engine import Engine
from tests.bot.discordfakes import ALICE, BOB, CHANNEL_ID, MANAGE_GUILD, Recorder, slash
from tests.bot.helpers import run
from tests.bot.test_real_engine import real, real_settings  # noqa: F401  (fixtures)
from tests.conftest import write_list
from tests.retrieval.test_watches import FOLDDIFF, MOE, UNRELATED, ZORBLAX

DM_CHANNEL = CHANNEL_ID + 1
OTHER_CHANNEL = CHANNEL_ID + 50


def channel_option(channel_id: int) -> dict[str, Any]:
    return {
        "channels": {
            str(channel_id): {
                "id": str(channel_id),
                "type": 0,
                "name": "papers",
                "permissions": str(0xFFFFFFFF),
            }
        }
    }


def sender(bot: PaperBot, monkeypatch: pytest.MonkeyPatch) -> DigestSender:
    """The cog's sender, with DMs going to a known channel (the fake has no user endpoints)."""
    cog = bot.get_cog("WatchCog")
    # load_extension imports the module afresh, so the class is not the one imported here.
    assert cog is not None and type(cog).__name__ == WatchCog.__name__
    send: DigestSender = cog.sender  # type: ignore[attr-defined]
    original = send.destination

    async def destination(digest: Any) -> discord.abc.Messageable:
        if digest.by_dm:
            return bot.get_partial_messageable(DM_CHANNEL)
        return await original(digest)

    monkeypatch.setattr(send, "destination", destination)
    monkeypatch.setattr(send, "responsible", lambda digest: True)
    return send


async def test_dm_and_channel_watches_get_one_digest_each(
    real: tuple[PaperBot, Engine],  # noqa: F811
    recorder: Recorder,
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
) -> None:
    bot, engine = real
    dm = await run(bot, slash(bot, "watch", {"query": "mixture of experts routing"}))
    assert "Watch **1** saved" in recorder.text(dm) and "by DM" in recorder.text(dm)
    refused = await run(
        bot,
        slash(
            bot,
            "watch",
            {"query": "mixture of experts", "channel": str(OTHER_CHANNEL)},
            user_id=BOB,
            resolved=channel_option(OTHER_CHANNEL),
        ),
    )
    assert "needs the Manage Server permission" in recorder.text(refused)
    chan = await run(
        bot,
        slash(
            bot,
            "watch",
            {"query": "mixture of experts", "channel": str(OTHER_CHANNEL)},
            user_id=BOB,
            permissions=MANAGE_GUILD,
            resolved=channel_option(OTHER_CHANNEL),
        ),
    )
    assert f"in <#{OTHER_CHANNEL}>" in recorder.text(chan)
    await run(bot, slash(bot, "watch", {"query": "protein folding graph"}, user_id=BOB))

    await engine.ingest([write_list(tmp_path / "new.txt", [UNRELATED, MOE])])
    send = sender(bot, monkeypatch)
    before = len(recorder.sent)
    assert await send.run_once() == 2
    assert await send.run_once() == 0  # claimed and delivered: never sent again
    messages = [s for s in recorder.sent[before:] if s.kind == "channel_message"]
    assert len(messages) == 2
    for message in messages:
        [embed] = message.body["embeds"]
        assert embed["title"].startswith("New papers for your watch: mixture of experts")
        assert [f["value"].split("\n")[0] for f in embed["fields"]] == ["`fixture2026-2`"]
        assert message.body["allowed_mentions"]["parse"] == []
    listed = await run(bot, slash(bot, "watches"))
    assert "last fired" in recorder.text(listed) and "not fired yet" not in recorder.text(listed)
    gone = await run(bot, slash(bot, "unwatch", {"id": 1}))
    assert "Watch **1** removed" in recorder.text(gone)
    again = await run(bot, slash(bot, "unwatch", {"id": 1}))
    assert "You have no watch **1**" in recorder.text(again)


async def test_refused_delivery_pauses_the_watch(
    real: tuple[PaperBot, Engine],  # noqa: F811
    recorder: Recorder,
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
) -> None:
    bot, engine = real
    await run(bot, slash(bot, "watch", {"query": "mixture of experts routing"}))
    send = sender(bot, monkeypatch)

    class Closed:
        async def send(self, **_: Any) -> None:
            response = type("R", (), {"status": 403, "reason": "Forbidden"})()
            raise discord.Forbidden(response, {"code": 50007, "message": "Cannot send"})  # type: ignore[arg-type]

    async def closed(digest: Any) -> Any:
        return Closed()

    monkeypatch.setattr(send, "destination", closed)
    await engine.ingest([write_list(tmp_path / "new.txt", [MOE])])
    assert await send.run_once() == 0
    listed = await run(bot, slash(bot, "watches"))
    assert "paused: your DMs are closed to paperbot" in recorder.text(listed)
    await engine.ingest([write_list(tmp_path / "more.txt", [MOE + " Again."], header="More 2026")])
    assert await engine.watches.pending() == []
    [row] = await engine.watches.of(ALICE)
    assert row.paused_reason == "your DMs are closed to paperbot"


async def test_who_sends_which_digest(real: tuple[PaperBot, Engine]) -> None:  # noqa: F811
    from retrieval.watches.service import CONSOLE_USER, Digest

    bot, _ = real
    send = DigestSender(bot)
    dm = Digest(1, 1, ALICE, None, None, "q", (), 0)
    console = Digest(2, 2, CONSOLE_USER, None, None, "q", (), 0)
    elsewhere = Digest(3, 3, ALICE, 1234, 5678, "q", (), 0)
    assert bot.settings.owns_shard_zero and send.responsible(dm)
    assert not send.responsible(console)  # printed by `paperbot ingest`, never sent
    assert not send.responsible(elsewhere)  # a guild this process is not connected to
    bot.settings = bot.settings.model_copy(update={"shard_count": 2, "shard_ids": [1]})
    assert not send.responsible(dm)  # DMs go to shard 0's process


async def test_issue_23_watches_get_digests_after_an_ingest_by_another_engine(
    real: tuple[PaperBot, Engine],  # noqa: F811
    real_settings: Settings,  # noqa: F811
    recorder: Recorder,
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
) -> None:
    """A DM and a channel watch, then `paperbot ingest` elsewhere (another engine on the same
    database): the bot finds the stored digests and sends both."""
    bot, _ = real
    await run(bot, slash(bot, "watch", {"query": "zorblax quantum gardening"}))
    chan = slash(
        bot,
        "watch",
        {"query": "protein diffusion", "channel": str(OTHER_CHANNEL)},
        user_id=BOB,
        permissions=MANAGE_GUILD,
        resolved=channel_option(OTHER_CHANNEL),
    )
    assert f"in <#{OTHER_CHANNEL}>" in recorder.text(await run(bot, chan))
    async with await Engine.open(real_settings) as other:
        await other.ingest([write_list(tmp_path / "new.txt", [ZORBLAX, FOLDDIFF])])
    send = sender(bot, monkeypatch)
    before = len(recorder.sent)
    assert await send.run_once() == 2
    embeds = [s.body["embeds"][0] for s in recorder.sent[before:] if s.kind == "channel_message"]
    titles = sorted(embed["title"] for embed in embeds)
    assert titles == [
        "New papers for your watch: protein diffusion",
        "New papers for your watch: zorblax quantum gardening",
    ]
    papers = sorted(embed["fields"][0]["value"].split("\n")[0] for embed in embeds)
    assert papers == ["`fixture2026-1`", "`fixture2026-2`"]
