"""Excerpts: the right sentences, marks on whole matched words, the budget always kept."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from retrieval.excerpts import ELLIPSIS
from retrieval.models import Excerpt
from retrieval.snapshot.page_excerpts import page_excerpts
from retrieval.text import analyze, clean_for_display, word_terms

ABSTRACT = (
    "Large language models are widely deployed. "
    "We study $\\textbf{Retrieval-Augmented}$ Generation (RAG) systems, e.g. chat assistants. "
    "Prior defenses assume benign corpora. "
    "We show that poisoning attacks on RAG retrievers succeed with five documents. "
    "Code is released."
)


def weights(question: str) -> dict[str, float]:
    return dict.fromkeys(analyze(question), 1.0)


def make_excerpt(
    text: str, query: dict[str, float], budget: int, *, max_sentences: int = 2
) -> Excerpt:
    """The excerpt (or with one sentence, the lead) of an abstract no table holds."""
    excerpt, lead, _ = page_excerpts(None, None, [None], [text], query, budget)[0]
    return excerpt if max_sentences == 2 else lead


def best_sentence(text: str, query: dict[str, float], budget: int) -> tuple[Excerpt, float]:
    _, lead, score = page_excerpts(None, None, [None], [text], query, budget)[0]
    return lead, score


def test_lead_sentence_is_the_best_match() -> None:
    excerpt, score = best_sentence(ABSTRACT, weights("poisoning attacks on RAG retrievers"), 300)
    assert excerpt.plain == (
        "We show that poisoning attacks on RAG retrievers succeed with five documents."
    )
    assert excerpt.matched_words == ("poisoning", "attacks", "RAG", "retrievers")
    assert score == 4.0


def test_best_sentence_without_match_scores_zero() -> None:
    excerpt, score = best_sentence(ABSTRACT, weights("protein folding"), 300)
    assert score == 0.0
    assert excerpt.plain == "Large language models are widely deployed."


def test_two_sentences_in_text_order_with_a_gap() -> None:
    excerpt = make_excerpt(ABSTRACT, weights("retrieval-augmented generation attacks"), 400)
    assert excerpt.plain == (
        "We study Retrieval-Augmented Generation (RAG) systems, e.g. chat assistants. … "
        "We show that poisoning attacks on RAG retrievers succeed with five documents."
    )
    assert excerpt.matched_words == ("Retrieval-Augmented", "Generation", "attacks", "retrievers")


def test_compounds_are_marked_whole_from_either_direction() -> None:
    for question in ("augmented", "retrievalaugmented", "retrieval augmented"):
        excerpt = make_excerpt(ABSTRACT, weights(question), 400, max_sentences=1)
        assert excerpt.matched_words == ("Retrieval-Augmented",), question


def test_spans_alternate_one_marked_word_each() -> None:
    excerpt = make_excerpt(ABSTRACT, weights("poisoning attacks"), 400, max_sentences=1)
    assert [(span.text, span.match) for span in excerpt.spans] == [
        ("We show that ", False),
        ("poisoning", True),
        (" ", False),
        ("attacks", True),
        (" on RAG retrievers succeed with five documents.", False),
    ]


def test_no_match_gives_the_opening_within_budget() -> None:
    excerpt = make_excerpt(ABSTRACT, weights("protein folding"), 140)
    assert excerpt.plain == (
        "Large language models are widely deployed. We study Retrieval-Augmented Generation "
        "(RAG) systems, e.g. chat assistants."
    )
    assert not excerpt.matched_words


def test_long_sentence_keeps_the_window_around_matches() -> None:
    words = " ".join(f"filler{n}" for n in range(60))
    text = f"{words} the sparse routing trick works {words}."
    excerpt = make_excerpt(text, weights("sparse routing"), 80)
    assert len(excerpt.plain) <= 80
    assert excerpt.plain.startswith(ELLIPSIS) and excerpt.plain.endswith(ELLIPSIS)
    assert excerpt.matched_words == ("sparse", "routing")
    assert "the sparse routing trick" in excerpt.plain


def test_tiny_and_empty_inputs() -> None:
    assert make_excerpt("", weights("x"), 100) == Excerpt(())
    assert make_excerpt(ABSTRACT, weights("attacks"), 0) == Excerpt(())
    assert make_excerpt("Supercalifragilistic.", weights("x"), 5).plain == ELLIPSIS


_WORDS = st.sampled_from(
    [
        "attacks", "RAG", "retrievers", "pre-training", "model", "e.g.", "3.5%", "the", "of",
        "Retrieval-Augmented", "$\\alpha$", "**LIFT**", "Fig.", "2.", "We", "(MoE)", "?", ".",
        "supercalifragilisticexpialidocious", "x", "—", "…",
    ]
)  # fmt: skip
_ABSTRACTS = st.one_of(
    st.lists(_WORDS, max_size=80).map(" ".join),
    st.text(max_size=300),
)
_QUESTIONS = st.lists(
    st.sampled_from(["attacks", "rag", "pretraining", "model", "alpha", "lift", "moe", "zzz"]),
    max_size=4,
).map(" ".join)


def _check(text: str, question: str, excerpt: Excerpt, budget: int) -> None:
    query = weights(question)
    plain = excerpt.plain
    assert len(plain) <= budget
    clean = clean_for_display(text)
    source_words = set(clean.split())
    word_texts = {clean[start:end] for start, end, _ in word_terms(clean)}
    for chunk in plain.split():
        assert chunk == ELLIPSIS or chunk in source_words, chunk
    for span in excerpt.spans:
        assert span.text
        if span.match:
            assert span.text in word_texts
            assert set(analyze(span.text)) & set(query), span.text
    for left, right in zip(excerpt.spans, excerpt.spans[1:], strict=False):
        assert left.match != right.match


@given(_ABSTRACTS, _QUESTIONS, st.integers(min_value=20, max_value=1000))
def test_budget_whole_words_and_balanced_marks(text: str, question: str, budget: int) -> None:
    _check(text, question, make_excerpt(text, weights(question), budget), budget)
    lead, score = best_sentence(text, weights(question), budget)
    _check(text, question, lead, budget)
    assert score >= 0.0
    assert (score > 0) == bool(lead.matched_words)


@given(_ABSTRACTS, st.integers(min_value=0, max_value=19))
def test_budget_kept_for_tiny_budgets(text: str, budget: int) -> None:
    assert len(make_excerpt(text, weights("attacks rag"), budget).plain) <= budget
