"""Slash commands invoked through the real command tree with real discord.py Interactions."""

from __future__ import annotations

from bot import wording
from bot.discord_shell.client import PaperBot
from bot.terminal import chat_console
from bot.terminal.console import render_paper
from retrieval.nodes import NodeRow
from tests.bot.discordfakes import Recorder, slash
from tests.bot.fakes import FakeEngine, make_paper
from tests.bot.helpers import labels, run
from tests.bot.limits import embed_problems

QUESTION = "models routing attention"


async def test_ask_defers_then_answers_publicly_with_lead_hits_and_components(
    bot: PaperBot, recorder: Recorder
) -> None:
    interaction = await run(bot, slash(bot, "ask", {"question": QUESTION}))
    sent = recorder.for_interaction(interaction)
    assert [s.kind for s in sent] == ["callback", "followup"]
    assert sent[0].body["type"] == 5 and not sent[0].ephemeral
    body = sent[1].body
    embed = body["embeds"][0]
    assert embed["description"].startswith("> ")
    assert "**" in embed["description"]
    assert embed["fields"][0]["name"].startswith("1. ")
    assert "`icml2026-1`" in embed["fields"][0]["value"]
    assert "ICML 2026" in embed["fields"][0]["value"]
    kinds = [c["type"] for row in body["components"] for c in row["components"]]
    assert 3 in kinds  # the select menu
    assert "More results" in labels(body)
    links = [
        c["url"] for row in body["components"] for c in row["components"] if c.get("style") == 5
    ]
    assert "https://github.com/example/moe" in links


async def test_ask_private_is_ephemeral_from_the_defer(bot: PaperBot, recorder: Recorder) -> None:
    interaction = await run(bot, slash(bot, "ask", {"question": QUESTION, "private": True}))
    sent = recorder.for_interaction(interaction)
    assert sent[0].body["type"] == 5 and sent[0].ephemeral


async def test_ask_without_matches_suggests_and_has_no_empty_components(
    bot: PaperBot, recorder: Recorder
) -> None:
    interaction = await run(bot, slash(bot, "ask", {"question": "routng"}))
    sent = recorder.for_interaction(interaction)
    # public "thinking…" first, then removed so the no-match note stays private
    assert [s.kind for s in sent] == ["callback", "delete", "followup"]
    assert sent[-1].ephemeral
    body = recorder.visible(interaction)[-1]
    description = body["embeds"][0]["description"]
    assert description.count("No paper") == 1
    assert "Did you mean **routing**?" in description
    assert description.count("Or try an example") == 1
    assert not body.get("components")


async def test_hostile_question_is_escaped_and_never_pings(
    bot: PaperBot, recorder: Recorder
) -> None:
    hostile = "@everyone <@&123> `tick` ||spoiler|| **x** \u200bzero routing " * 60
    interaction = await run(bot, slash(bot, "ask", {"question": hostile[:4000]}))
    body = recorder.visible(interaction)[-1]
    title = body["embeds"][0]["title"]
    assert "@everyone" not in title.replace("@\u200beveryone", "")
    assert "\\|\\|spoiler\\|\\|" in title  # escaped, so Discord cannot hide it
    assert "||spoiler||" not in title
    assert len(title) <= 256
    assert body["allowed_mentions"]["parse"] == []


async def test_search_pages_and_footer(bot: PaperBot, recorder: Recorder) -> None:
    interaction = await run(bot, slash(bot, "search", {"query": QUESTION, "results": 2}))
    body = recorder.visible(interaction)[-1]
    assert labels(body) == ["First", "Prev", "1-2", "Next", "Last"]
    assert body["embeds"][0]["footer"]["text"].startswith("1-2 of 4 matching papers")
    assert len(body["embeds"][0]["fields"]) == 2


async def test_search_single_page_has_no_buttons(bot: PaperBot, recorder: Recorder) -> None:
    interaction = await run(bot, slash(bot, "search", {"query": "diffusion"}))
    body = recorder.visible(interaction)[-1]
    assert not body.get("components")


async def test_search_unknown_collection_is_an_ephemeral_error(
    bot: PaperBot, recorder: Recorder
) -> None:
    interaction = await run(bot, slash(bot, "search", {"query": "routing", "collection": "nope"}))
    sent = recorder.for_interaction(interaction)
    # public defer -> the loading message is deleted, the error is an ephemeral follow-up
    assert [s.kind for s in sent] == ["callback", "delete", "followup"]
    assert sent[-1].ephemeral
    assert "No collection is called" in sent[-1].body["content"]


