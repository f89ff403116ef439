"""The sentence table of a corpus: built off the answer path, saved, mapped on the next open
without analysing anything, extended by an ingest's papers only, rebuilt when damaged; answers
are the same with it, without it, and while it is being built."""

from __future__ import annotations

import asyncio
import shutil
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from config.settings import Settings
from retrieval.engine import Engine
from retrieval.models import Answer
from retrieval.snapshot import load_sentences as corpus_sentences
from retrieval.snapshot.load_sentences import sentences_path, usable_prefix
from retrieval.snapshot.sentence_records import SentenceRecord, sentence_records
from retrieval.snapshot.sentences import SentenceTable
from tests.conftest import FIXTURE_ABSTRACTS, SEEDS, write_list
from tests.retrieval.test_table_excerpts import ABSTRACTS, TITLES, table_of
from tests.waits import until

QUESTIONS = [
    "mixture of experts routing",
    "retrieval augmented generation poisoning",
    "diffusion sampler steps",
    "graph oversmoothing normalization",
    "reward hacking verbosity 35.5%",
    "protein folding zzz",
]


def same_arrays(left: SentenceTable, right: SentenceTable) -> bool:
    return set(left.arrays) == set(right.arrays) and all(
        np.array_equal(np.asarray(left.arrays[name]), np.asarray(right.arrays[name]))
        and left.arrays[name].dtype == right.arrays[name].dtype
        for name in left.arrays
    )


def test_joining_chunks_equals_building_at_once_and_a_prefix_is_the_first_documents() -> None:
    index, whole = table_of(ABSTRACTS, TITLES)
    keys = list(range(1, len(ABSTRACTS) + 1))
    records = _records(index)
    chunks = [SentenceTable.empty(), SentenceTable.build(keys[:2], records[:2])]
    chunks += [
        SentenceTable.build(keys[2:3], records[2:3]),
        SentenceTable.build(keys[3:], records[3:]),
    ]
    assert same_arrays(SentenceTable.joined(chunks), whole)
    for size in range(len(ABSTRACTS) + 1):
        assert same_arrays(whole.prefix(size), SentenceTable.build(keys[:size], records[:size]))
    assert same_arrays(
        SentenceTable.joined([whole.prefix(2), SentenceTable.build(keys[2:], records[2:])]), whole
    )


def _records(index: Any) -> list[SentenceRecord]:
    vocabulary = np.asarray(index.terms, dtype=object)
    return sentence_records(
        [
            (abstract, corpus_sentences._document(index, vocabulary, doc))
            for doc, abstract in enumerate(ABSTRACTS)
        ]
    )


def test_a_saved_table_loads_only_whole_and_for_its_stamp(tmp_path: Path) -> None:
    _, table = table_of(ABSTRACTS, TITLES)
    path = tmp_path / "sentences"
    table.save(path, {"analyzer": 2})
    loaded = SentenceTable.load(path, {"analyzer": 2})
    assert loaded is not None and same_arrays(loaded, table)
    assert SentenceTable.load(path, {"analyzer": 3}) is None  # another analyzer
    assert SentenceTable.load(tmp_path / "missing", {"analyzer": 2}) is None
    span_file = path / "span_start.npy"
    span_file.write_bytes(span_file.read_bytes()[:-4])  # truncated
    assert SentenceTable.load(path, {"analyzer": 2}) is None


def test_only_the_prefix_of_keys_shared_with_the_index_is_kept() -> None:
    index, table = table_of(ABSTRACTS, TITLES)
    assert usable_prefix(index, [None, table]).size == len(ABSTRACTS)
    keys = np.asarray(table.keys).copy()
    keys[3] = 99  # the store lost the fourth paper: everything from it on is not vouched for
    other = SentenceTable({**table.arrays, "keys": keys})
    assert usable_prefix(index, [other]).size == 3
    assert usable_prefix(index, [other, table.prefix(4)]).size == 4  # the longest wins
    assert usable_prefix(index, []).size == 0


async def wait_complete(engine: Engine) -> None:
    """Until the background build has completed the sentence table (a hang fails)."""

    await until(lambda: engine.corpus.sentences.table.size == engine.corpus.index.size)


async def answers(engine: Engine) -> list[Answer]:
    found = []
    for question in QUESTIONS:
        answer = await engine.ask(question, limit=10)
        found.append(answer)
    return found


def comparable(answer: Answer) -> tuple[object, ...]:
    return (answer.hits, answer.lead, answer.lead_paper_id, answer.total)


