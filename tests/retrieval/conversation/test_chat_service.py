"""The chat service over the real engine and store: intents, memory, replies, expiry."""

from __future__ import annotations

import asyncio
import functools
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from pathlib import Path
from typing import Any

import pytest

from config.settings import Settings
from retrieval.conversation import IntentKind, NoPaperInFocus, NoRecentAnswer, PositionOutOfRange
from retrieval.conversation.chat import ChatService, Conversation, Reply, ReplyKind
from retrieval.conversation.errors import (
    NoAuthorSearch,
    NoEarlierList,
    NoMoreResults,
    NumberedFromOne,
)
from retrieval.engine import Engine
from retrieval.errors import CollectionNotFound, PaperNotFound
from tests.conftest import write_list

IDLE = 30 * 60.0


class Clock:
    def __init__(self) -> None:
        self.now = 1_000_000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def chat(fixture_engine: Engine, clock: Clock) -> ChatService:
    return ChatService(
        fixture_engine, fixture_engine.memory, idle_seconds=IDLE, page_size=2, clock=clock
    )


ALICE = Conversation.of(1, 10)
BOB = Conversation.of(2, 10)


# One paper on mixture-of-experts routing in each of two collections.
TWO_LISTS = {
    "ICML 2026": ["Expert routing in sparse mixture of experts models."],
    "ICLR 2024": ["Mixture of experts routing with load balancing."],
}


@asynccontextmanager
async def _chat_over(
    tmp_path: Path,
    make_settings: Callable[..., Settings],
    clock: Clock,
    lists: dict[str, list[str]],
    page_size: int = 3,
) -> AsyncIterator[ChatService]:
    """A chat over an engine whose only lists are `lists` (collection name -> abstracts)."""
    seeds = tmp_path / "lists"
    seeds.mkdir()
    for number, (collection, abstracts) in enumerate(lists.items()):
        write_list(seeds / f"{number}.txt", abstracts, collection)
    async with await Engine.open(make_settings(seeds_dir=seeds)) as engine:
        yield ChatService(
            engine, engine.memory, idle_seconds=IDLE, page_size=page_size, clock=clock
        )


Over = Callable[..., AbstractAsyncContextManager[ChatService]]


@pytest.fixture
def over(tmp_path: Path, make_settings: Callable[..., Settings], clock: Clock) -> Over:
    """`async with over(lists, page_size=3) as chat`: a chat over only these lists."""
    return functools.partial(_chat_over, tmp_path, make_settings, clock)


# A paper that coins a name (ZORB) and one other.
ZORB_LIST = {
    "ICML 2026": [
        "We propose ZORB, a routing method for sparse experts. ZORB balances load.",
        "Sorting on graphs.",
    ]
}


def ids(reply: Reply) -> list[str]:
    return list(reply.paper_ids)


async def test_small_talk_and_help_never_search(chat: ChatService) -> None:
    for text, kind in (
        ("hi", ReplyKind.GREETING),
        ("thanks!", ReplyKind.THANKS),
        ("help", ReplyKind.HELP),
        ("?", ReplyKind.HELP),
    ):
        reply = await chat.handle(text, ALICE)
        assert reply.kind is kind
        assert reply.answer is None and reply.papers == ()


async def test_how_does_this_work_is_help_until_a_paper_is_open(chat: ChatService) -> None:
    # The classifier reads it as either; with no paper open it can only be about the bot.
    assert (await chat.handle("how does this work?", ALICE)).kind is ReplyKind.HELP
    first = await chat.handle("mixture of experts routing", ALICE)
    await chat.handle("the first one", ALICE)
    asked = await chat.handle("how does this work?", ALICE)
    assert asked.kind is ReplyKind.PAPER_QUESTION
    assert ids(asked) == [ids(first)[0]]


async def test_an_unknown_word_beside_papers_is_searched_when_papers_hold_it(over: Over) -> None:
    lists = {"ICML 2026": ["We introduce Zorblax, an annealing schedule.", "Sorting on graphs."]}
    async with over(lists) as chat:
        reply = await chat.handle("Zorblax papers", ALICE)
        assert reply.kind is ReplyKind.ANSWER, reply.intent
        assert ids(reply)[0] == "icml2026-1"


@pytest.mark.parametrize(
    "text", ["any papers on mixture of experts routing?", "anything on expert routing?"]
)
async def test_asking_for_papers_with_one_open_is_a_new_search(
    chat: ChatService, text: str
) -> None:
    # The open paper's own words do not make "any papers on ...?" a question about it.
    await chat.handle("mixture of experts routing", ALICE)
    await chat.handle("the first one", ALICE)
    reply = await chat.handle(text, ALICE)
    assert reply.kind is ReplyKind.ANSWER, reply.intent


