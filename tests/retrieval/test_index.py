"""BM25 index: exact rank-bm25 scores, persistence."""

from __future__ import annotations

import json
import random
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from rank_bm25 import BM25Okapi

from retrieval.snapshot import files as index_files
from retrieval.snapshot.matrix import BM25Index, BM25Params
from retrieval.snapshot.scoring import top_k
from tests.retrieval.oracle import RANK_BM25_DEFAULTS

WORDS = [f"w{i}" for i in range(40)]
documents = st.lists(
    st.lists(st.sampled_from(WORDS), min_size=1, max_size=30), min_size=1, max_size=60
)
queries = st.lists(st.sampled_from([*WORDS, "absent"]), min_size=1, max_size=8)
params = st.builds(
    BM25Params,
    k1=st.floats(0.1, 3.0),
    b=st.floats(0.0, 1.0),
    epsilon=st.floats(0.0, 1.0),
)


@given(documents, queries, params)
def test_scores_equal_rank_bm25_within_float32_rounding(
    docs: list[list[str]], query: list[str], p: BM25Params
) -> None:
    index = BM25Index.build(docs, list(range(len(docs))), p)
    reference = BM25Okapi(docs, k1=p.k1, b=p.b, epsilon=p.epsilon).get_scores(query)
    ours = index.score([(term, 1.0) for term in query]).values
    tolerance = 1e-6 * max(1.0, float(np.abs(reference).max()))
    assert np.allclose(ours, reference, rtol=1e-6, atol=tolerance)
    # Same order wherever rank-bm25's scores differ by more than float32 rounding.
    order = np.lexsort((np.arange(len(ours)), -ours))
    ranked = reference[order]
    assert np.all(ranked[:-1] >= ranked[1:] - 2 * tolerance)


def test_build_takes_a_generator_and_numbers_terms_by_first_occurrence() -> None:
    docs = [["b", "a", "b"], [], ["c", "a"]]
    index = BM25Index.build((doc for doc in docs), [7, 8, 9], RANK_BM25_DEFAULTS)
    assert index.terms == ["b", "a", "c"]
    assert index.postings("a").tolist() == [0, 2]
    assert index.postings_tf[index.offsets[0] : index.offsets[1]].tolist() == [2]
    assert index.document_terms(0).tolist() == [0, 1, 0]
    assert index.document_terms(1).tolist() == []
    assert index.doc_len.tolist() == [3, 0, 2]


def test_term_in_half_the_documents_scores_like_rank_bm25() -> None:
    # rank-bm25 gives such a term idf 0 (then epsilon-adjusted); we must agree, not "fix" it.
    docs = [["apple", "x"], ["apple", "y"], ["pear", "z"], ["plum", "z"]]
    index = BM25Index.build(docs, [0, 1, 2, 3], RANK_BM25_DEFAULTS)
    expected = BM25Okapi(docs).get_scores(["apple"])
    assert np.array_equal(index.score([("apple", 1.0)]).values, expected)


def test_matched_marks_documents_holding_a_term() -> None:
    docs = [["a", "b"], ["c"], ["b", "b"]]
    index = BM25Index.build(docs, [10, 11, 12], RANK_BM25_DEFAULTS)
    assert index.score([("b", 1.0)]).matched.tolist() == [True, False, True]
    assert index.postings("b").tolist() == [0, 2]
    assert index.document_terms(2).tolist() == [index.term_ids["b"]] * 2


def _saved(tmp_path: Path) -> tuple[BM25Index, Path]:
    rng = random.Random(3)
    docs = [[rng.choice(WORDS) for _ in range(rng.randint(1, 20))] for _ in range(50)]
    index = BM25Index.build(docs, list(range(100, 150)), RANK_BM25_DEFAULTS)
    path = tmp_path / "index"
    index.save(path, {"generation": 4})
    return index, path


def test_save_and_load_round_trip_memory_mapped(tmp_path: Path) -> None:
    index, path = _saved(tmp_path)
    loaded = BM25Index.load(path, {"generation": 4}, RANK_BM25_DEFAULTS)
    assert loaded is not None
    assert index_files.is_mapped(loaded.impacts)
    assert loaded.terms == index.terms
    assert loaded.keys.tolist() == index.keys.tolist()
    query = [("w1", 1.0), ("w7", 1.0)]
    assert np.array_equal(loaded.score(query).values, index.score(query).values)


