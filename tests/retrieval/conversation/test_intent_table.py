"""A table of chat messages and what they mean, near-misses included.

Each row: message, expected kind, and the fields that matter for it (unlisted fields must be
their defaults, so a row also says what must NOT be found: no collection, no refs, no flag).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from retrieval.conversation.intents import _excluding, parse_message
from retrieval.conversation.model import (
    LAST,
    FocusRef,
    IdRef,
    Intent,
    IntentKind,
    PositionRef,
    ZeroRef,
)
from tests.retrieval.conversation.conftest import COLLECTIONS

K = IntentKind
G, T, ST, H = K.GREETING, K.THANKS, K.SMALL_TALK, K.HELP
P, SIM, MORE, Q, CMP, S = (
    K.PAPER,
    K.SIMILAR,
    K.MORE,
    K.QUESTION_ABOUT_PAPER,
    K.COMPARE,
    K.SEARCH,
)


def pos(index: int, count: int = 1) -> PositionRef:
    return PositionRef(index, count)


def ids(*keys: str) -> tuple[IdRef, ...]:
    return tuple(IdRef(key) for key in keys)


F = FocusRef()

# (message, kind, fields); for SEARCH an omitted "query" means "the message itself".
TABLE: list[tuple[str, IntentKind, dict[str, Any]]] = [
    # --- greetings, thanks, small talk: never a search
    ("hi", G, {}),
    ("👍", T, {}),  # an approving reaction to an answer
    ("🔥🔥", T, {}),
    ("🙏🏽", T, {}),
    ("Hi!", G, {}),
    ("hello", G, {}),
    ("hello there", G, {}),
    ("hey paperbot", G, {}),
    ("heyyy", G, {}),
    ("gm", G, {}),
    ("good morning!", G, {}),
    ("yo", G, {}),
    ("what's up", G, {}),
    ("  HELLO  ", G, {}),
    ("hi 👋", G, {}),
    ("thanks!", T, {}),
    ("thanks", T, {}),
    ("thank you", T, {}),
    ("Thank you so much!!", T, {}),
    ("ty", T, {}),
    ("thx", T, {}),
    ("tysm", T, {}),
    ("thanks a lot", T, {}),
    ("cheers", T, {}),
    ("thanks bot", T, {}),
    ("good bot", ST, {}),
    ("nice", ST, {}),
    ("ok", ST, {}),
    ("cool, thanks", T, {}),
    ("lol", ST, {}),
    ("how are you?", ST, {}),
    ("who are you", ST, {}),
    ("are you a bot?", ST, {}),
    ("bye", ST, {}),
    ("awesome", ST, {}),
    # --- help
    ("help", H, {}),
    ("HELP!", H, {}),
    ("what can you do?", H, {}),
    ("how do I use this", H, {}),
    ("how do i use this?", H, {}),
    ("?", H, {}),
    ("???", H, {}),
    ("", H, {}),
    ("   ", H, {}),
    ("commands", H, {}),
    # Help or a question about the paper in focus: the chat decides
    # (test_chat_service.py::test_how_does_this_work_is_help_until_a_paper_is_open).
    ("how does this work?", H, {}),
    ("what can I ask?", H, {}),
    ("help please", H, {}),
    # --- a paper by id
    ("icml2026-13", P, {"refs": ids("icml2026-13")}),
    ("ICML2026-07", P, {"refs": ids("icml2026-7")}),
    ("icml2026 13", P, {"refs": ids("icml2026-13")}),
    ("icml2026#7", P, {"refs": ids("icml2026-7")}),
    ("paper icml2026-13", P, {"refs": ids("icml2026-13")}),
    ("show ICML2026-07", P, {"refs": ids("icml2026-7")}),
    ("open icml2026 13", P, {"refs": ids("icml2026-13")}),
    ("show me icml2026-5 please", P, {"refs": ids("icml2026-5")}),
    ("tell me about icml2026-3", P, {"refs": ids("icml2026-3")}),
    ("what is icml2026-3?", P, {"refs": ids("icml2026-3")}),
    ("scifact-12", P, {"refs": ids("scifact-12")}),
    ("neurips2019-4", P, {"refs": ids("neurips2019-4")}),
    ("icml2026-13.", P, {"refs": ids("icml2026-13")}),
    # --- positions and the focus in the last answer (shown as papers)
    ("the second one", P, {"refs": (pos(1),)}),
    ("second", P, {"refs": (pos(1),)}),
    ("the 2nd", P, {"refs": (pos(1),)}),
    ("#3", P, {"refs": (pos(2),)}),
    ("number 2", P, {"refs": (pos(1),)}),
    ("no. 4", P, {"refs": (pos(3),)}),
    ("the last one", P, {"refs": (pos(LAST),)}),
    ("last", P, {"refs": (pos(LAST),)}),
    ("the last two", P, {"refs": (pos(-2, 2),)}),
    ("the first two", P, {"refs": (pos(0, 2),)}),
    ("first 3", P, {"refs": (pos(0, 3),)}),
    ("top 3", P, {"refs": (pos(0, 3),)}),
    ("2", P, {"refs": (pos(1),)}),
    ("1.", P, {"refs": (pos(0),)}),
    # a number written out, alone or after a show verb, is a position like "2"
    ("two", P, {"refs": (pos(1),)}),
    ("open one", P, {"refs": (pos(0),)}),
    ("Three.", P, {"refs": (pos(2),)}),
    ("one sec", ST, {}),
    ("two papers on graph pruning", S, {}),
    ("show me the third one", P, {"refs": (pos(2),)}),
    ("open the first paper", P, {"refs": (pos(0),)}),
    ("what about number 3?", P, {"refs": (pos(2),)}),
    ("and the fourth?", P, {"refs": (pos(3),)}),
    ("paper 2", P, {"refs": (pos(1),)}),
    ("result 5", P, {"refs": (pos(4),)}),
    ("the ninth one", P, {"refs": (pos(8),)}),
    ("it", P, {"refs": (F,)}),
    ("that paper", P, {"refs": (F,)}),
    ("this one", P, {"refs": (F,)}),
    ("show it", P, {"refs": (F,)}),
    ("open it please", P, {"refs": (F,)}),
    ("tell me more about it", P, {"refs": (F,)}),
    ("what is it?", P, {"refs": (F,)}),
    ("both", P, {"refs": (pos(0, 2),)}),
    ("2 and 3", P, {"refs": (pos(1), pos(2))}),
    ("1, 3", P, {"refs": (pos(0), pos(2))}),
    ("the first one", P, {"refs": (pos(0),)}),
    # --- similar
    ("more like icml2026-13", SIM, {"refs": ids("icml2026-13")}),
    ("papers similar to the first one", SIM, {"refs": (pos(0),)}),
    ("anything else like that?", SIM, {"refs": (F,)}),
    ("similar 2", SIM, {"refs": (pos(1),)}),
    ("similar", SIM, {"refs": (F,)}),
    ("similar papers", SIM, {"refs": (F,)}),
    ("more like this", SIM, {"refs": (F,)}),
    ("similar to icml2026 6", SIM, {"refs": ids("icml2026-6")}),
    ("find papers similar to #2", SIM, {"refs": (pos(1),)}),
    ("show me more like the last one", SIM, {"refs": (pos(LAST),)}),
    ("related to it", SIM, {"refs": (F,)}),
    ("papers like it", SIM, {"refs": (F,)}),
    ("papers about it", SIM, {"refs": (F,)}),
    ("papers on the second one", SIM, {"refs": (pos(1),)}),
    ("thanks, and more like the first one?", SIM, {"refs": (pos(0),)}),
    # --- more
    ("more", MORE, {}),
    # a list length is not a position: "show me 10 results" is 1-10, not the tenth paper
    ("show me 10 results", MORE, {"count": 10, "from_top": True}),
    ("top 5 please", MORE, {"count": 5, "from_top": True}),
    ("list 50 papers", MORE, {"count": 10, "from_top": True}),
    ("give me 5 more", MORE, {"count": 5}),
    ("give me like 15 papers on that", MORE, {"count": 10, "from_top": True}),
    ("15 papers on graph pruning", S, {}),
    ("back to the first list", K.BACK, {}),
    ("3 more results", MORE, {"count": 3}),
    # back to the list before: never help or small talk
    ("go back to the previous list", K.BACK, {}),
    ("go back", K.BACK, {}),
    ("previous results pls", K.BACK, {}),
    ("go back to the first one", P, {"refs": (pos(0),)}),
    ("More!", MORE, {}),
    ("next", MORE, {}),
    ("show more results", MORE, {}),
    ("next page", MORE, {}),
    ("more results please", MORE, {}),
    ("more please", MORE, {}),
    ("keep going", MORE, {}),
    ("show more", MORE, {}),
    ("ok, more", MORE, {}),
    # --- compare
    ("compare the first two", CMP, {"refs": (pos(0, 2),)}),
    ("compare icml2026-6 and icml2026-23", CMP, {"refs": ids("icml2026-6", "icml2026-23")}),
    ("compare 1 3", CMP, {"refs": (pos(0), pos(2))}),
    ("compare 1 and 3", CMP, {"refs": (pos(0), pos(2))}),
    ("compare 1, 2 and 3", CMP, {"refs": (pos(0), pos(1), pos(2))}),
    ("compare #1 vs #2", CMP, {"refs": (pos(0), pos(1))}),
    ("compare it with the second one", CMP, {"refs": (F, pos(1))}),
    ("compare them", CMP, {"refs": (pos(0, 0),)}),
    ("compare both", CMP, {"refs": (pos(0, 2),)}),
    ("compare icml2026 6 to icml2026 7", CMP, {"refs": ids("icml2026-6", "icml2026-7")}),
    ("compare the first and the last", CMP, {"refs": (pos(0), pos(LAST))}),
    # Bare number words in a compare are positions, not counts or pronouns.
    ("compare four and six", CMP, {"refs": (pos(3), pos(5))}),
    ("two vs three", CMP, {"refs": (pos(1), pos(2))}),
    ("which is better, one or two?", CMP, {"refs": (pos(0), pos(1))}),
    ("compare the one i opened with five", CMP, {"refs": (F, pos(4))}),
    ("difference between 1 and 2", CMP, {"refs": (pos(0), pos(1))}),
    # --- questions about a paper
    (
        "what dataset does icml2026-6 use?",
        Q,
        {"refs": ids("icml2026-6"), "query": "what dataset does use"},
    ),
    (
        "does the second one have code?",
        Q,
        {"refs": (pos(1),), "query": "does have code", "wants_code": True},
    ),
    ("does it have code", Q, {"refs": (F,), "query": "have code", "wants_code": True}),
    ("is there a github for it?", Q, {"refs": (F,), "wants_code": True}),
    # "the method of <id>": the method is the id's, not the paper in focus.
    ("what's the method of icml2026-3?", Q, {"refs": ids("icml2026-3")}),
    ("code for the second one", Q, {"refs": (pos(1),), "wants_code": True}),
    ("github for icml2026-13", Q, {"refs": ids("icml2026-13"), "wants_code": True}),
    ("is the code of #2 available?", Q, {"refs": (pos(1),), "wants_code": True}),
    ("what does the first paper propose?", Q, {"refs": (pos(0),)}),
    ("what baselines does it compare against?", Q, {"refs": (F,)}),
    ("what are its main results?", Q, {"refs": (F,)}),
    ("which datasets did the last one evaluate on?", Q, {"refs": (pos(LAST),)}),
    # What a paper is about is a summary of it, as "what is it about?" is.
    ("what is icml2026-6 about?", Q, {"refs": ids("icml2026-6")}),
    ("summarize the third paper", Q, {"refs": (pos(2),)}),
    ("how big is the model in that paper?", Q, {"refs": (F,)}),
    ("does icml2026-6 beat icml2026-23?", Q, {"refs": ids("icml2026-6", "icml2026-23")}),
    ("is it open source?", Q, {"refs": (F,), "wants_code": True}),
    ("which one has code?", Q, {"refs": (pos(0, 0),), "query": "has code", "wants_code": True}),
    ("does any of them use ImageNet?", Q, {"refs": (pos(0, 0),), "query": "does use ImageNet"}),
    ("summarize it", Q, {"refs": (F,), "query": "summarize"}),
    ("who wrote it?", Q, {"refs": (F,), "query": "who wrote"}),
    ("what's the github for the 3rd?", Q, {"refs": (pos(2),), "wants_code": True}),
    ("icml2026-13 datasets", Q, {"refs": ids("icml2026-13"), "query": "datasets"}),
    # --- "what is X?": a search for X whose best sentence defines it
    ("what is DRIFT?", S, {"query": "DRIFT", "defines": "DRIFT"}),
    ("what's RLHF", S, {"query": "RLHF", "defines": "RLHF"}),
    ("define MoE", S, {"query": "MoE", "defines": "MoE"}),
    ("what does RAG stand for?", S, {"query": "RAG", "defines": "RAG"}),
    ("what are LoRA adapters?", S, {"query": "LoRA adapters", "defines": "LoRA adapters"}),
    ("hi, what is DRIFT?", S, {"query": "DRIFT", "defines": "DRIFT"}),
    ("what are the best papers on RLHF?", S, {}),
    # --- collections named in words
    (
        "ICML 2026 papers about mixture of experts",
        S,
        {"collection": "icml2026", "query": "papers about mixture of experts"},
    ),
    (
        "what did ICLR 2024 publish on diffusion?",
        S,
        {"collection": "iclr2024", "query": "what did on diffusion?"},
    ),
    (
        "in NeurIPS 2023, what about RLHF?",
        S,
        {"collection": "neurips2023", "query": "what about RLHF?"},
    ),
    ("papers on RL at ICML'24", S, {"collection": "icml2024", "query": "papers on RL"}),
    ("papers on RL at ICML’24", S, {"collection": "icml2024", "query": "papers on RL"}),
    ("icml2026 moe routing", S, {"collection": "icml2026", "query": "moe routing"}),
    ("neurips-2023 diffusion", S, {"collection": "neurips2023", "query": "diffusion"}),
    ("moe papers from icml 2026", S, {"collection": "icml2026", "query": "moe papers"}),
    (
        "NEURIPS 2023's best work on RLHF",
        S,
        {"collection": "neurips2023", "query": "best work on RLHF"},
    ),
    (
        "ICML 2019 papers about graph neural nets",
        S,
        {"unknown_collection": "ICML 2019", "query": "papers about graph neural nets"},
    ),
    ("CVPR 2022 segmentation", S, {"unknown_collection": "CVPR 2022", "query": "segmentation"}),
    (
        "at ACL 2023, anything on parsing",
        S,
        {"unknown_collection": "ACL 2023", "query": "anything on parsing"},
    ),
    # A venue without a year means every loaded collection of it (issue 24).
    ("ICML papers on moe", S, {"collection": "icml2026,icml2024", "query": "papers on moe"}),
    # Nothing but a venue is a refine too: the last question in every loaded ICML.
    ("ICML", K.REFINE, {"collection": "icml2026,icml2024", "query": ""}),
    ("neurips?", K.REFINE, {"collection": "neurips2023", "query": ""}),
    # A year said as where to look is that year's loaded lists.
    ("papers from 2023 on RLHF", S, {"collection": "neurips2023", "query": "papers on RLHF"}),
    ("resnet50 pruning", S, {}),
    ("GPT-4 evaluation", S, {}),
    ("COVID 2020 papers", S, {}),  # not a venue
    ("llama 2 fine-tuning", S, {}),
    ("top 10 tricks for training", S, {}),
    # A bare collection name is the last question there; with none, ChatService searches it.
    ("ICML 2026", K.REFINE, {"collection": "icml2026", "query": ""}),
    ("iclr 2024 papers", K.REFINE, {"collection": "iclr2024", "query": ""}),
    # Misspelled chat words are read as meant; topic words and real words stay as typed.
    ("the frist one", P, {"refs": (pos(0),)}),
    ("the secnd one", P, {"refs": (pos(1),)}),
    ("the thrid one", P, {"refs": (pos(2),)}),
    ("compre 1 and 2", CMP, {"refs": (pos(0), pos(1))}),
    # No words asking for a fact: a comparison, whatever type the question classifier guesses.
    ("#1 vs #2 there?", CMP, {"refs": (pos(0), pos(1))}),
    ("same but for icrl", K.REFINE, {"collection": "iclr2024", "query": ""}),
    ("can u do nuerips", K.REFINE, {"collection": "neurips2023", "query": ""}),
    # A lead that announces a new message is not part of it; "new topic modeling" is a topic.
    ("new question: vision transformers", S, {"query": "vision transformers"}),
    ("different topic - graph neural nets", S, {"query": "graph neural nets"}),
    ("new topic modeling methods", S, {"query": "new topic modeling methods"}),
    ("ICRL with safety constraints", S, {}),
    ("back and forth dialogue", S, {}),
    # A year said as where to look filters to that year's lists; a year in a topic does not.
    (
        "2026 papers on watermarking",
        S,
        {"collection": "icml2026", "query": "papers on watermarking"},
    ),
    (
        "diffusion papers from 2024",
        S,
        {"collection": "icml2024,iclr2024", "query": "diffusion papers"},
    ),
    ("forecasting the 2024 election", S, {}),
    ("hmm and the 2026 list?", K.REFINE, {"collection": "icml2026", "query": ""}),
    ("icml24-1326 pls", P, {"refs": ids("icml2024-1326")}),
    # A bare number where the paper stands is a position; elsewhere it is a quantity.
    ("does 2 have code?", Q, {"refs": (pos(1),), "query": "does have code", "wants_code": True}),
    (
        "is there code for 3?",
        Q,
        {"refs": (pos(2),), "query": "is there code for", "wants_code": True},
    ),
    ("is it trained for 10?", Q, {"refs": (F,), "query": "is it trained for 10"}),
    # An id whose venue and year are written apart, with a separator before the number.
    ("open iclr 2024-1316", P, {"refs": ids("iclr2024-1316")}),
    ("pull up ICML 2024 #12", P, {"refs": ids("icml2024-12")}),
    ("icml2024 #12", P, {"refs": ids("icml2024-12")}),  # the id, not list item #12
    ("compare iclr 2024-5 and iclr 2024-9", CMP, {"refs": ids("iclr2024-5", "iclr2024-9")}),
    # a loaded collection without a year filters only next to "in"/"from"/"papers"
    (
        "claims in SciFact about vitamin D",
        S,
        {"collection": "scifact", "query": "claims about vitamin D"},
    ),
    ("scifact papers on vitamin D", S, {"collection": "scifact", "query": "papers on vitamin D"}),
    ("scifact vitamin D", S, {}),
    ("in:scifact vitamin D", S, {}),
    # --- query syntax is left untouched
    ('"ICML 2026" -survey in:icml2026 moe', S, {}),
    ('in:"ICML 2026" moe', S, {}),
    ("-icml2026 routing", S, {}),
    ('"mixture of experts" -survey', S, {}),
    ("in:icml2024 the second stage", S, {}),
    # --- near-misses: searched
    ("hi-res image synthesis papers", S, {}),
    ("hi-res", S, {}),
    ("HiFi-GAN vocoder", S, {}),
    ("paper on RLHF reward hacking", S, {}),
    ("papers on RLHF reward hacking", S, {}),
    ("thanks to attention, which models scale?", S, {}),
    ("help with vision transformers papers", S, {}),
    ("helpful assistants alignment", S, {}),
    ("more efficient attention", S, {}),
    ("more robust RL", S, {}),
    ("next-token prediction", S, {}),
    ("next generation sequencing", S, {}),
    ("similarity search with product quantization", S, {}),
    ("papers like transformers for vision", S, {}),
    ("compare transformers and RNNs", S, {}),
    ("is it possible to prune LLMs without retraining?", S, {}),
    ("how does it scale with context length?", S, {}),
    ("it is known that transformers overfit", S, {}),
    ("what is the first paper to use RLHF?", S, {}),
    ("the last layer of vision transformers", S, {}),
    ("second-order optimization", S, {}),
    ("2023", S, {}),
    ("100", S, {}),
    ("#0", P, {"refs": (ZeroRef(),)}),  # answered: "Results are numbered from 1"
    ("good morning sunshine detection", S, {}),
    ("hello world programs in LLM evaluation", S, {}),
    ("thanksgiving dataset", S, {}),
    ("help desk ticket classification", S, {}),
    ("show me papers on diffusion", S, {}),
    ("open-vocabulary detection", S, {}),
    ("gpt-4", S, {}),
    ("top-k sampling", S, {}),
    ("one-shot pruning", S, {}),
    ("hey, papers on RLHF?", S, {"query": "papers on RLHF?"}),
    ("hello paperbot what papers discuss RAG", S, {"query": "what papers discuss RAG"}),
    ("mixture of experts", S, {}),
    ("sparse attention for long documents", S, {}),
    ("which papers attack RAG retrievers?", S, {}),
    ("papers about transformers", S, {}),
    ("it works on graphs", S, {}),
    ("what does it mean for a model to be calibrated", S, {}),
    ("which papers have code for diffusion?", S, {}),
    # Interjections and "got anything on" are not topic words (a newcomer saw "No paper
    # mentions “yo”" and "none with every word" because "hm" was searched).
    ("hm what about certified defenses", S, {"query": "what about certified defenses"}),
    ("yo any papers on protein design", S, {"query": "any papers on protein design"}),
    (
        "got anything on graph nets for molecules",
        S,
        {"query": "anything on graph nets for molecules"},
    ),
]

DEFAULTS: dict[str, Any] = {
    "refs": (),
    "collection": None,
    "unknown_collection": None,
    "wants_code": False,
    "defines": None,
}


def test_the_table_is_big_enough() -> None:
    assert len(TABLE) >= 150
    assert len({message for message, _, _ in TABLE}) == len(TABLE)


@pytest.mark.parametrize(("message", "kind", "fields"), TABLE, ids=[row[0] for row in TABLE])
def test_message(message: str, kind: IntentKind, fields: dict[str, Any]) -> None:
    intent = parse_message(message, COLLECTIONS)
    assert intent.kind is kind, intent
    expected = {**DEFAULTS, **fields}
    if kind is IntentKind.SEARCH and "query" not in fields:
        expected["query"] = " ".join(message.split())
    got = {name: getattr(intent, name) for name in expected}
    assert got == expected, intent


def test_chat_intents_carry_no_query() -> None:
    for message, kind, _ in TABLE:
        if kind in (G, T, ST, H, P, SIM, MORE, CMP):
            assert parse_message(message, COLLECTIONS).query == "", message


def test_without_loaded_collections_a_venue_year_is_unknown() -> None:
    intent = parse_message("ICML 2026 papers about mixture of experts", [])
    assert replace(intent, confidence=1.0, help_probability=0.0) == Intent(
        IntentKind.SEARCH,
        query="papers about mixture of experts",
        unknown_collection="ICML 2026",
        message="ICML 2026 papers about mixture of experts",
    )


def test_first_loaded_collection_named_wins() -> None:
    intent = parse_message("ICLR 2024 vs ICML 2026 on moe", COLLECTIONS)
    assert intent.collection == "iclr2024"
    assert intent.query == "vs on moe"


def test_the_message_is_kept_normalized_for_a_fallback_search() -> None:
    intent = parse_message("  which one\x00is   faster?\n", COLLECTIONS)
    assert intent.message == "which one is faster?"
    assert parse_message("hi", COLLECTIONS).message == "hi"


@pytest.mark.parametrize(
    ("message", "kind", "query", "collection"),
    [
        # A refine naming a topic of its own is a new search in that collection.
        (
            "gnn papers from neurips but not about molecules",
            K.SEARCH,
            "gnn papers -molecules",
            "neurips2023",
        ),
        ("what about diffusion in iclr", K.SEARCH, "what about diffusion", "iclr2024"),
        ("same query but neurips, about diffusion", K.SEARCH, "about diffusion", "neurips2023"),
        # Without one it is the last topic again; its exclusions are its query.
        ("same but for iclr", K.REFINE, "", "iclr2024"),
        ("same but for iclr, not about molecules", K.REFINE, "-molecules", "iclr2024"),
        # Words the fitted model reads as refining are not a topic; nor is a year alone.
        ("filter those to neurips", K.REFINE, "", "neurips2023"),
        ("narrow it down to iclr please", K.REFINE, "", "iclr2024"),
        # Exclusions in words become the query syntax's -word in any search.
        ("diffusion models excluding video", K.SEARCH, "diffusion models -video", None),
        ("transformers but not vision", K.SEARCH, "transformers -vision", None),
    ],
)
def test_refines_and_exclusions(
    message: str, kind: IntentKind, query: str, collection: str | None
) -> None:
    intent = parse_message(message, COLLECTIONS)
    assert (intent.kind, intent.query, intent.collection) == (kind, query, collection), intent


def test_quoted_exclusion_words_stay_a_phrase() -> None:
    assert _excluding('"but not about molecules" graphs') == '"but not about molecules" graphs'
    assert _excluding("graphs, but not about the molecules") == "graphs -molecules"
    assert _excluding("gnns but not molecules or proteins") == "gnns -molecules -proteins"
    assert _excluding("transformers excluding vision models") == 'transformers -"vision models"'
    for prose in ("methods that do not rely on labels", "not only fast but also accurate"):
        assert _excluding(prose) == prose


def test_a_pasted_abstract_keeps_its_but_not() -> None:
    abstract = ("We propose a sampler that is fast but not about to lose quality. " * 4).strip()
    intent = parse_message(abstract, COLLECTIONS)
    assert intent.kind is K.SEARCH and "-" not in intent.query


def test_a_question_naming_no_paper_means_the_focus_only_by_default() -> None:
    weather = parse_message("what is the weather in paris", COLLECTIONS)
    if weather.kind is K.QUESTION_ABOUT_PAPER:
        assert weather.implicit_focus and weather.refs == (FocusRef(),)
    pointed = parse_message("does it have code?", COLLECTIONS)
    assert pointed.kind is K.QUESTION_ABOUT_PAPER and not pointed.implicit_focus


@pytest.mark.parametrize(
    "message", ["bye", "Goodbye!", "ok bye", "thanks, bye", "see you later", "that's all"]
)
def test_goodbyes(message: str) -> None:
    intent = parse_message(message, COLLECTIONS)
    assert intent.farewell and intent.kind in (K.GREETING, K.THANKS, K.SMALL_TALK), intent


@pytest.mark.parametrize("message", ["later layers of transformers", "bye-bye bias", "exit rates"])
def test_not_goodbyes(message: str) -> None:
    assert not parse_message(message, COLLECTIONS).farewell