async def test_follow_ups_are_told_from_new_searches(chat: ChatService) -> None:
    for text in ("the second one", "more", "does it have code?", "compare 1 and 2", "thanks"):
        assert await chat.is_follow_up(text), text
    for text in ("mixture of experts routing", "same but for iclr", "similar to 2", "  "):
        assert not await chat.is_follow_up(text), text


async def test_a_question_naming_no_paper_is_a_follow_up_only_with_a_paper_open(
    chat: ChatService,
) -> None:
    # "routing?" with nothing open is searched (handle), so it spends the question quota.
    asked = "what's the main result?"
    assert not await chat.is_follow_up(asked, ALICE)
    await chat.handle("mixture of experts routing", ALICE)
    await chat.handle("the first one", ALICE)
    assert await chat.is_follow_up(asked, ALICE)
    assert await chat.is_follow_up("does the second one have code?", BOB)


async def test_a_follow_up_by_position_opens_that_result(chat: ChatService) -> None:
    first = await chat.handle("mixture of experts routing", ALICE)
    assert first.kind is ReplyKind.ANSWER and len(ids(first)) == 2
    second = await chat.handle("the second one", ALICE)
    assert second.kind is ReplyKind.PAPERS
    assert ids(second) == [ids(first)[1]]
    # "it" now means the paper just opened.
    code = await chat.handle("does it have code?", ALICE)
    assert code.kind is ReplyKind.PAPER_QUESTION and code.intent.wants_code
    assert ids(code) == [ids(first)[1]]


@pytest.mark.parametrize(
    "question", ["the second one, does it have code?", "2, does it have code?", "2: any code?"]
)
async def test_a_question_naming_a_result_then_it_is_about_that_result(
    chat: ChatService, question: str
) -> None:
    first = await chat.handle("mixture of experts routing", ALICE)
    reply = await chat.handle(question, ALICE)
    assert reply.kind is ReplyKind.PAPER_QUESTION and reply.intent.wants_code
    assert ids(reply) == [ids(first)[1]]


@pytest.mark.parametrize("refine", ["same but for iclr", "same for neurips 2023"])
async def test_a_refine_to_a_venue_not_loaded_says_so_and_keeps_the_list(
    chat: ChatService, refine: str
) -> None:
    first = await chat.handle("mixture of experts routing", ALICE)
    reply = await chat.handle(refine, ALICE)
    assert reply.kind is ReplyKind.PROBLEM and isinstance(reply.error, CollectionNotFound)
    assert reply.answer is None
    second = await chat.handle("the second one", ALICE)
    assert ids(second) == [ids(first)[1]]


async def test_a_position_past_the_end_says_how_many_there_were(chat: ChatService) -> None:
    await chat.handle("mixture of experts routing", ALICE)
    reply = await chat.handle("the ninth one", ALICE)
    assert reply.kind is ReplyKind.PROBLEM
    assert isinstance(reply.error, PositionOutOfRange)
    assert (reply.error.wanted, reply.error.available) == (9, 2)


async def test_memory_expires_and_is_never_used_silently(chat: ChatService, clock: Clock) -> None:
    await chat.handle("mixture of experts routing", ALICE)
    clock.now += IDLE + 1
    reply = await chat.handle("the second one", ALICE)
    assert reply.kind is ReplyKind.PROBLEM
    assert isinstance(reply.error, NoRecentAnswer) and reply.error.stale


async def test_with_no_answer_yet_a_position_is_a_problem(chat: ChatService) -> None:
    reply = await chat.handle("the second one", ALICE)
    assert isinstance(reply.error, NoRecentAnswer) and not reply.error.stale


async def test_memory_is_per_conversation(chat: ChatService) -> None:
    await chat.handle("mixture of experts routing", ALICE)
    bob = await chat.handle("the second one", Conversation.of(2, 10))
    same_user_other_channel = await chat.handle("the second one", Conversation.of(1, 11))
    assert isinstance(bob.error, NoRecentAnswer)
    assert isinstance(same_user_other_channel.error, NoRecentAnswer)


async def test_a_reply_resolves_against_the_message_it_replies_to(chat: ChatService) -> None:
    old = await chat.handle("diffusion sampler denoising", ALICE)
    await chat.remember_sent(555, ALICE, old)
    new = await chat.handle("graph networks oversmoothing", ALICE)
    assert ids(new)[0] != ids(old)[0]
    plain = await chat.handle("the first one", ALICE)
    assert ids(plain) == [ids(new)[0]]
    by_reply = await chat.handle("the first one", ALICE, reply_to=555)
    assert ids(by_reply) == [ids(old)[0]]
    # The conversation now continues from the answer replied to.
    assert ids(await chat.handle("it", ALICE)) == [ids(old)[0]]


async def test_a_reply_to_an_old_answer_still_resolves(chat: ChatService, clock: Clock) -> None:
    old = await chat.handle("diffusion sampler denoising", ALICE)
    await chat.remember_sent(556, ALICE, old)
    clock.now += 10 * IDLE
    reply = await chat.handle("the first one", ALICE, reply_to=556)
    assert ids(reply) == [ids(old)[0]]


