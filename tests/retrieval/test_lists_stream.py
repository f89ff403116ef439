"""`stream_paper_file`: papers arrive as the file is read, the end-of-file checks come after the
last paper, and what it yields and sums up equals `read_paper_file`."""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

import pytest

from retrieval.errors import ListFormatError
from retrieval.lists import read_paper_file, stream_paper_file

HEADER = "ICML 2026 论文列表"


def test_papers_arrive_before_the_end_of_file_check_rejects_the_file(tmp_path: Path) -> None:
    good = [json.dumps({"abstract": f"Paper {n} studies routing."}) for n in (1, 2)]
    path = tmp_path / "mostly-bad.jsonl"
    path.write_text("\n".join([*good, "nope", "[1]", "{}"]) + "\n", encoding="utf-8")
    stream = stream_paper_file(path)
    papers = iter(stream)

    assert [next(papers).abstract, next(papers).abstract] == [
        "Paper 1 studies routing.",
        "Paper 2 studies routing.",
    ]
    with pytest.raises(RuntimeError, match="after the last paper"):
        _ = stream.summary
    with pytest.raises(ListFormatError) as caught:
        next(papers)
    assert caught.value.line == 3
    assert "3 of 5 lines are not paper records" in str(caught.value)


def test_a_big_list_is_read_as_it_is_iterated_and_sums_up_like_read_paper_file(
    tmp_path: Path,
) -> None:
    body = "\n\n".join(f"Paper {n} studies sparse routing in depth." for n in range(1, 3001))
    path = tmp_path / "icml.txt"
    path.write_text(f"{HEADER}\n\n{body}\n", encoding="utf-8")
    size = path.stat().st_size
    stream = stream_paper_file(path)
    papers = iter(stream)

    first = next(papers)
    assert first.external_id == "icml.txt:1"
    # Only the first blocks of the file have been read, not the file.
    assert 0 < stream.bytes_read < size // 10
    rest = list(papers)
    assert stream.bytes_read == size
    whole = read_paper_file(path)
    assert (first, *rest) == whole.papers
    summary = stream.summary
    assert (summary.collection, summary.collection_from_header) == ("ICML 2026", True)
    assert summary.sha256 == whole.sha256 == hashlib.sha256(path.read_bytes()).hexdigest()
    assert summary.notes == whole.notes == ()


def open_handles(path: Path) -> int:
    """How many of this process's file descriptors point at `path` (Linux /proc)."""
    folder = Path("/proc/self/fd")
    return sum(1 for fd in folder.iterdir() if os.path.realpath(fd) == str(path.resolve()))


@pytest.mark.skipif(not Path("/proc/self/fd").is_dir(), reason="needs Linux /proc")
def test_a_stream_closed_early_releases_the_file(tmp_path: Path) -> None:
    path = tmp_path / "icml.txt"
    path.write_text(f"{HEADER}\n\nPaper one.\n\nPaper two.\n", encoding="utf-8")
    stream = stream_paper_file(path)
    papers = iter(stream)
    assert next(papers).abstract == "Paper one."
    assert open_handles(path) == 1
    stream.close()
    assert open_handles(path) == 0
    assert list(papers) == []
