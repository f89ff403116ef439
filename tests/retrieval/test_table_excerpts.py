"""Excerpts from the sentence table equal excerpts made from the abstracts, to the last mark and
bit of the score, and the table is passed over wherever it cannot vouch for a paper (what
answers show is pinned by the golden file, test_excerpt_golden.py)."""

from __future__ import annotations

from collections.abc import Sequence
from random import Random

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from retrieval import text as analysis
from retrieval.prepare import searchable_text
from retrieval.snapshot.load_sentences import _document
from retrieval.snapshot.matrix import BM25Index
from retrieval.snapshot.page_excerpts import covers, page_excerpts
from retrieval.snapshot.sentence_hits import Hits, IntArray, sentence_hits
from retrieval.snapshot.sentence_records import sentence_records
from retrieval.snapshot.sentences import STATE_UNUSABLE, SentenceTable
from tests.retrieval.oracle import RANK_BM25_DEFAULTS

ABSTRACTS = [
    "We study Mixture-of-Experts (MoE) routing, e.g. top-2 gating. Load balancing improves "
    "sparse transformers by 3.5% (Fig. 2). Smith et al. show routers collapse; i.e., experts die.",
    "Retrieval-Augmented Generation (RAG) is vulnerable. We present $\\alpha$-poisoning "
    "[see \\cite{x}] with $O(n \\log n)$ cost!? Attacks succeed... Really. Défenses échouent.",
    "Graph neural networks oversmooth.\n\nWe introduce a residual **normalization** for deep "
    "GNNs (v1.2 and GPT-3.5) — state-of-the-art on 12 benchmarks: Cora, PubMed, etc. We win.",
    "",
    "No punctuation at all just words about diffusion models and denoising samplers",
]
TITLES: list[str | None] = ["Routing experts", None, "Oversmoothing", None, "Diffusion"]


def table_of(
    abstracts: Sequence[str], titles: Sequence[str | None]
) -> tuple[BM25Index, SentenceTable]:
    documents = [
        analysis.analyze(searchable_text(title, abstract))
        for title, abstract in zip(titles, abstracts, strict=True)
    ]
    keys = list(range(1, len(abstracts) + 1))
    index = BM25Index.build(documents, keys, RANK_BM25_DEFAULTS)
    vocabulary = np.asarray(index.terms, dtype=object)
    records = sentence_records(
        [(abstract, _document(index, vocabulary, doc)) for doc, abstract in enumerate(abstracts)]
    )
    return index, SentenceTable.build(keys, records)


def weights_of(index: BM25Index, question: str) -> dict[str, float]:
    # As answering weighs a question: every distinct term, by idf (0.0 for unknown ones).
    return {term: index.idf_of(term) for term in dict.fromkeys(analysis.analyze(question))}


def reference(abstracts: Sequence[str], weights: dict[str, float], budget: int) -> list[object]:
    # Without a table every abstract is analysed as it stands.
    return list(page_excerpts(None, None, [None] * len(abstracts), abstracts, weights, budget))


QUESTIONS = [
    "mixture of experts routing",
    "RAG poisoning attacks alpha",
    "graph normalization GPT-3.5 state-of-the-art",
    "routers experts load balancing sparse transformers collapse",
    "nothing matches zzz",
    "",
]


def test_the_fixture_corpus_equals_the_reference_for_every_question_and_budget() -> None:
    index, table = table_of(ABSTRACTS, TITLES)
    docs = list(range(len(ABSTRACTS)))
    for question in QUESTIONS:
        weights = weights_of(index, question)
        for budget in (0, 1, 12, 40, 80, 160, 320, 1000):
            found = page_excerpts(index, table, docs, ABSTRACTS, weights, budget)
            assert found == reference(ABSTRACTS, weights, budget), (question, budget)


def test_a_page_in_any_order_with_repeats_equals_the_reference() -> None:
    index, table = table_of(ABSTRACTS, TITLES)
    docs = [4, 0, 2, 0, 1]
    abstracts = [ABSTRACTS[doc] for doc in docs]
    weights = weights_of(index, "experts normalization diffusion poisoning")
    assert all(covers(index, table, doc, text) for doc, text in zip(docs, abstracts, strict=True))
    found = page_excerpts(index, table, docs, abstracts, weights, 200)
    assert found == reference(abstracts, weights, 200)