async def test_memory_survives_a_restart(
    fixture_seeds: Path, make_settings: Callable[..., Settings], clock: Clock
) -> None:
    settings = make_settings(seeds_dir=fixture_seeds)
    async with await Engine.open(settings) as engine:
        chat = ChatService(engine, engine.memory, idle_seconds=IDLE, page_size=3, clock=clock)
        first = await chat.handle("mixture of experts routing", ALICE)
    async with await Engine.open(settings) as engine:
        chat = ChatService(engine, engine.memory, idle_seconds=IDLE, page_size=3, clock=clock)
        again = await chat.handle("number 2", ALICE)
    assert ids(again) == [ids(first)[1]]


async def test_more_continues_the_last_results(chat: ChatService) -> None:
    first = await chat.handle("routing networks experts", ALICE)
    more = await chat.handle("more", ALICE)
    assert more.kind is ReplyKind.ANSWER and more.answer is not None
    assert more.answer.hits[0].rank == 3
    assert not set(ids(first)) & set(ids(more))


async def test_similar_and_compare_by_position(chat: ChatService) -> None:
    first = await chat.handle("mixture of experts routing", ALICE)
    similar = await chat.handle("more like the first one", ALICE)
    assert similar.kind is ReplyKind.ANSWER
    assert ids(first)[0] not in ids(similar)
    await chat.handle("mixture of experts routing", ALICE)
    compared = await chat.handle("compare the first two", ALICE)
    assert compared.kind is ReplyKind.COMPARE
    assert ids(compared) == ids(first)[:2]
    # The last question's words pick each paper's sentence.
    assert compared.papers[0].sentence is not None


async def test_an_id_opens_that_paper_and_a_missing_one_names_real_ids(
    chat: ChatService,
) -> None:
    reply = await chat.handle("paper FIXTURE2026-03", ALICE)
    assert reply.kind is ReplyKind.PAPERS and ids(reply) == ["fixture2026-3"]
    missing = await chat.handle("fixture2026-999", ALICE)
    assert missing.kind is ReplyKind.PROBLEM
    assert isinstance(missing.error, PaperNotFound)
    assert missing.error.closest[0] == "fixture2026-6"


async def test_it_after_several_results_asks_which_one(chat: ChatService) -> None:
    await chat.handle("routing", ALICE)
    reply = await chat.handle("does it have code?", ALICE)
    assert isinstance(reply.error, NoPaperInFocus)


async def test_open_it_right_after_a_list_opens_its_first_paper(chat: ChatService) -> None:
    listed = await chat.handle("routing", ALICE)
    assert listed.answer is not None and len(listed.answer.hits) >= 2
    opened = await chat.handle("open it", ALICE)
    assert opened.kind is ReplyKind.PAPERS
    assert ids(opened) == [listed.answer.hits[0].paper.id]
    # Once a paper is open, "it" is that paper, not the list's first.
    await chat.handle("open the second one", ALICE)
    again = await chat.handle("open it", ALICE)
    assert ids(again) == [listed.answer.hits[1].paper.id]


async def test_a_collection_named_in_words_filters(over: Over) -> None:
    async with over(TWO_LISTS) as chat:
        everywhere = await chat.handle("mixture of experts routing", ALICE)
        iclr = await chat.handle("what did ICLR 2024 publish on mixture of experts routing?", ALICE)
        unknown = await chat.handle("ICML 2019 papers about mixture of experts routing", ALICE)
        bare = await chat.handle("neurips papers about mixture of experts routing", ALICE)
        await chat.handle("mixture of experts routing", ALICE)
        by_year = await chat.handle("2024 papers only", ALICE)
    assert len(ids(everywhere)) == 2
    assert ids(iclr) == ["iclr2024-1"]
    assert unknown.unknown_collection == "ICML 2019" and len(ids(unknown)) == 2
    assert bare.unknown_collection == "NeurIPS" and len(ids(bare)) == 2
    assert by_year.intent.kind is IntentKind.REFINE and ids(by_year) == ["iclr2024-1"]


async def test_a_collection_after_papers_like_one_filters_those_papers(over: Over) -> None:
    async with over(
        {
            "ICML 2026": [
                "Expert routing in sparse mixture of experts models.",
                "Routing tokens to experts in a sparse mixture with capacity limits.",
            ],
            "ICLR 2024": [
                "Mixture of experts routing with load balancing for sparse experts.",
                "Sparse expert routing at scale.",
                "Load balancing losses for experts.",
            ],
        },
        page_size=4,
    ) as chat:
        await chat.handle("icml2026-1", ALICE)
        like = await chat.handle("more like it", ALICE)
        iclr = await chat.handle("iclr 24 only", ALICE)
    assert like.intent.kind is IntentKind.SIMILAR and "icml2026-2" in ids(like)
    assert iclr.kind is ReplyKind.ANSWER and iclr.intent.kind is IntentKind.REFINE
    assert ids(iclr) and all(paper.startswith("iclr2024-") for paper in ids(iclr))
    assert set(ids(iclr)) == {paper for paper in ids(like) if paper.startswith("iclr2024-")}