async def test_paper_shows_full_abstract_links_and_buttons(
    bot: PaperBot, recorder: Recorder
) -> None:
    interaction = await run(bot, slash(bot, "paper", {"id": "ICML2026-2"}))
    sent = recorder.callbacks(interaction)
    assert len(sent) == 1 and sent[0].body["type"] == 4
    data = sent[0].body["data"]
    assert "certified filtering" in data["embeds"][0]["description"]
    assert {"Similar papers", "Save"} <= set(labels(data))
    urls = [c.get("url") for row in data["components"] for c in row["components"]]
    assert "https://example.org/project" in urls


LATEX_ABSTRACT = (
    "We propose $f$-Membership Inference Privacy ($f$-MIP), achieving linear scalability with "
    r"dimension $D$ and a \emph{tight} bound. Code is available at \url{https://github.com/a/b}."
)


async def test_paper_shows_the_abstract_as_the_terminal_does_without_latex(
    bot: PaperBot, recorder: Recorder, engine: FakeEngine
) -> None:
    paper = make_paper(7, LATEX_ABSTRACT, title=r"$\alpha$-Routing for \textsc{MoE}")
    engine.papers[paper.id] = paper
    interaction = await run(bot, slash(bot, "paper", {"id": paper.id}))
    embed = recorder.callbacks(interaction)[0].body["data"]["embeds"][0]
    shown = embed["description"]
    assert "f-Membership Inference Privacy (f-MIP)" in shown
    assert "with dimension D and a tight bound" in shown
    assert "Code is available at https://github.com/a/b." in shown
    assert not [mark for mark in ("$", "\\url", "{", "\\emph") if mark in shown]
    assert embed["title"] == "α-Routing for MoE"
    # The same words as `paperbot paper` prints: one cleaning for both shells.
    assert " ".join(shown.split()) in " ".join(render_paper(paper).split())


async def test_long_abstract_is_split_across_embeds_within_limits(
    bot: PaperBot, recorder: Recorder
) -> None:
    interaction = await run(bot, slash(bot, "paper", {"id": "icml2026-6"}))
    sent = recorder.callbacks(interaction)[0]
    embeds = sent.body["data"]["embeds"]
    assert len(embeds) >= 2
    assert sent.files and sent.files[0][0] == "icml2026-6.txt"
    assert "attached file" in embeds[-1]["description"]


async def test_paper_typed_free_text_gets_a_helpful_error(
    bot: PaperBot, recorder: Recorder
) -> None:
    interaction = await run(bot, slash(bot, "paper", {"id": "Diffusion models"}))
    sent = recorder.callbacks(interaction)
    assert len(sent) == 1 and sent[0].ephemeral
    assert "Closest: `icml2026-3`." in sent[0].body["data"]["content"]


async def test_paper_autocomplete_returns_at_most_25_short_choices(
    bot: PaperBot, recorder: Recorder, engine: FakeEngine
) -> None:
    interaction = await run(bot, slash(bot, "paper", {"id": "rout"}, focused="id"))
    sent = recorder.callbacks(interaction)
    assert sent[0].body["type"] == 8
    choices = sent[0].body["data"]["choices"]
    assert choices and all(len(c["name"]) <= 100 for c in choices)
    assert any(c["value"] == "neurips2025-5" for c in choices)


async def test_collection_autocomplete(bot: PaperBot, recorder: Recorder) -> None:
    interaction = await run(
        bot, slash(bot, "search", {"query": "x", "collection": "neur"}, focused="collection")
    )
    choices = recorder.callbacks(interaction)[0].body["data"]["choices"]
    assert [c["value"] for c in choices] == ["neurips2025"]


async def test_similar_random_collections_stats_help(bot: PaperBot, recorder: Recorder) -> None:
    similar = await run(bot, slash(bot, "similar", {"id": "icml2026-1"}))
    assert "Similar" in recorder.visible(similar)[-1]["embeds"][0]["title"]
    random = await run(bot, slash(bot, "random", {"collection": "neurips2025"}))
    assert "Expert Choice Routing" in recorder.text(random)
    collections = await run(bot, slash(bot, "collections"))
    assert "NeurIPS 2025" in recorder.text(collections)
    stats = await run(bot, slash(bot, "stats"))
    text = recorder.text(stats)
    assert (
        "Questions answered" in text and "Latency p50 / p95" in text and "3.2 ms / 9.9 ms" in text
    )
    help_ = await run(bot, slash(bot, "help"))
    assert "/ask" in recorder.text(help_)
    for interaction in (collections, stats, help_):
        assert recorder.callbacks(interaction)[0].ephemeral