_WORDS = st.sampled_from(
    [
        "attacks", "RAG", "retrievers", "pre-training", "model", "e.g.", "i.e.,", "et", "al.",
        "3.5%", "0.25", "v1.2", "the", "of", "Retrieval-Augmented", "$\\alpha$", "\\textbf{x}",
        "**LIFT**", "Fig.", "2.", "We", "(MoE)", "[12]", "{a}", "?", ".", "!", "...", "—", "…",
        "x", "naïve", "ﬁne-tuning", "Ω", "α-β", "model's", "U.S.", "etc.", "(why?)", "\n\n",
        "&amp;", "k-means", "state-of-the-art", "GPT-4", "LLMs", "e\u0301t\u00e9",
        "zero\u200bwidth",
    ]
)  # fmt: skip
_ABSTRACT = st.one_of(
    st.lists(_WORDS, max_size=60).map(" ".join),
    st.lists(st.one_of(_WORDS, st.text(max_size=8)), max_size=30).map(" ".join),
    st.text(max_size=200),
)
_QUESTION_WORDS = st.sampled_from(
    ["attacks", "rag", "pretraining", "pre", "model", "alpha", "lift", "moe", "zzz", "fine",
     "tuning", "omega", "kmeans", "gpt4", "llm", "state", "art", "3.5", "naive", "beta", "us"]
)  # fmt: skip


@given(
    st.lists(st.tuples(_ABSTRACT, st.one_of(st.none(), _ABSTRACT)), min_size=1, max_size=5),
    st.lists(_QUESTION_WORDS, max_size=5),
    st.integers(min_value=0, max_value=600),
)
def test_any_text_equals_the_reference(
    papers: list[tuple[str, str | None]], question: list[str], budget: int
) -> None:
    abstracts = [abstract for abstract, _ in papers]
    index, table = table_of(abstracts, [title for _, title in papers])
    # Words of the abstracts themselves too, so most questions match something.
    own = [word for abstract in abstracts for word in abstract.split()[:3]]
    weights = weights_of(index, " ".join(question + own[:4]))
    docs = list(range(len(abstracts)))
    found = page_excerpts(index, table, docs, abstracts, weights, budget)
    assert found == reference(abstracts, weights, budget)
    for doc, abstract in enumerate(abstracts):
        # Only a record the table could not vouch for is passed over.
        usable = int(table.state[doc]) != STATE_UNUSABLE
        assert covers(index, table, doc, abstract) == usable


def test_papers_the_table_cannot_vouch_for_are_analysed_from_their_abstracts() -> None:
    abstracts = [*ABSTRACTS, "A markup remnant stays at the very end \\"]
    index, table = table_of(abstracts, [*TITLES, None])
    weights = weights_of(index, "experts markup")
    assert int(table.state[len(ABSTRACTS)]) == STATE_UNUSABLE  # a backslash in its clean text
    changed = ABSTRACTS[0] + " One more sentence."
    docs = [0, len(ABSTRACTS), 1, None, 99]
    page = [changed, abstracts[-1], ABSTRACTS[1], ABSTRACTS[2], ABSTRACTS[3]]
    # A different abstract, an unusable record, no document, a document past the table.
    assert [covers(index, table, *paper) for paper in zip(docs, page, strict=True)] == [
        False, False, True, False, False
    ]  # fmt: skip
    assert page_excerpts(index, table, docs, page, weights, 320) == reference(page, weights, 320)
    assert "markup" in page_excerpts(index, table, docs, page, weights, 320)[1][0].plain


def test_a_record_whose_index_document_differs_is_not_used() -> None:
    index, _ = table_of(ABSTRACTS, TITLES)
    vocabulary = np.asarray(index.terms, dtype=object)
    document = _document(index, vocabulary, 0)
    records = sentence_records([(ABSTRACTS[0], [*document[:-1], "different"])])
    assert records[0].title_tokens < 0
    # An index whose document has another length than the record's: not used either.
    table = SentenceTable.build([1], sentence_records([(ABSTRACTS[0], ["extra", *document])]))
    assert not covers(index, table, 0, ABSTRACTS[0])