async def test_more_after_the_last_result_says_that_was_all(over: Over) -> None:
    async with over(
        {
            "ICML 2026": [
                "Expert routing in sparse mixture of experts models.",
                "Sorting on graphs.",
            ]
        },
    ) as chat:
        first = await chat.handle("mixture of experts routing", ALICE)
        more = await chat.handle("more", ALICE)
        opened = await chat.handle("the first one", ALICE)
    assert ids(first) == ["icml2026-1"]
    assert more.kind is ReplyKind.PROBLEM and isinstance(more.error, NoMoreResults)
    assert more.error.total == 1
    assert ids(opened) == ["icml2026-1"]  # the list is still there


async def test_help_words_around_a_paper_id_ask_about_that_paper(chat: ChatService) -> None:
    paper = ids(await chat.handle("mixture of experts routing", ALICE))[1]
    reply = await chat.handle(f"can you summarize {paper} for me", ALICE)
    assert reply.kind is ReplyKind.PAPER_QUESTION
    assert ids(reply) == [paper]


async def test_a_name_the_open_paper_coined_is_asked_about_it_not_chatted(over: Over) -> None:
    async with over(ZORB_LIST) as chat:
        await chat.handle("icml2026-1", ALICE)
        asked = await chat.handle("what's ZORB", ALICE)
        chatted = await chat.handle("lol nice", ALICE)
    assert asked.kind is ReplyKind.PAPER_QUESTION and ids(asked) == ["icml2026-1"]
    assert chatted.kind is ReplyKind.SMALL_TALK


# -- issue 24: what a newcomer found -----------------------------------------------------------


async def test_a_refine_with_a_topic_of_its_own_is_a_new_search(over: Over) -> None:
    async with over(
        {
            "ICML 2026": [
                "Expert routing in sparse mixture of experts models.",
                "Graph neural networks for molecules and drug discovery.",
            ],
            "ICLR 2024": [
                "Mixture of experts routing with load balancing.",
                "Graph neural networks for molecules: property prediction.",
                "Graph neural networks against oversmoothing in citation graphs.",
            ],
        },
    ) as chat:
        await chat.handle("mixture of experts routing", ALICE)
        new_topic = await chat.handle(
            "graph neural networks from iclr 2024 but not about molecules", ALICE
        )
        again = await chat.handle("mixture of experts routing", ALICE)
        same_topic = await chat.handle("same but for iclr 2024", ALICE)
    assert new_topic.intent.kind is IntentKind.SEARCH
    assert new_topic.answer is not None and "graph" in new_topic.answer.question
    # Only the ICLR paper about graphs that does not mention molecules.
    assert ids(new_topic) == ["iclr2024-3"]
    assert len(ids(again)) == 2
    assert same_topic.intent.kind is IntentKind.REFINE and ids(same_topic) == ["iclr2024-1"]


async def test_a_bare_venue_reruns_the_last_question_there_or_is_searched(over: Over) -> None:
    async with over(TWO_LISTS) as chat:
        cold = await chat.handle("iclr", ALICE)  # nothing to rerun: what was typed is searched
        await chat.handle("mixture of experts routing", ALICE)
        there = await chat.handle("iclr", ALICE)
    assert cold.intent.kind is IntentKind.SEARCH and cold.kind is ReplyKind.ANSWER
    assert there.intent.kind is IntentKind.REFINE and there.intent.collection == "iclr2024"
    assert ids(there) == ["iclr2024-1"]


async def test_a_question_naming_no_paper_with_none_in_focus_is_searched(
    chat: ChatService,
) -> None:
    cold = await chat.handle("what is the weather in paris", ALICE)
    assert cold.kind is not ReplyKind.PROBLEM
    await chat.handle("routing", ALICE)  # two results, none in focus
    reply = await chat.handle("what is the weather in paris", ALICE)
    assert reply.kind is ReplyKind.ANSWER and reply.answer is not None, reply.error
    # A question that does point at a paper still asks which one.
    pointed = await chat.handle("does it have code?", ALICE)
    assert isinstance(pointed.error, NoPaperInFocus)


async def test_a_misspelt_search_is_corrected_once_not_again_on_more(chat: ChatService) -> None:
    first = await chat.handle("routing netwroks experts", ALICE)
    assert first.corrected == (("netwroks", "networks"),)
    assert first.answer is not None and "networks" in first.answer.question
    assert first.answer.corrections == ()
    more = await chat.handle("more", ALICE)
    assert more.answer is not None and more.answer.hits[0].rank == 3
    assert more.corrected == () and more.answer.corrections == ()