async def test_help_lists_the_chat_follow_ups_and_the_server_commands(
    bot: PaperBot, recorder: Recorder
) -> None:
    """/help named no follow-up ("the second one", "more", ...) nor /watch or /shortlist."""
    interaction = await run(bot, slash(bot, "help"))
    embeds = recorder.callbacks(interaction)[0].body["data"]["embeds"]
    assert embed_problems(embeds) == []
    guide = embeds[0]["description"]
    for phrase in ("the second one", "more", "#5", "compare 1 3", "same but for iclr", "go back"):
        assert f"“{phrase}”" in guide
    assert "“does it have code?”" in guide
    for command in ("/watch query:", "/watches", "/unwatch", "/shortlist add", "/trending"):
        assert command in guide
    # One list of follow-ups: the console's guide shows each of them too.
    for examples, meaning in wording.FOLLOW_UPS:
        assert f"{' · '.join(f'“{e}”' for e in examples)} — {meaning}" in guide
        assert " / ".join(examples) in chat_console.CHAT_HELP
        assert meaning.split(" (")[0] in " ".join(chat_console.CHAT_HELP.split())


async def test_engine_failure_is_reported_once_with_a_reference(
    bot: PaperBot, recorder: Recorder, engine: FakeEngine, caplog
) -> None:
    engine.fail_with = RuntimeError("disk on fire")
    interaction = await run(bot, slash(bot, "ask", {"question": QUESTION}))
    sent = recorder.for_interaction(interaction)
    assert [s.kind for s in sent] == ["callback", "delete", "followup"]
    assert sent[-1].ephemeral
    assert "error reference" in sent[-1].body["content"]
    assert "disk on fire" not in sent[-1].body["content"]
    # logged once, at ERROR, with the original exception attached (its traceback goes to the log)
    logged = [(r.levelname, repr(r.exc_info[1])) for r in caplog.records if r.exc_info]
    assert logged == [("ERROR", "RuntimeError('disk on fire')")]


async def test_search_refuses_in_filter_together_with_the_collection_option(
    bot: PaperBot, recorder: Recorder, engine: FakeEngine
) -> None:
    asked = engine.questions
    interaction = await run(
        bot, slash(bot, "search", {"query": "routing in:iclr2024", "collection": "icml2026"})
    )
    sent = recorder.for_interaction(interaction)
    assert len(sent) == 1 and sent[0].ephemeral
    assert "not both" in sent[0].body["data"]["content"]
    assert engine.questions == asked  # nothing was searched
    ok = await run(bot, slash(bot, "search", {"query": "routing", "collection": "icml2026"}))
    assert "Search: routing" in recorder.text(ok)


async def test_stats_shows_the_cluster_next_to_this_process(
    bot: PaperBot, recorder: Recorder, engine: FakeEngine
) -> None:
    nodes = engine.nodes
    nodes.generation = 5
    nodes.rows = [
        NodeRow("me:1:0", "me", 1, "0", 5, 0.0, 0.0, 2),
        NodeRow("other:2:0", "other", 2, "1", 4, 0.0, 0.0, 3),
        NodeRow("gone:3:0", "gone", 3, "2,3", 1, 0.0, 0.0, 50),
    ]
    nodes.stale_ids = {"gone:3:0"}
    stats = await run(bot, slash(bot, "stats"))
    fields = {f["name"]: f["value"] for f in recorder.visible(stats)[-1]["embeds"][0]["fields"]}
    assert fields["Processes"] == "2 live, 1 stale"
    assert fields["Shards covered"] == "0,1"  # the stale process's shards are not covered
    # This process holds no guild in the test; the cluster total counts live processes only.
    assert fields["Guilds"] == "0 here, 5 in the cluster"
    assert fields["Corpus generation"].splitlines() == [
        "store: **5**",
        "me pid 1, shards 0: 5 (this process)",
        "other pid 2, shards 1: 4 behind",
        "gone pid 3, shards 2,3: 1 STALE",
    ]
    # Figures of this process come first, as before.
    assert list(fields)[:2] == ["Papers", "Collections"]
