"""Unit tests for what the reliability work found and fixed, one behaviour each."""

from __future__ import annotations

import difflib
import os
import sqlite3
from pathlib import Path

import pytest

from retrieval import ranking, text
from retrieval.errors import ListFormatError, StoreError
from retrieval.ids import paper_key
from retrieval.lists import find_paper_files, read_paper_bytes, read_paper_file
from retrieval.query import MAX_PHRASES, parse_query
from retrieval.stores.sqlite import SqliteStore as Store


def test_repeated_phrases_count_once_whatever_their_case_and_spacing() -> None:
    parsed = parse_query('"Mixture of Experts" "mixture  of experts" "MIXTURE OF EXPERTS" moe')
    assert parsed.phrases == ("Mixture of Experts",)


def test_at_most_max_phrases_are_enforced_and_the_rest_stay_words() -> None:
    words = [f"w{n}" for n in range(MAX_PHRASES + 3)]
    parsed = parse_query(" ".join(f'"{word} x"' for word in words))
    assert parsed.phrases == tuple(f"{word} x" for word in words[:MAX_PHRASES])
    assert all(word in parsed.text.split() for word in words)


def test_repeated_exclusions_and_filters_count_once() -> None:
    parsed = parse_query("moe -survey -survey in:icml in:icml")
    assert parsed.excluded == ("survey",) and parsed.collections == ("icml",)


@pytest.mark.parametrize(
    "disguised",
    [
        "retrie\u00adval",  # soft hyphen from a PDF
        "retr\u200bieval",  # zero-width space
        "retr\u200d\u200cieval",  # joiners
        "\u202eretrieval\u202c",  # bidi override
        "retrie\u2066val\u2069",  # bidi isolate inside the word
        "retrieval\ufe0f",  # variation selector
        "retr\U000e0041ieval",  # tag character
        "retrie&shy;val",  # the same as an HTML entity
    ],
)
def test_invisible_characters_do_not_split_words(disguised: str) -> None:
    assert text.analyze(disguised) == text.analyze("retrieval") == ["retriev"]


def test_display_text_drops_bidi_controls() -> None:
    assert text.clean_for_display("a \u202egnp.exe\u202c b") == "a gnp.exe b"


def test_analyzer_version_was_bumped_for_the_new_rule() -> None:
    assert text.ANALYZER_VERSION >= 2


def test_paper_limit_names_the_line_in_lists_and_jsonl() -> None:
    listing = "Header 2026\n\n" + "".join(f"Paper number {n}.\n\n" for n in range(5))
    with pytest.raises(ListFormatError) as raised:
        read_paper_bytes("many.txt", listing.encode(), max_papers=3)
    assert str(raised.value).startswith("many.txt:9: more than 3 abstracts")
    jsonl = "".join(f'{{"abstract": "paper {n}"}}\n' for n in range(5))
    with pytest.raises(ListFormatError) as raised:
        read_paper_bytes("many.jsonl", jsonl.encode(), max_papers=3)
    assert str(raised.value).startswith("many.jsonl:4: more than 3 abstracts")
    assert len(read_paper_bytes("ok.txt", listing.encode(), max_papers=5).papers) == 5


def test_a_pipe_is_refused_without_opening_it(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe.txt"
    os.mkfifo(fifo)
    for call in (read_paper_file, lambda path: find_paper_files([path])):
        with pytest.raises(ListFormatError, match="not a regular file"):
            call(fifo)


def test_symlink_loops_and_broken_links_are_named(tmp_path: Path) -> None:
    (tmp_path / "a.txt").symlink_to(tmp_path / "b.txt")
    (tmp_path / "b.txt").symlink_to(tmp_path / "a.txt")
    (tmp_path / "gone.txt").symlink_to(tmp_path / "missing.txt")
    with pytest.raises(ListFormatError, match="symlink loop"):
        read_paper_file(tmp_path / "a.txt")
    for name in ("a.txt", "gone.txt"):
        with pytest.raises(ListFormatError, match="broken symlink or a symlink loop"):
            find_paper_files([tmp_path / name])
    with pytest.raises(ListFormatError, match="no such file"):
        read_paper_file(tmp_path / "gone.txt")


def test_paper_ids_with_thousands_of_digits_are_not_ids() -> None:
    # int() of more than 4,300 digits raises ValueError; such an id is simply not found.
    assert paper_key("icml2026-" + "9" * 5000) is None
    assert paper_key("ICML2026-" + "0" * 30 + "7") == "icml2026-7"
    assert paper_key("x-000") == "x-0"


def test_did_you_mean_looks_up_only_the_first_few_unknown_words(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from retrieval.corpus import Corpus
    from retrieval.snapshot.autocomplete_build import build_autocomplete
    from retrieval.snapshot.matrix import BM25Index
    from retrieval.snapshot.papers import PaperTable
    from tests.retrieval.oracle import RANK_BM25_DEFAULTS

    index = BM25Index.build([["alpha", "beta"]], [1], RANK_BM25_DEFAULTS)
    papers = PaperTable.build(["a-1"], ["A"], [1], [["a"]], ["a"])
    corpus = Corpus(
        index=index,
        collections={},
        acronyms=None,  # type: ignore[arg-type]
        papers=papers,
        autocomplete=build_autocomplete(papers),
        generation=0,
    )
    calls = []
    real = difflib.get_close_matches

    def counting(word: str, pool: list[str], **kwargs: object) -> list[str]:
        calls.append(word)
        return real(word, pool, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(difflib, "get_close_matches", counting)
    unknown = [f"alphx{n}" for n in range(50)] + ["alphx0"] * 50
    ranking.did_you_mean(corpus, unknown)
    assert calls == unknown[: ranking.MAX_SUGGESTED_TERMS]


async def test_a_damaged_database_is_a_store_error_not_a_traceback(tmp_path: Path) -> None:
    db_path = tmp_path / "paperbot.db"
    store = await Store.open(db_path)
    await store.record_command_sync("x", "y" * 50_000)  # a few pages to damage
    await store.close()
    with sqlite3.connect(db_path) as connection:
        connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    size = db_path.stat().st_size
    with db_path.open("r+b") as file:
        file.seek(size // 2)
        file.write(b"\xa5" * (size - size // 2))
    store = await Store.open(db_path)
    try:
        with pytest.raises(StoreError, match="damaged"):
            await store.command_sync_hash("x")
    finally:
        await store.close()