async def test_the_focus_survives_more_and_the_one_before_is_relative_to_it(
    chat: ChatService,
) -> None:
    first = await chat.handle("routing networks experts", ALICE)
    opened = await chat.handle("the second one", ALICE)
    assert ids(opened) == [ids(first)[1]]
    more = await chat.handle("more", ALICE)
    assert more.state is not None and more.state.focus == ids(first)[1]
    like = await chat.handle("more like it", ALICE)
    assert like.kind is ReplyKind.ANSWER and like.intent.kind is IntentKind.SIMILAR
    assert like.answer is not None and ids(first)[1] in like.answer.question
    await chat.handle("routing networks experts", ALICE)
    await chat.handle("more", ALICE)
    third = await chat.handle("#3", ALICE)
    before = await chat.handle("the one before that", ALICE)
    assert ids(before) == [ids(first)[1]] and ids(third) != ids(before)


async def test_number_zero_says_numbering_starts_at_one(chat: ChatService) -> None:
    await chat.handle("routing", ALICE)
    for text in ("#0", "0", "compare #0 and #1"):
        reply = await chat.handle(text, ALICE)
        assert reply.kind is ReplyKind.PROBLEM, text
        assert isinstance(reply.error, NumberedFromOne), text


async def test_goodbye_is_a_farewell(chat: ChatService) -> None:
    for text in ("bye", "goodbye!", "ok bye", "thanks, bye", "see you later"):
        reply = await chat.handle(text, ALICE)
        assert reply.intent.farewell, text
        assert reply.answer is None and reply.papers == ()
    assert not (await chat.handle("later layers of transformers", ALICE)).intent.farewell


async def test_what_an_opened_paper_is_about_is_a_short_summary(chat: ChatService) -> None:
    first = await chat.handle("mixture of experts routing", ALICE)
    await chat.handle("the first one", ALICE)
    for question in ("what is it about?", "tl;dr", "summarize it"):
        reply = await chat.handle(question, ALICE)
        assert reply.kind is ReplyKind.PAPER_QUESTION, question
        assert ids(reply) == [ids(first)[0]]
        about = reply.papers[0].about
        assert about is not None and about.question_type.value == "summary"
        assert 1 <= len(about.sentences) <= 3


async def test_summarize_a_result_by_its_number(chat: ChatService) -> None:
    first = await chat.handle("mixture of experts routing", ALICE)
    for question, wanted in (("summarize 2", 1), ("tl;dr of 1", 0)):
        reply = await chat.handle(question, ALICE)
        assert reply.kind is ReplyKind.PAPER_QUESTION, question
        assert ids(reply) == [ids(first)[wanted]]
        about = reply.papers[0].about
        assert about is not None and about.question_type.value == "summary"


ROUTING_LIST = {
    "ICML 2026": [
        "Expert routing in sparse mixture of experts models.",
        "Routing tokens to experts with load balancing.",
        "Mixture of experts for language models with routing.",
        "Experts routing in vision mixture models.",
        "Sorting networks on graphs.",
        "Graph sorting with attention.",
    ]
}


async def test_a_list_length_lists_that_many_from_the_top_and_numbers_follow_it(
    over: Over,
) -> None:
    async with over(ROUTING_LIST, page_size=2) as chat:
        first = await chat.handle("experts routing", ALICE)
        longer = await chat.handle("show me 10 results", ALICE)
        fourth = await chat.handle("the 4th", ALICE)
    assert len(ids(first)) == 2
    assert longer.kind is ReplyKind.ANSWER and longer.intent.kind is IntentKind.MORE
    assert longer.answer is not None and longer.answer.hits[0].rank == 1
    assert ids(longer)[:2] == ids(first) and len(ids(longer)) == 4  # every routing paper
    assert ids(fourth) == [ids(longer)[3]]


async def test_n_more_goes_on_where_the_list_stopped(over: Over) -> None:
    async with over(ROUTING_LIST, page_size=1) as chat:
        first = await chat.handle("experts routing", ALICE)
        more = await chat.handle("give me 2 more", ALICE)
    assert more.answer is not None and more.answer.hits[0].rank == 2
    assert len(ids(more)) == 2 and ids(first)[0] not in ids(more)


async def test_go_back_shows_the_list_before_and_twice_returns(over: Over) -> None:
    async with over(ROUTING_LIST, page_size=2) as chat:
        routing = await chat.handle("experts routing", ALICE)
        sorting = await chat.handle("sorting graphs", ALICE)
        opened = await chat.handle("the first one", ALICE)  # opening keeps the list
        back = await chat.handle("go back to the previous list", ALICE)
        second = await chat.handle("the second one", ALICE)
        again = await chat.handle("go back", ALICE)
    assert opened.kind is ReplyKind.PAPERS
    assert back.kind is ReplyKind.ANSWER and ids(back) == ids(routing)
    assert ids(second) == [ids(routing)[1]]  # numbers point into the list shown again
    assert ids(again) == ids(sorting)


