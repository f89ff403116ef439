"""A chunked build equals the one-piece build it replaced, array for array, for any chunking."""

from __future__ import annotations

from array import array
from collections.abc import Iterator, Sequence
from itertools import pairwise

import numpy as np
import numpy.typing as npt
import pytest
from hypothesis import given
from hypothesis import strategies as st

from retrieval.snapshot import impacts
from retrieval.snapshot import matrix_build as index_build
from retrieval.snapshot.matrix import BM25Index, BM25Params
from retrieval.snapshot.matrix_build import IndexArrays, IndexBuilder
from tests.retrieval.test_index_append import assert_same_index

WORDS = [f"w{i}" for i in range(30)]
documents = st.lists(st.lists(st.sampled_from(WORDS), max_size=15), max_size=50)
cut_points = st.lists(st.integers(0, 50), max_size=6)
params = st.builds(
    BM25Params, k1=st.floats(0.1, 3.0), b=st.floats(0.0, 1.0), epsilon=st.floats(0.0, 1.0)
)
FIELDS = ["offsets", "postings_docs", "postings_tf", "doc_len", "keys", "forward"]


def one_piece(docs: Sequence[Sequence[str]], keys: Sequence[int]) -> IndexArrays:
    """The build before chunking (main at a1c637b), kept as the oracle: every token numbered in
    one pass, one sort of all (term, document) pairs."""
    term_ids: dict[str, int] = {}
    flat = array("i")
    lengths = array("q")
    for tokens in docs:
        flat.fromlist([term_ids.setdefault(token, len(term_ids)) for token in tokens])
        lengths.append(len(tokens))
    doc_len = np.array(lengths, dtype=np.int64)
    token_terms = np.frombuffer(flat, dtype=np.int32) if flat else np.zeros(0, np.int32)
    width = max(len(doc_len), 1)
    pair = token_terms.astype(np.int64) * width
    pair += np.repeat(np.arange(len(doc_len), dtype=np.int32), doc_len)
    pair.sort()
    first = np.ones(len(pair), dtype=np.bool_)
    np.not_equal(pair[1:], pair[:-1], out=first[1:])
    starts = np.flatnonzero(first)
    tf = np.diff(starts, append=len(pair))
    pairs = pair[starts]
    offsets = np.zeros(len(term_ids) + 1, dtype=np.int64)
    np.cumsum(np.bincount(pairs // width, minlength=len(term_ids)), out=offsets[1:])
    return IndexArrays(
        terms=list(term_ids),
        offsets=offsets,
        postings_docs=(pairs % width).astype(np.int32),
        postings_tf=tf.astype(np.int32),
        doc_len=doc_len,
        keys=np.asarray(keys, dtype=np.int64),
        forward=token_terms,
    )


def assert_same_arrays(got: IndexArrays, expected: IndexArrays) -> None:
    assert got.terms == expected.terms
    for name in FIELDS:
        mine, theirs = getattr(got, name), getattr(expected, name)
        assert mine.dtype == theirs.dtype, name
        assert np.array_equal(mine, theirs), name


def pieces(length: int, cuts: list[int]) -> list[tuple[int, int]]:
    bounds = [0, *sorted({min(cut, length) for cut in cuts}), length]
    return list(pairwise(bounds))


@given(documents, cut_points, st.integers(1, 40))
def test_any_chunking_and_token_batch_equals_the_one_piece_build(
    docs: list[list[str]], cuts: list[int], batch: int
) -> None:
    keys = [7 + 2 * n for n in range(len(docs))]
    original = index_build._TOKEN_BATCH
    index_build._TOKEN_BATCH = batch  # numbering in small batches must not change the numbers
    try:
        builder = IndexBuilder()
        for start, end in pieces(len(docs), cuts):
            builder.add((doc for doc in docs[start:end]), keys[start:end])
        assert builder.size == len(docs)
        got = builder.arrays()
    finally:
        index_build._TOKEN_BATCH = original
    assert_same_arrays(got, one_piece(docs, keys))


@given(documents, cut_points, params)
def test_a_chunked_build_on_a_base_index_equals_a_fresh_build(
    docs: list[list[str]], cuts: list[int], p: BM25Params
) -> None:
    keys = list(range(100, 100 + len(docs)))
    parts = pieces(len(docs), cuts)
    first_end = parts[0][1]
    base = BM25Index.build(docs[:first_end], keys[:first_end], p)
    builder = IndexBuilder(base)
    for start, end in parts[1:]:
        builder.add(docs[start:end], keys[start:end])
    extended = BM25Index.from_arrays(builder.arrays(), p)
    expected = one_piece(docs, keys)
    assert_same_arrays(builder_arrays_of(extended), expected)
    assert_same_index(extended, BM25Index.from_arrays(expected, p))
    assert base.size == first_end  # the base is not edited


def builder_arrays_of(index: BM25Index) -> IndexArrays:
    return IndexArrays(
        index.terms,
        index.offsets,
        index.postings_docs,
        index.postings_tf,
        index.doc_len,
        index.keys,
        index.forward,
    )


def test_wide_chunks_keep_document_numbers_and_frequencies_exact() -> None:
    """Chunk-local documents beyond 65,535 and frequencies beyond 255 are stored compactly
    in wider types; placing them back must give the same int32 values."""
    docs: list[list[str]] = [["common"] for _ in range(70_000)]
    docs[3] = ["common"] * 300 + ["rare"]
    docs[69_999] = ["rare"] * 70_000
    keys = list(range(len(docs)))
    builder = IndexBuilder()
    builder.add(docs[:5], keys[:5])
    builder.add(docs[5:], keys[5:])
    got = builder.arrays()
    assert_same_arrays(got, one_piece(docs, keys))
    rare = slice(int(got.offsets[1]), int(got.offsets[2]))
    assert got.postings_docs[rare].tolist() == [3, 69_999]
    assert got.postings_tf[rare].tolist() == [1, 70_000]


def test_documents_and_keys_must_pair_up() -> None:
    with pytest.raises(ValueError, match="2 documents but 3 keys"):
        IndexBuilder().add([["a"], ["b"]], [1, 2, 3])


def one_piece_impacts(
    offsets: npt.NDArray[np.int64],
    docs: npt.NDArray[np.int32],
    tf: npt.NDArray[np.int32],
    idf: npt.NDArray[np.float64],
    norm: npt.NDArray[np.float64],
    k1: float,
) -> npt.NDArray[np.float32]:
    term_of = np.repeat(np.arange(len(offsets) - 1, dtype=np.int32), np.diff(offsets))
    return (idf[term_of] * (tf * (k1 + 1) / (tf + norm[docs]))).astype(np.float32)


def chunk_sizes() -> Iterator[int]:
    yield from (1, 2, 3, 5, 8, 1 << 22)


@given(documents, params, st.sampled_from(list(chunk_sizes())))
def test_impacts_are_the_same_for_any_chunk_of_postings(
    docs: list[list[str]], p: BM25Params, chunk: int
) -> None:
    index = BM25Index.build(docs, list(range(len(docs))), p)
    expected = one_piece_impacts(
        index.offsets, index.postings_docs, index.postings_tf, index.idf, index.norm, p.k1
    )
    original = impacts._CHUNK
    impacts._CHUNK = chunk
    try:
        got = impacts.compute_impacts(
            index.offsets, index.postings_docs, index.postings_tf, index.idf, index.norm, p.k1
        )
    finally:
        impacts._CHUNK = original
    assert got.dtype == np.float32
    assert np.array_equal(got, expected)