def test_saving_again_replaces_the_directory_whole(tmp_path: Path) -> None:
    _, path = _saved(tmp_path)
    BM25Index.build([["a"]], [9], RANK_BM25_DEFAULTS).save(path, {"generation": 5})
    assert BM25Index.load(path, {"generation": 4}, RANK_BM25_DEFAULTS) is None
    loaded = BM25Index.load(path, {"generation": 5}, RANK_BM25_DEFAULTS)
    assert loaded is not None and loaded.keys.tolist() == [9]
    assert [p.name for p in tmp_path.iterdir()] == ["index"]


@pytest.mark.parametrize("name", ["impacts.npy", "postings_docs.npy", "terms.txt", "stamp.json"])
def test_a_truncated_file_reads_as_no_index(tmp_path: Path, name: str) -> None:
    _, path = _saved(tmp_path)
    file = path / name
    file.write_bytes(file.read_bytes()[: file.stat().st_size // 2])
    assert BM25Index.load(path, {"generation": 4}, RANK_BM25_DEFAULTS) is None


def test_a_missing_file_reads_as_no_index(tmp_path: Path) -> None:
    _, path = _saved(tmp_path)
    (path / "forward.npy").unlink()
    assert BM25Index.load(path, {"generation": 4}, RANK_BM25_DEFAULTS) is None


def test_a_header_without_an_array_reads_as_no_index(tmp_path: Path) -> None:
    _, path = _saved(tmp_path)
    header = json.loads((path / "stamp.json").read_text())
    del header["arrays"]["impacts"]
    (path / "stamp.json").write_text(json.dumps(header))
    assert BM25Index.load(path, {"generation": 4}, RANK_BM25_DEFAULTS) is None


def test_an_extra_array_of_an_older_layout_is_ignored(tmp_path: Path) -> None:
    index, path = _saved(tmp_path)
    header = json.loads((path / "stamp.json").read_text())
    bounds = np.zeros(len(index.terms), dtype=np.float32)  # the pruning bounds once saved
    np.save(path / "max_impact.npy", bounds)
    header["arrays"]["max_impact"] = [list(bounds.shape), bounds.dtype.str]
    (path / "stamp.json").write_text(json.dumps(header))
    loaded = BM25Index.load(path, {"generation": 4}, RANK_BM25_DEFAULTS)
    assert loaded is not None
    columns = [(number, 1.0) for number in range(len(index.terms))]
    assert top_k(loaded, columns, 5).docs.tolist() == top_k(index, columns, 5).docs.tolist()


def test_load_refuses_other_stamp_or_params(tmp_path: Path) -> None:
    _, path = _saved(tmp_path)
    assert BM25Index.load(path, {"generation": 5}, RANK_BM25_DEFAULTS) is None
    assert BM25Index.load(path, {"generation": 4}, BM25Params(k1=1.2, b=0.75, epsilon=0.25)) is None
    assert BM25Index.load(tmp_path / "missing", {"generation": 4}, RANK_BM25_DEFAULTS) is None


def test_empty_corpus_scores_nothing() -> None:
    index = BM25Index.build([], [], RANK_BM25_DEFAULTS)
    assert index.size == 0
    assert index.score([("a", 1.0)]).values.tolist() == []


def test_papers_without_any_term_build_and_score_nothing() -> None:
    # A list of stopword-only abstracts: rank-bm25 would divide by zero averaging no IDF.
    index = BM25Index.build([[], []], [0, 1], RANK_BM25_DEFAULTS)
    assert index.size == 2
    assert index.score([("a", 1.0)]).values.tolist() == [0.0, 0.0]
    grown = index.extend([["a", "b"]], [2])
    fresh = BM25Index.build([[], [], ["a", "b"]], [0, 1, 2], RANK_BM25_DEFAULTS)
    assert grown.score([("a", 1.0)]).values.tolist() == fresh.score([("a", 1.0)]).values.tolist()


def test_array_headers_are_parsed_one_thread_at_a_time(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # np.load's header parse (ast.literal_eval) is not thread-safe on CPython 3.11: every load
    # must hold the lock, whichever thread reads which saved table.
    arrays = {"a": np.arange(5, dtype=np.int64), "b": np.ones(3, dtype=np.float32)}
    index_files.write(tmp_path / "index", arrays, ["x", "y"], stamp="s1")
    held: list[bool] = []
    real_load = np.load

    def load(*args: object, **kwargs: object) -> object:
        held.append(index_files.HEADER_LOCK.locked())
        return real_load(*args, **kwargs)  # type: ignore[call-overload]

    monkeypatch.setattr(index_files.np, "load", load)
    found = index_files.read(tmp_path / "index", "s1")
    assert found is not None
    assert held == [True, True]
    assert found[1] == ["x", "y"]
    assert not index_files.HEADER_LOCK.locked()