class CountingRecords:
    """Counts the abstracts analysed for the table (in this process)."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.count = 0
        monkeypatch.setattr(corpus_sentences, "sentence_records", self)

    def __call__(self, papers: Sequence[tuple[str, Sequence[str]]]) -> list[SentenceRecord]:
        self.count += len(papers)
        return sentence_records(papers)


async def test_answers_are_the_same_with_and_without_the_table_and_it_is_saved_and_mapped(
    make_settings: Callable[..., Settings], monkeypatch: pytest.MonkeyPatch
) -> None:
    settings = make_settings(seeds_dir=SEEDS)
    analysed = CountingRecords(monkeypatch)
    engine = await Engine.open(settings)
    try:
        await wait_complete(engine)
        size = engine.corpus.index.size
        assert analysed.count == size > 30
        assert int(np.count_nonzero(engine.corpus.sentences.table.state)) == size  # all usable
        with_table = await answers(engine)
        engine.corpus.sentences.table = SentenceTable.empty()
        without = await answers(engine)
    finally:
        await engine.close()
    assert [comparable(a) for a in with_table] == [comparable(a) for a in without]
    assert sum(len(answer.hits) for answer in with_table) > 20
    assert (settings.index_location / "sentences" / "stamp.json").exists()

    engine = await Engine.open(settings)  # the saved table: whole at open, nothing analysed
    try:
        assert engine.corpus.sentences.table.size == engine.corpus.index.size
        assert analysed.count == size
        again = await answers(engine)
    finally:
        await engine.close()
    assert [comparable(a) for a in again] == [comparable(a) for a in with_table]


async def test_an_ingest_analyses_only_its_papers_and_leaves_the_table_whole(
    tmp_path: Path,
    make_settings: Callable[..., Settings],
    fixture_seeds: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    settings = make_settings(seeds_dir=fixture_seeds)
    engine = await Engine.open(settings)
    try:
        await wait_complete(engine)
    finally:
        await engine.close()
    analysed = CountingRecords(monkeypatch)
    more = write_list(
        tmp_path / "more.txt",
        [f"{text} Extra sentence {n}." for n, text in enumerate(FIXTURE_ABSTRACTS)],
        header="More 2026",
    )
    # A one-shot command (`paperbot ingest`): nothing in the background, the table completed
    # before the command returns.
    engine = await Engine.open(settings, warm=False)
    try:
        report = await engine.ingest([more])
        assert report.papers_added == len(FIXTURE_ABSTRACTS)
        assert engine.corpus.sentences.table.size == engine.corpus.index.size == 12
        assert analysed.count == len(FIXTURE_ABSTRACTS)
        with_table = await answers(engine)
        engine.corpus.sentences.table = SentenceTable.empty()
        assert [comparable(a) for a in await answers(engine)] == [comparable(a) for a in with_table]
    finally:
        await engine.close()


async def test_a_damaged_table_is_rebuilt_and_answers_never_fail_while_it_is(
    make_settings: Callable[..., Settings], fixture_seeds: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    settings = make_settings(seeds_dir=fixture_seeds)
    engine = await Engine.open(settings)
    try:
        await wait_complete(engine)
        expected = [comparable(a) for a in await answers(engine)]
    finally:
        await engine.close()
    path = sentences_path(settings.index_location)
    (path / "first_sentence.npy").write_bytes(b"garbage")
    analysed = CountingRecords(monkeypatch)
    engine = await Engine.open(settings)
    try:
        # Before the rebuild finishes or after: the same answers.
        assert [comparable(a) for a in await answers(engine)] == expected
        await wait_complete(engine)
        assert analysed.count == 6
        assert [comparable(a) for a in await answers(engine)] == expected
    finally:
        await engine.close()
    shutil.rmtree(path)
    engine = await Engine.open(settings)  # no table at all
    try:
        assert [comparable(a) for a in await answers(engine)] == expected
        await wait_complete(engine)
    finally:
        await engine.close()


async def test_closing_during_a_save_waits_for_its_files(
    make_settings: Callable[..., Settings], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The thread writing the table cannot be stopped; close() must outlast it, or a caller
    deleting the index folder next (paperbot eval's temporary engine) races its writes."""
    started, release = threading.Event(), threading.Event()
    save = SentenceTable.save

    def slow_save(self: SentenceTable, path: Path, stamp: dict[str, Any]) -> None:
        started.set()
        release.wait(10)
        save(self, path, stamp)

    monkeypatch.setattr(SentenceTable, "save", slow_save)
    settings = make_settings(seeds_dir=SEEDS)
    engine = await Engine.open(settings)
    await until(started.is_set)
    closing = asyncio.ensure_future(engine.close())
    await asyncio.sleep(0.05)
    assert not closing.done()  # still waiting for the file write
    release.set()
    await closing
    assert (settings.index_location / "sentences" / "stamp.json").exists()