async def test_go_back_with_no_earlier_list_says_so(chat: ChatService) -> None:
    await chat.handle("mixture of experts routing", ALICE)
    reply = await chat.handle("go back", ALICE)
    assert reply.kind is ReplyKind.PROBLEM and isinstance(reply.error, NoEarlierList)


async def test_they_after_a_comparison_asks_about_both_papers(chat: ChatService) -> None:
    shown = ids(await chat.handle("mixture of experts routing", ALICE))
    await chat.handle("compare 1 and 2", ALICE)
    both = await chat.handle("what do they propose?", ALICE)
    await chat.handle("the first one", ALICE)
    one = await chat.handle("what do they propose?", ALICE)
    assert both.kind is ReplyKind.PAPER_QUESTION and ids(both) == shown[:2]
    assert ids(one) == shown[:1]  # opening one paper ends the pair


async def test_which_is_better_after_a_comparison_weighs_the_same_papers(
    chat: ChatService,
) -> None:
    shown = ids(await chat.handle("routing networks experts", ALICE))
    shown += ids(await chat.handle("more", ALICE))
    assert len(shown) >= 3  # "them" is not the whole list
    await chat.handle("1 vs 2", ALICE)
    for text in ("which one is better", "whats the differnce between them"):
        again = await chat.handle(text, ALICE)
        assert again.kind is ReplyKind.COMPARE and ids(again) == shown[:2], text


async def test_a_question_after_opening_several_papers_asks_each_of_them(
    chat: ChatService,
) -> None:
    shown = ids(await chat.handle("routing networks experts", ALICE))
    await chat.handle("the first two", ALICE)
    asked = await chat.handle("what problem does it solve?", ALICE)
    assert asked.kind is ReplyKind.PAPER_QUESTION and ids(asked) == shown[:2]


async def test_asking_for_a_summary_with_nothing_open_asks_which_paper(
    chat: ChatService,
) -> None:
    for text in ("can you summarize it?", "tldr?"):
        reply = await chat.handle(text, ALICE)
        assert reply.kind is ReplyKind.PROBLEM, text  # "Which paper?", not the guide
    assert (await chat.handle("can you summarize papers?", ALICE)).kind is ReplyKind.HELP
    await chat.handle("routing networks experts", ALICE)
    opened = await chat.handle("the first one", ALICE)
    summary = await chat.handle("can you summarize it?", ALICE)
    assert summary.kind is ReplyKind.PAPER_QUESTION and ids(summary) == ids(opened)


class SlowAsk:
    """The engine, with `ask` held until `release` is set: a first question still being
    answered when the follow-up arrives (the cold start a newcomer hit in Discord)."""

    def __init__(self, engine: Engine) -> None:
        self._engine = engine
        self.release = asyncio.Event()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._engine, name)

    async def ask(self, *args: Any, **kwargs: Any) -> Any:
        await self.release.wait()
        return await self._engine.ask(*args, **kwargs)


async def test_a_follow_up_waits_for_the_answer_before_it(
    fixture_engine: Engine, clock: Clock
) -> None:
    slow = SlowAsk(fixture_engine)
    chat = ChatService(slow, fixture_engine.memory, idle_seconds=IDLE, page_size=2, clock=clock)
    question = asyncio.create_task(chat.handle("mixture of experts routing", ALICE))
    follow_up = asyncio.create_task(chat.handle("the first one", ALICE))
    other_user = await chat.handle("hi", Conversation.of(2, 10))  # not held up by Alice
    await asyncio.sleep(0)
    assert not follow_up.done()
    slow.release.set()
    first, opened = await question, await follow_up
    assert other_user.kind is ReplyKind.GREETING
    assert opened.kind is ReplyKind.PAPERS and ids(opened) == ids(first)[:1]


async def test_a_paper_question_with_no_paper_asks_which_rather_than_searching(
    chat: ChatService,
) -> None:
    result = await chat.handle("whats the main result?", ALICE)
    topic = await chat.handle("what is the weather in paris", ALICE)
    assert result.kind is ReplyKind.PROBLEM and isinstance(result.error, NoRecentAnswer)
    assert topic.kind is ReplyKind.ANSWER  # a question that may be a topic is still searched


async def test_yes_to_did_you_mean_searches_the_suggestion(over: Over) -> None:
    lists = {"ICML 2026": ["Hallucination detection in language models.", "Sorting graphs."]}
    async with over(lists) as chat:
        empty = await chat.handle("hallucinaton", ALICE)
        yes = await chat.handle("yes", ALICE)
        again = await chat.handle("yes", ALICE)  # the suggestion was taken: chit-chat again
    assert empty.answer is not None and empty.answer.empty and empty.answer.suggestion
    assert yes.kind is ReplyKind.ANSWER and ids(yes) == ["icml2026-1"]
    assert again.kind is ReplyKind.SMALL_TALK