@given(
    st.lists(st.tuples(_ABSTRACT, st.one_of(st.none(), _ABSTRACT)), min_size=1, max_size=5),
    st.lists(_QUESTION_WORDS, max_size=6),
    st.randoms(use_true_random=False),
)
def test_the_compiled_hits_equal_a_vectorised_reference(
    papers: list[tuple[str, str | None]], question: list[str], rng: Random
) -> None:
    abstracts = [abstract for abstract, _ in papers]
    index, table = table_of(abstracts, [title for _, title in papers])
    own = [word for abstract in abstracts for word in abstract.split()[:4]]
    terms = [t for t in dict.fromkeys(analysis.analyze(" ".join(question + own))) if t in index]
    numbers = [index.term_ids[term] for term in terms]
    chosen = rng.choices(range(len(abstracts)), k=rng.randint(0, 6))
    page = np.asarray(sorted(set(chosen)), dtype=np.int64)
    first = table.first_sentence[page].tolist()
    last = table.first_sentence[page + 1].tolist()
    compiled_hits = sentence_hits(index, table, page, first, last, numbers)
    reference_hits = sentence_hits_numpy(index, table, page, first, last, numbers)
    for mine, theirs in zip(compiled_hits, reference_hits, strict=True):
        assert mine.tolist() == theirs.tolist()
    if terms and len(page):
        # Each hit names a token that is the query term it says, in the sentence it says.
        for sentence, place in zip(*(part.tolist() for part in compiled_hits[:2]), strict=True):
            doc = int(np.searchsorted(table.first_sentence, sentence, side="right")) - 1
            start = int(index.doc_start[doc])
            tokens = index.forward[
                start + int(table.token_start[sentence]) : start + int(table.token_end[sentence])
            ]
            assert numbers[place] in tokens.tolist()


def sentence_hits_numpy(
    index: BM25Index,
    table: SentenceTable,
    page: IntArray,
    first: Sequence[int],
    last: Sequence[int],
    numbers: Sequence[int],
) -> Hits:
    """The same hits, vectorised over every token of the page's sentences."""
    counts = np.asarray(last, dtype=np.int64) - np.asarray(first, dtype=np.int64)
    nothing = np.zeros(0, dtype=np.int64)
    if not len(numbers) or not counts.sum():
        return nothing, nothing, nothing, nothing
    query = np.asarray(numbers, dtype=np.int64)
    order = np.argsort(query)
    ordered = query[order]
    sentences = np.concatenate(
        [np.arange(begin, end, dtype=np.int64) for begin, end in zip(first, last, strict=True)]
    )
    owners = np.repeat(np.arange(len(page)), counts)
    starts = np.asarray(table.token_start)[sentences].astype(np.int64)
    lengths = np.asarray(table.token_end)[sentences].astype(np.int64) - starts
    # Every token of the page's sentences by its place in its document: in the forward array
    # from the document's start, in `word_offset` from the document's first entry.
    within = np.repeat(starts - np.cumsum(lengths) + lengths, lengths) + np.arange(lengths.sum())
    doc_start = np.asarray(index.doc_start)[page][owners]
    tokens = np.asarray(index.forward)[within + np.repeat(doc_start, lengths)]
    slot = np.minimum(np.searchsorted(ordered, tokens), len(ordered) - 1)
    hit = np.flatnonzero(ordered[slot] == tokens)
    entries = within[hit] + np.repeat(np.asarray(table.first_token)[page][owners], lengths)[hit]
    sentence = np.repeat(sentences, lengths)[hit]
    place = np.unique(sentence * len(query) + order[slot[hit]])
    span = 1 << 16  # word offsets are 16-bit
    offset = np.unique(sentence * span + np.asarray(table.word_offset)[entries].astype(np.int64))
    return place // len(query), place % len(query), offset // span, offset % span
