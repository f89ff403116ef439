"""Persistent components: paging (invoker only), More results, open/similar/save, and clicks
on messages sent before a restart (a fresh bot instance) or by an older version."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import discord
import pytest

from bot.discord_shell.client import PaperBot
from bot.discord_shell.queries import QueryRef, decode_query
from config.settings import Settings
from tests.bot.conftest import Clock
from tests.bot.discordfakes import BOB, BOT_ID, Recorder, click, slash, user_payload
from tests.bot.fakes import FakeEngine
from tests.bot.helpers import disabled, labels, run

QUESTION = "models routing attention"


async def search(bot: PaperBot, recorder: Recorder, query: str = QUESTION) -> dict[str, Any]:
    interaction = await run(bot, slash(bot, "search", {"query": query, "results": 2}))
    message_id = recorder.for_interaction(interaction)[-1].message_id
    assert message_id is not None
    return recorder.messages[message_id]


def custom_ids(message: dict[str, Any]) -> list[str]:
    return [
        c["custom_id"]
        for row in message.get("components") or []
        for c in row["components"]
        if "custom_id" in c
    ]


async def test_invoker_pages_forward_and_back(bot: PaperBot, recorder: Recorder) -> None:
    message = await search(bot, recorder)
    assert disabled(message)["First"] and disabled(message)["Prev"]
    nxt = await click(bot, message, label="Next")
    sent = recorder.for_interaction(nxt)
    assert [s.kind for s in sent] == ["callback", "edit"]
    assert sent[0].body["type"] == 6  # deferred update, then the edit
    page2 = sent[1].body
    assert page2["embeds"][0]["footer"]["text"].startswith("3-4 of ")
    assert page2["embeds"][0]["fields"][0]["name"].startswith("3. ")
    assert not disabled(page2)["First"] and not disabled(page2)["Prev"]
    message.update(page2)
    first = await click(bot, message, label="First")
    footer = recorder.for_interaction(first)[-1].body["embeds"][0]["footer"]["text"]
    assert footer.startswith("1-2 of ")


async def test_every_custom_id_fits_and_is_unique(bot: PaperBot, recorder: Recorder) -> None:
    message = await search(bot, recorder, "routing " + "attention " * 60)
    ids = custom_ids(message)
    assert ids and all(len(i) <= 100 for i in ids) and len(set(ids)) == len(ids)


async def test_someone_else_gets_a_private_note_and_the_page_does_not_change(
    bot: PaperBot, recorder: Recorder
) -> None:
    message = await search(bot, recorder)
    other = await click(bot, message, label="Next", user_id=BOB)
    sent = recorder.for_interaction(other)
    assert len(sent) == 1 and sent[0].ephemeral
    assert "Only the person who asked" in sent[0].body["data"]["content"]
    assert not [s for s in recorder.sent if s.kind == "edit"]


async def ask(bot: PaperBot, recorder: Recorder) -> dict[str, Any]:
    interaction = await run(bot, slash(bot, "ask", {"question": QUESTION}))
    message_id = recorder.for_interaction(interaction)[-1].message_id
    assert message_id is not None
    return recorder.messages[message_id]


async def test_ask_select_opens_the_paper_privately_for_anyone(
    bot: PaperBot, recorder: Recorder
) -> None:
    message = await ask(bot, recorder)
    picked = await click(bot, message, values=["icml2026-3"], user_id=BOB)
    sent = recorder.for_interaction(picked)
    assert len(sent) == 1 and sent[0].ephemeral
    assert "Diffusion models for video" in sent[0].body["data"]["embeds"][0]["description"]


def small_pages(settings: Settings) -> Settings:
    """One result per answer, two per page: "More results" shows 2-3, Next 4."""
    return settings.model_copy(update={"answer_results": 1, "search_results": 2})


async def test_more_results_honours_the_page_size_setting(
    settings: Settings, engine: FakeEngine, recorder: Recorder, clock: Clock
) -> None:
    async with started_bot(small_pages(settings), engine, recorder, clock) as bot:
        message = await ask(bot, recorder)
        more = await click(bot, message, label="More results", user_id=BOB)
        sent = recorder.for_interaction(more)
        assert [s.kind for s in sent] == ["callback", "followup"]
        assert sent[0].ephemeral and sent[0].body["type"] == 5
        fields = sent[1].body["embeds"][0]["fields"]
        assert [f["name"][:2] for f in fields] == ["2.", "3."]
        # the private pages belong to whoever clicked
        assert f"pb:pg:{BOB}:" in " ".join(custom_ids(sent[1].body))


async def test_more_results_pages_say_which_results_they_show(
    settings: Settings, engine: FakeEngine, recorder: Recorder, clock: Clock
) -> None:
    """After an /ask showing #1, "More results" shows 2-3: its label said "Page 1/2" before."""
    async with started_bot(small_pages(settings), engine, recorder, clock) as bot:
        message = await ask(bot, recorder)
        asked = message["embeds"][0]["footer"]["text"]
        assert asked.startswith("1 of ")
        total = asked.removeprefix("1 of ").split(" matching")[0]
        more = await click(bot, message, label="More results")
        message_id = recorder.for_interaction(more)[-1].message_id
        assert message_id is not None
        page = recorder.messages[message_id]
        assert [f["name"][:2] for f in page["embeds"][0]["fields"]] == ["2.", "3."]
        assert page["embeds"][0]["footer"]["text"].startswith(f"2-3 of {total} matching papers")
        assert "Page" not in page["embeds"][0]["footer"]["text"]
        assert "2-3" in labels(page) and not [label for label in labels(page) if "/" in label]
        assert disabled(page)["First"] and disabled(page)["Prev"]
        nxt = await click(bot, page, label="Next")
        shown = recorder.for_interaction(nxt)[-1].body
        assert shown["embeds"][0]["footer"]["text"].startswith(f"4 of {total} matching papers")
        assert "4" in labels(shown)