async def test_a_number_past_a_short_list_is_answered_with_its_length(
    chat: ChatService,
) -> None:
    first = await chat.handle("mixture of experts routing", ALICE)
    far = await chat.handle("compare 2 and 99", ALICE)
    assert far.kind is ReplyKind.PROBLEM and isinstance(far.error, PositionOutOfRange)
    assert first.answer is not None and first.answer.total < 99
    # The list was read up to its end, not just the two shown: "there were only N".
    assert far.error.exhausted and far.error.available == first.answer.total


async def test_a_code_question_is_answered_by_code_links_not_the_paper_page(over: Over) -> None:
    page = "https://openreview.net/forum?id=abc123"
    lists = {
        "ICML 2026": [
            f"We propose RouteX for expert routing. Reviews: {page}",
            "We propose CodeY for expert routing. Code: https://github.com/example/codey",
        ]
    }
    async with over(lists) as chat:
        await chat.handle("icml2026-1", ALICE)
        none = await chat.handle("does it have code?", ALICE)
        await chat.handle("icml2026-2", ALICE)
        some = await chat.handle("does it have code?", ALICE)
    about_none, about_some = none.papers[0].about, some.papers[0].about
    assert about_none is not None and about_some is not None
    assert about_none.statement == "No code or project link appears in it."
    assert about_some.statement == "Code: https://github.com/example/codey"


async def test_similar_papers_in_a_named_collection(over: Over) -> None:
    others = ["Sorting networks on graphs.", "Protein folding with diffusion.", "Image denoising."]
    async with over(TWO_LISTS | {"ICML 2026": [*TWO_LISTS["ICML 2026"], *others]}) as chat:
        first = await chat.handle("sparse expert routing", ALICE)
        like = await chat.handle("similar to #1 but only iclr", ALICE)
    assert ids(first)[0] == "icml2026-1"
    assert like.intent.kind is IntentKind.SIMILAR and like.intent.collection == "iclr2024"
    assert ids(like) and all(paper.startswith("iclr2024-") for paper in ids(like))


async def test_a_records_own_zero_padded_id_opens_that_record(
    tmp_path: Path, fixture_engine: Engine, clock: Clock
) -> None:
    records = tmp_path / "conf2023.jsonl"
    records.write_text(
        "".join(
            f'{{"doc_id": "conf2023-{n:05d}", "abstract": "Paper {n} about topic {n}."}}\n'
            for n in range(3)
        ),
        encoding="utf-8",
    )
    await fixture_engine.ingest([records])
    chat = ChatService(
        fixture_engine, fixture_engine.memory, idle_seconds=IDLE, page_size=3, clock=clock
    )
    # The record "conf2023-00001" is the second line, paperbot's conf2023-2, not conf2023-1.
    reply = await chat.handle("open conf2023-00001", ALICE)
    assert ids(reply) == ["conf2023-2"]
    plain = await chat.handle("conf2023-1", ALICE)
    assert ids(plain) == ["conf2023-1"]


async def test_a_question_pointing_at_the_open_paper_is_about_it(over: Over) -> None:
    # "this", "their" speak of the open paper even when no word of the question is the
    # abstract's; a search for other papers stays a search.
    async with over(ZORB_LIST) as chat:
        await chat.handle("icml2026-1", ALICE)
        hard = await chat.handle("why is this hard in the first place", ALICE)
        await chat.handle("icml2026-1", ALICE)
        argued = await chat.handle("what's their main argument about empirical ML research", ALICE)
        await chat.handle("icml2026-1", ALICE)
        code = await chat.handle("where can I get the code", ALICE)
        await chat.handle("icml2026-1", ALICE)
        searched = await chat.handle("any papers on sorting on graphs?", ALICE)
    assert code.kind is ReplyKind.PAPER_QUESTION and ids(code) == ["icml2026-1"]
    assert hard.kind is ReplyKind.PAPER_QUESTION and ids(hard) == ["icml2026-1"]
    assert argued.kind is ReplyKind.PAPER_QUESTION and ids(argued) == ["icml2026-1"]
    assert searched.kind is ReplyKind.ANSWER


async def test_papers_by_a_person_say_authors_are_not_searched(chat: ChatService) -> None:
    first = await chat.handle("mixture of experts routing", ALICE)
    reply = await chat.handle("papers by Tri Dao", ALICE)
    assert reply.kind is ReplyKind.PROBLEM and isinstance(reply.error, NoAuthorSearch)
    assert reply.error.name == "tri dao"
    again = await chat.handle("the first one", ALICE)  # the list was not replaced
    assert ids(again) == [ids(first)[0]]
    topic = await chat.handle("work by hinton on capsules", ALICE)
    assert topic.kind is ReplyKind.ANSWER


