"""The spool between the ingest process pool and the store: chunks come back in order, as often
as they are read (a retried transaction reads them again), and the file is gone after close."""

from __future__ import annotations

import pickle
from collections.abc import Sequence
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from retrieval.spool import ChunkSpool
from retrieval.stores.protocol import NewPaper, PaperChunks
from tests.retrieval.stores.papers import new_paper


def blob(papers: Sequence[NewPaper]) -> bytes:
    return pickle.dumps(list(papers))


async def read_all(chunks: PaperChunks) -> list[list[NewPaper]]:
    return [list(chunk) async for chunk in chunks.read()]


async def test_chunks_come_back_in_order_on_every_read(tmp_path: Path) -> None:
    written = [[new_paper(1), new_paper(2)], [], [new_paper(3)]]
    seen: list[int] = []
    with ChunkSpool(tmp_path) as spool:
        for chunk in written:
            spool.append(blob(chunk))
        chunks = spool.chunks(seen.append)
        assert await read_all(chunks) == written
        assert await read_all(chunks) == written
        assert len(spool) == 3
    assert seen == [2, 0, 1, 2, 0, 1]


@given(sizes=st.lists(st.integers(0, 40), max_size=8))
def test_any_chunk_sizes_round_trip(sizes: list[int]) -> None:
    import asyncio
    import tempfile

    written = [[new_paper(n * 100 + i) for i in range(size)] for n, size in enumerate(sizes)]
    with tempfile.TemporaryDirectory() as folder, ChunkSpool(Path(folder)) as spool:
        for chunk in written:
            spool.append(blob(chunk))
        assert asyncio.run(read_all(spool.chunks())) == written


def test_the_file_is_deleted_on_close_and_after_an_error(tmp_path: Path) -> None:
    with ChunkSpool(tmp_path) as spool:
        spool.append(blob([new_paper(1)]))
        assert spool.path.parent == tmp_path and spool.path.exists()
    assert list(tmp_path.iterdir()) == []
    with pytest.raises(RuntimeError), ChunkSpool(tmp_path) as spool:
        spool.append(blob([new_paper(1)]))
        raise RuntimeError("the parser found a bad line")
    assert list(tmp_path.iterdir()) == []
    spool.close()  # a second close is harmless
