"""Views: the paginator (invoker only, timeout disables), the /ask view and the paper view."""

from __future__ import annotations

import asyncio

from bot.client import PaperBot
from tests.bot.discordfakes import BOB, Recorder, click, slash
from tests.bot.fakes import FakeEngine
from tests.bot.helpers import disabled, labels, run, view_for

QUESTION = "models routing attention"


async def search(bot: PaperBot, recorder: Recorder) -> dict:
    interaction = await run(bot, slash(bot, "search", {"query": QUESTION, "results": 2}))
    message_id = recorder.for_interaction(interaction)[-1].message_id
    return recorder.messages[message_id]


async def test_invoker_pages_forward_and_back(bot: PaperBot, recorder: Recorder) -> None:
    message = await search(bot, recorder)
    view = view_for(bot, message)
    assert disabled(message)["First"] and disabled(message)["Prev"]
    nxt = await click(bot, view, message, label="Next")
    sent = recorder.for_interaction(nxt)
    assert [s.kind for s in sent] == ["callback", "edit"]
    assert sent[0].body["type"] == 6  # deferred update, then the edit
    page2 = sent[1].body
    assert page2["embeds"][0]["footer"]["text"].startswith("Page 2/2")
    assert "2/2" in labels(page2)
    assert disabled(page2)["Next"] and disabled(page2)["Last"] and not disabled(page2)["First"]
    assert page2["embeds"][0]["fields"][0]["name"].startswith("3. ")
    message.update(page2)
    first = await click(bot, view, message, label="First")
    assert (
        recorder.for_interaction(first)[-1]
        .body["embeds"][0]["footer"]["text"]
        .startswith("Page 1/2")
    )


async def test_someone_else_gets_an_ephemeral_note_and_the_page_does_not_change(
    bot: PaperBot, recorder: Recorder
) -> None:
    message = await search(bot, recorder)
    view = view_for(bot, message)
    other = await click(bot, view, message, label="Next", user_id=BOB)
    sent = recorder.for_interaction(other)
    assert len(sent) == 1 and sent[0].ephemeral
    assert "Only the person who asked" in sent[0].body["data"]["content"]
    assert view.page == 0  # type: ignore[attr-defined]


async def test_timeout_disables_the_buttons_by_editing_the_message(
    bot: PaperBot, recorder: Recorder
) -> None:
    message = await search(bot, recorder)
    view = view_for(bot, message)
    view._dispatch_timeout()
    await asyncio.sleep(0.05)
    edit = recorder.sent[-1]
    assert edit.kind == "edit" and edit.message_id == message["id"]
    assert all(disabled(edit.body).values())


async def test_timeout_of_a_direct_response_edits_the_original(
    bot: PaperBot, recorder: Recorder
) -> None:
    interaction = await run(bot, slash(bot, "paper", {"id": "icml2026-2"}))
    message = recorder.messages[recorder.callbacks(interaction)[0].message_id]
    view = view_for(bot, message)
    view._dispatch_timeout()
    await asyncio.sleep(0.05)
    edit = recorder.sent[-1]
    assert edit.kind == "edit"
    states = disabled(edit.body)
    assert states["Similar papers"] and states["Save"]
    link_states = [
        c.get("disabled")
        for row in edit.body["components"]
        for c in row["components"]
        if c.get("style") == 5
    ]
    assert link_states and not any(link_states)  # link buttons keep working


async def ask(bot: PaperBot, recorder: Recorder) -> dict:
    interaction = await run(bot, slash(bot, "ask", {"question": QUESTION}))
    return recorder.messages[recorder.for_interaction(interaction)[-1].message_id]


async def test_ask_select_opens_the_paper_privately_for_anyone(
    bot: PaperBot, recorder: Recorder
) -> None:
    message = await ask(bot, recorder)
    view = view_for(bot, message)
    picked = await click(bot, view, message, values=["icml2026-3"], user_id=BOB)
    sent = recorder.for_interaction(picked)
    assert len(sent) == 1 and sent[0].ephemeral
    assert "Diffusion models for video" in sent[0].body["data"]["embeds"][0]["description"]


async def test_more_results_opens_a_private_paginator_after_the_top_three(
    bot: PaperBot, recorder: Recorder
) -> None:
    message = await ask(bot, recorder)
    view = view_for(bot, message)
    more = await click(bot, view, message, label="More results", user_id=BOB)
    sent = recorder.for_interaction(more)
    assert [s.kind for s in sent] == ["callback", "followup"]
    assert sent[0].ephemeral and sent[0].body["type"] == 5
    assert sent[1].body["embeds"][0]["fields"][0]["name"].startswith("4. ")


async def test_paper_view_save_and_similar(
    bot: PaperBot, recorder: Recorder, engine: FakeEngine
) -> None:
    interaction = await run(bot, slash(bot, "paper", {"id": "icml2026-1"}))
    message = recorder.messages[recorder.callbacks(interaction)[0].message_id]
    view = view_for(bot, message)
    saved = await click(bot, view, message, label="Save", user_id=BOB)
    assert "Saved `icml2026-1`" in recorder.text(saved)
    again = await click(bot, view, message, label="Save", user_id=BOB)
    assert "already in your reading list" in recorder.text(again)
    assert engine.saved[BOB] == ["icml2026-1"]
    similar = await click(bot, view, message, label="Similar papers")
    sent = recorder.for_interaction(similar)
    assert sent[0].ephemeral and "Similar" in sent[-1].body["embeds"][0]["title"]


async def test_view_errors_go_through_the_boundary(
    bot: PaperBot, recorder: Recorder, engine: FakeEngine
) -> None:
    message = await ask(bot, recorder)
    view = view_for(bot, message)
    engine.fail_with = RuntimeError("boom")
    picked = await click(bot, view, message, values=["icml2026-3"])
    sent = recorder.for_interaction(picked)
    assert len(sent) == 1 and sent[0].ephemeral
    assert "error reference" in sent[0].body["data"]["content"]