async def test_a_bare_topic_read_as_chit_chat_is_searched_when_papers_hold_it(
    over: Over,
) -> None:
    lists = {
        "ICML 2026": [
            "Reward hacking in RLHF: policies exploit reward models.",
            "Weather forecasting with neural operators.",
            "Sorting graphs quickly.",
        ]
    }
    async with over(lists) as chat:
        hacking = await chat.handle("reward hacking", ALICE)
        weather = await chat.handle("weather forecasting", ALICE)
        reaction = await chat.handle("ok these are better", ALICE)
        chatter = await chat.handle("nice weather today", ALICE)
    assert hacking.kind is ReplyKind.ANSWER and ids(hacking)[0] == "icml2026-1"
    assert weather.kind is ReplyKind.ANSWER and ids(weather)[0] == "icml2026-2"
    assert reaction.kind is ReplyKind.SMALL_TALK
    assert chatter.kind is ReplyKind.SMALL_TALK  # no paper holds all three words


async def test_a_word_no_paper_of_the_filtered_collection_holds_is_named(over: Over) -> None:
    lists = {
        "ICML 2026": ["Mamba is a selective state space model."],
        "ICLR 2024": ["State space models for audio generation.", "Sorting graphs quickly."],
    }
    async with over(lists) as chat:
        reply = await chat.handle("state space models like mamba in iclr", ALICE)
        everywhere = await chat.handle("state space models like mamba", ALICE)
    assert reply.answer is not None and reply.answer.absent_here == ("mamba",)
    assert ids(reply)[0] == "iclr2024-1"
    assert everywhere.answer is not None and everywhere.answer.absent_here == ()


async def test_a_number_past_the_reach_of_a_long_list_says_how_far_numbers_go(
    over: Over,
) -> None:
    lists = {"ICML 2026": [f"Expert routing study number {n} of sixty." for n in range(60)]}
    async with over(lists) as chat:
        await chat.handle("expert routing", ALICE)
        far = await chat.handle("#55", ALICE)
        near = await chat.handle("#9", ALICE)
    assert isinstance(far.error, PositionOutOfRange)
    assert far.error.reach == 50 and not far.error.exhausted
    assert near.kind is ReplyKind.PAPERS


async def test_a_number_past_the_reach_after_paging_beyond_it_is_explained(
    over: Over,
) -> None:
    lists = {"ICML 2026": [f"Expert routing study number {n} of seventy." for n in range(70)]}
    async with over(lists, page_size=10) as chat:
        await chat.handle("expert routing", ALICE)
        for _ in range(4):
            await chat.handle("10 more", ALICE)  # 50 shown: all a number can reach
        far = await chat.handle("#55", ALICE)
        shown = await chat.handle("#45", ALICE)
    assert isinstance(far.error, PositionOutOfRange) and far.error.reach == 50
    assert shown.kind is ReplyKind.PAPERS


async def test_a_new_topic_with_answer_words_is_searched_whatever_is_open(
    chat: ChatService,
) -> None:
    # Nothing open: a topic holding "dataset" is a search, not "which paper?".
    first = await chat.handle("corpus poisoning when the retriever dataset is tiny", ALICE)
    assert first.kind is ReplyKind.ANSWER, first.intent
    assert ids(first)[0] == "fixture2026-2"
    # A paper open: a new topic with "benchmarks" in it replaces the list; a question about the
    # paper does not.
    await chat.handle("the first one", ALICE)
    asked = await chat.handle("what attack do they present?", ALICE)
    assert asked.kind is ReplyKind.PAPER_QUESTION, asked.intent
    searched = await chat.handle("open benchmarks for diffusion samplers with fewer steps", ALICE)
    assert searched.kind is ReplyKind.ANSWER, searched.intent
    assert ids(searched)[0] == "fixture2026-3"


async def test_a_question_about_the_bot_with_a_paper_open_is_help(chat: ChatService) -> None:
    await chat.handle("mixture of experts routing", ALICE)
    await chat.handle("the first one", ALICE)
    for text in ("how does the bot pick the top sentence?", "how does paperbot decide the order"):
        reply = await chat.handle(text, ALICE)
        assert reply.kind is ReplyKind.HELP, (text, reply.intent)
    asked = await chat.handle("how do they balance the experts?", ALICE)
    assert asked.kind is ReplyKind.PAPER_QUESTION, asked.intent


async def test_the_open_paper_named_by_its_topic_is_asked_even_with_a_venue(over: Over) -> None:
    async with over(TWO_LISTS) as chat:
        await chat.handle("icml2026-1", ALICE)
        venue = await chat.handle("was the sparse mixture of experts routing paper at iclr?", ALICE)
        authors = await chat.handle("who wrote the expert routing paper?", ALICE)
        best = await chat.handle("what's the best paper on expert routing?", ALICE)
    assert venue.kind is ReplyKind.PAPER_QUESTION and ids(venue) == ["icml2026-1"]
    assert venue.intent.question_type == "venue" and venue.intent.collection is None
    assert authors.kind is ReplyKind.PAPER_QUESTION and ids(authors) == ["icml2026-1"]
    # The best paper on a topic is a search, not a question about the open one.
    assert best.kind is ReplyKind.ANSWER
