"""Dialogue state over the real engine: numbering across pages, ellipsis, paging similar papers.

Two small collections ("ICLR 2024", "ICML 2024") with eight papers each on the same topics, so
"same but for icml" has something to find and "more" has pages to show.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from pathlib import Path

import pytest

from config.settings import Settings
from retrieval.conversation import PositionOutOfRange
from retrieval.conversation.chat import ChatService, Conversation, Reply, ReplyKind
from retrieval.conversation.intents import parse_message
from retrieval.conversation.model import IntentKind
from retrieval.engine import Engine
from tests.conftest import write_list

TOPICS = [
    "We study sparse mixture of experts routing with load balancing losses for transformers.",
    "Expert routing in mixture of experts models collapses; we add a router entropy bonus.",
    "Mixture of experts language models route tokens to experts; we prune idle experts.",
    "A routing benchmark for mixture of experts measures expert utilisation on GLUE, KV and Mamba.",
    "Mixture of experts for vision routes image patches to experts and improves ImageNet accuracy.",
    "Soft mixture of experts merges experts instead of routing tokens to one expert.",
    "Mixture of experts inference is memory bound; expert offloading reduces latency by 40%.",
    "Routing collapse in mixture of experts is explained by a simple token clustering model.",
]


@pytest.fixture
async def engine(tmp_path: Path, make_settings: Callable[..., Settings]) -> AsyncIterator[Engine]:
    seeds = tmp_path / "two-venues"
    seeds.mkdir()
    write_list(seeds / "iclr.txt", [f"{text} (ICLR variant.)" for text in TOPICS], "ICLR 2024")
    write_list(seeds / "icml.txt", [f"{text} (ICML variant.)" for text in TOPICS], "ICML 2024")
    opened = await Engine.open(make_settings(seeds_dir=seeds))
    try:
        yield opened
    finally:
        await opened.close()


@pytest.fixture
def chat(engine: Engine) -> ChatService:
    return ChatService(engine, engine.memory, idle_seconds=1800, page_size=3)


WHO = Conversation.of(7, 70)


def ids(reply: Reply) -> list[str]:
    return list(reply.paper_ids)


async def test_numbers_after_more_point_at_what_was_shown_with_them(chat: ChatService) -> None:
    first = await chat.handle("iclr 2024 papers on mixture of experts routing", WHO)
    page_two = await chat.handle("more", WHO)
    assert [hit.rank for hit in page_two.answer.hits] == [4, 5, 6]  # type: ignore[union-attr]
    fifth = await chat.handle("#5", WHO)
    assert ids(fifth) == [ids(page_two)[1]]
    second = await chat.handle("the second one", WHO)
    assert ids(second) == [ids(first)[1]]
    before = await chat.handle("and the one before that?", WHO)
    assert ids(before) == [ids(first)[0]]


async def test_a_number_past_the_shown_page_fetches_it(chat: ChatService) -> None:
    await chat.handle("iclr 2024 papers on mixture of experts routing", WHO)
    seventh = await chat.handle("#7", WHO)
    assert seventh.kind is ReplyKind.PAPERS and len(ids(seventh)) == 1
    ninth = await chat.handle("#9", WHO)
    assert ninth.kind is ReplyKind.PROBLEM
    assert isinstance(ninth.error, PositionOutOfRange)
    assert ninth.error.available == 8  # eight ICLR papers exist; all were fetched


async def test_more_after_a_far_number_shows_the_results_never_listed(chat: ChatService) -> None:
    first = await chat.handle("iclr 2024 papers on mixture of experts routing", WHO)
    seventh = await chat.handle("#7", WHO)  # fetches 4-7, shows only the seventh
    page_two = await chat.handle("more", WHO)
    assert [hit.rank for hit in page_two.answer.hits] == [4, 5, 6]  # type: ignore[union-attr]
    assert ids(await chat.handle("#7", WHO)) == ids(seventh)  # still the same seventh
    assert ids(await chat.handle("#2", WHO)) == [ids(first)[1]]
    page_three = await chat.handle("more", WHO)
    assert [hit.rank for hit in page_three.answer.hits] == [7, 8]  # type: ignore[union-attr]


async def test_same_but_for_another_venue_keeps_the_topic(chat: ChatService) -> None:
    first = await chat.handle("iclr 2024 papers on expert offloading latency", WHO)
    assert all(paper_id.startswith("iclr2024-") for paper_id in ids(first))
    again = await chat.handle("same but for icml", WHO)
    assert again.intent.kind is IntentKind.REFINE
    assert again.answer is not None and again.answer.question == first.answer.question  # type: ignore[union-attr]
    assert ids(again) and all(paper_id.startswith("icml2024-") for paper_id in ids(again))
    assert ids(again)[0] == "icml2024-7"  # the offloading paper, as ICLR's first was iclr2024-7
    # The answer says where it searched, by the collection's name ("· in ICML 2024").
    assert again.answer.query.collections == ("ICML 2024",)  # type: ignore[union-attr]
    assert ids(first)[0] == "iclr2024-7"


async def test_more_after_similar_pages_the_similar_papers(chat: ChatService) -> None:
    similar = await chat.handle("papers similar to iclr2024-1", WHO)
    assert similar.kind is ReplyKind.ANSWER
    more = await chat.handle("more", WHO)
    assert more.kind is ReplyKind.ANSWER
    assert [hit.rank for hit in more.answer.hits] == [4, 5, 6]  # type: ignore[union-attr]
    assert not set(ids(similar)) & set(ids(more))
    assert "iclr2024-1" not in ids(more)


async def test_more_like_it_after_similar_pages_the_similar_papers(chat: ChatService) -> None:
    similar = await chat.handle("papers similar to iclr2024-1", WHO)
    more = await chat.handle("more like it", WHO)
    assert more.kind is ReplyKind.ANSWER, more
    assert [hit.rank for hit in more.answer.hits] == [4, 5, 6]  # type: ignore[union-attr]
    assert not set(ids(similar)) & set(ids(more))


async def test_a_question_after_opening_asks_that_paper(chat: ChatService) -> None:
    await chat.handle("icml 2024 expert offloading", WHO)
    await chat.handle("the first one", WHO)
    result = await chat.handle("what's the main result?", WHO)
    assert result.kind is ReplyKind.PAPER_QUESTION
    assert ids(result) == ["icml2024-7"]
    about = result.papers[0].about
    assert about is not None and about.sentences
    assert "40%" in about.sentences[0].plain


async def test_compare_by_numbers_puts_papers_side_by_side(chat: ChatService) -> None:
    shown = await chat.handle("iclr 2024 mixture of experts routing", WHO)
    compared = await chat.handle("1 vs 2", WHO)
    assert compared.kind is ReplyKind.COMPARE
    assert ids(compared) == ids(shown)[:2]
    assert all(note.aspects is not None for note in compared.papers)


async def test_a_number_far_past_a_short_list_says_how_long_the_list_is(
    chat: ChatService,
) -> None:
    await chat.handle("iclr 2024 papers on mixture of experts routing", WHO)
    reply = await chat.handle("#60", WHO)
    assert isinstance(reply.error, PositionOutOfRange)
    assert reply.error.exhausted and reply.error.available == 8


async def test_a_reaction_in_front_of_a_request_does_not_hide_it(chat: ChatService) -> None:
    found = await chat.handle("ok cool, anything on expert offloading?", WHO)
    assert found.kind is ReplyKind.ANSWER
    assert "cool" not in found.answer.question  # type: ignore[union-attr]
    again = await chat.handle("thanks! and what about icml", WHO)
    assert again.intent.kind is IntentKind.REFINE
    assert ids(again) and all(paper_id.startswith("icml2024-") for paper_id in ids(again))


async def test_i_meant_another_venue_reruns_the_topic_there(chat: ChatService) -> None:
    first = await chat.handle("expert offloading latency in iclr 2024", WHO)
    again = await chat.handle("wait i meant icml", WHO)
    assert again.intent.kind is IntentKind.REFINE
    assert again.answer is not None and again.answer.question == first.answer.question  # type: ignore[union-attr]
    assert ids(again)[0] == "icml2024-7"


async def test_which_of_these_have_code_asks_each_shown_paper(chat: ChatService) -> None:
    first = await chat.handle("iclr 2024 mixture of experts routing", WHO)
    reply = await chat.handle("which of these have code", WHO)
    assert reply.kind is ReplyKind.PAPER_QUESTION
    assert ids(reply) == ids(first)
    assert all(note.about is not None for note in reply.papers)


async def test_after_a_compare_which_questions_weigh_the_compared_papers(
    chat: ChatService,
) -> None:
    await chat.handle("iclr 2024 mixture of experts routing", WHO)
    compared = await chat.handle("compare 1 and 3", WHO)
    better = await chat.handle("which is better?", WHO)
    assert better.kind is ReplyKind.PAPER_QUESTION
    assert ids(better) == ids(compared)
    code = await chat.handle("which one has code?", WHO)
    assert code.kind is ReplyKind.PAPER_QUESTION and ids(code) == ids(compared)
    search = await chat.handle("which papers use imagenet", WHO)
    assert search.kind is ReplyKind.ANSWER


async def test_taking_back_a_question_searches_only_the_new_one(chat: ChatService) -> None:
    await chat.handle("iclr 2024 mixture of experts routing", WHO)
    for message in (
        "never mind, I meant expert offloading latency",
        "scratch that - expert offloading latency",
        "actually forget that, expert offloading latency",
    ):
        reply = await chat.handle(message, WHO)
        assert reply.kind is ReplyKind.ANSWER, message
        assert reply.answer is not None and reply.answer.question == "expert offloading latency"
    switched = await chat.handle("no wait, make it icml", WHO)
    assert switched.intent.kind is IntentKind.REFINE
    assert ids(switched)[0] == "icml2024-7"


async def test_go_back_from_a_paper_of_the_only_list_shows_that_list(chat: ChatService) -> None:
    first = await chat.handle("iclr 2024 mixture of experts routing", WHO)
    await chat.handle("the second one", WHO)
    back = await chat.handle("go back", WHO)
    assert back.kind is ReplyKind.ANSWER and ids(back) == ids(first)


async def test_a_doubted_search_that_finds_its_words_becomes_the_list(chat: ChatService) -> None:
    await chat.handle("iclr 2024 mixture of experts routing", WHO)
    # A single rare word is a search the classifier is unsure of; papers hold it, so the
    # numbers now point into what was shown. Which rare word the shipped model doubts changes
    # with each refit: the first of the fixture's that it reads as a doubted search.
    doubted = [
        word
        for word in ("kv", "mamba", "glue", "idle", "accuracy")
        if (read := parse_message(word, [])).kind is IntentKind.SEARCH and read.confidence < 0.5
    ]
    assert doubted, "no fixture word is a doubted search under this model: add one"
    rare = await chat.handle(doubted[0], WHO)
    assert rare.intent.kind is IntentKind.SEARCH
    second = await chat.handle("the first one", WHO)
    assert ids(second) == [ids(rare)[0]]