async def test_paper_view_save_and_similar(
    bot: PaperBot, recorder: Recorder, engine: FakeEngine
) -> None:
    interaction = await run(bot, slash(bot, "paper", {"id": "icml2026-1"}))
    message_id = recorder.callbacks(interaction)[0].message_id
    assert message_id is not None
    message = recorder.messages[message_id]
    saved = await click(bot, message, label="Save", user_id=BOB)
    assert "Saved `icml2026-1`" in recorder.text(saved)
    again = await click(bot, message, label="Save", user_id=BOB)
    assert "already in your reading list" in recorder.text(again)
    assert engine.saved[BOB] == ["icml2026-1"]
    similar = await click(bot, message, label="Similar papers")
    sent = recorder.for_interaction(similar)
    assert sent[0].ephemeral and "Similar" in sent[-1].body["embeds"][0]["title"]


async def test_view_errors_go_through_the_boundary(
    bot: PaperBot, recorder: Recorder, engine: FakeEngine
) -> None:
    message = await ask(bot, recorder)
    engine.fail_with = RuntimeError("boom")
    picked = await click(bot, message, values=["icml2026-3"])
    sent = recorder.for_interaction(picked)
    assert len(sent) == 1 and sent[0].ephemeral
    assert "error reference" in sent[0].body["data"]["content"]


class started_bot:
    """A second PaperBot over the same engine: what the process looks like after a restart."""

    def __init__(
        self, settings: Settings, engine: FakeEngine, recorder: Recorder, clock: Clock
    ) -> None:
        self.bot = PaperBot(settings, engine, auto_sync=False, clock=clock)
        self.recorder = recorder

    async def __aenter__(self) -> PaperBot:
        bot = self.bot
        await bot._async_setup_hook()
        await bot.setup_hook()
        state = bot._connection
        state.user = discord.ClientUser(
            state=state,
            data=user_payload(BOT_ID, "paperbot", bot=True),  # type: ignore[arg-type]
        )
        state.application_id = 900_000_000_000_000_001
        bot.http.request = self.recorder.http_request  # type: ignore[method-assign]
        return bot

    async def __aexit__(self, *exc: object) -> None:
        await self.bot.loop_lag.stop()


@pytest.fixture
async def restarted(
    settings: Settings, engine: FakeEngine, recorder: Recorder, clock: Clock
) -> AsyncIterator[PaperBot]:
    async with started_bot(settings, engine, recorder, clock) as bot:
        yield bot


async def test_after_a_restart_paging_still_works_for_the_invoker_only(
    bot: PaperBot, restarted: PaperBot, recorder: Recorder
) -> None:
    message = await search(bot, recorder)
    other = await click(restarted, message, label="Next", user_id=BOB)
    assert "Only the person who asked" in recorder.text(other)
    nxt = await click(restarted, message, label="Next")
    assert [s.kind for s in recorder.for_interaction(nxt)] == ["callback", "edit"]
    body = recorder.for_interaction(nxt)[-1].body
    assert body["embeds"][0]["fields"][0]["name"].startswith("3. ")


async def test_after_a_restart_select_save_and_more_work(
    bot: PaperBot, restarted: PaperBot, recorder: Recorder, engine: FakeEngine
) -> None:
    message = await ask(bot, recorder)
    picked = await click(restarted, message, values=["icml2026-3"])
    assert "Diffusion models for video" in recorder.text(picked)
    more = await click(restarted, message, label="More results")
    assert recorder.for_interaction(more)[-1].body["embeds"][0]["fields"][0]["name"][:2] == "4."


async def test_a_long_question_from_before_a_restart_gets_a_note_and_a_fresh_answer(
    bot: PaperBot, restarted: PaperBot, recorder: Recorder
) -> None:
    long_query = "routing " + "attention " * 60
    message = await search(bot, recorder, long_query)
    assert any(":h" in i for i in custom_ids(message))  # the query went into a short key
    stale = await click(restarted, message, label="Next")
    sent = recorder.for_interaction(stale)
    assert all(s.ephemeral for s in sent if s.kind in ("callback", "followup"))
    text = recorder.text(stale)
    assert "earlier session" in text and "1. " in text


async def test_buttons_from_an_older_version_answer_afresh(
    bot: PaperBot, recorder: Recorder
) -> None:
    old = {
        "id": "1",
        "embeds": [{"title": "Answer: models routing attention"}],
        "components": [
            {
                "type": 1,
                "components": [
                    {"type": 2, "style": 1, "label": "More results", "custom_id": "a" * 32}
                ],
            }
        ],
    }
    message = recorder._store(old)
    clicked = await click(bot, message, label="More results")
    sent = recorder.for_interaction(clicked)
    assert sent and sent[0].ephemeral
    assert "earlier session" in recorder.text(clicked)


def test_query_refs_round_trip_through_custom_ids() -> None:
    from bot.discord_shell.queries import QueryKeys, encode_query

    keys = QueryKeys()
    for ref in (
        QueryRef("ask", "moe routing?"),
        QueryRef("ask", "a:b 1.2 | x", "icml2026"),
        QueryRef("similar", "icml2026-3"),
        QueryRef("ask", "long " * 40),
    ):
        code = encode_query(ref, 50, keys)
        assert len(code) <= 50
        assert decode_query(code, keys) == ref
    assert decode_query(encode_query(QueryRef("ask", "x " * 60), 50, keys), QueryKeys()) is None


def test_labels_helper_reads_rows() -> None:
    body = {"components": [{"type": 1, "components": [{"label": "A"}, {"label": "B"}]}]}
    assert labels(body) == ["A", "B"]
