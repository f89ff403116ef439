"""Index persistence leaves no litter: a killed save's temporary directory is removed later.

A SIGKILL during `BM25Index.save` leaves `.<index>.tmp-*` beside the index directory. The next
save deletes such leftovers once they are older than ten minutes; a younger one may be another
process's save in progress, so it is left alone. Nothing ever reads them.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

from retrieval.snapshot.matrix import BM25Index
from tests.retrieval.oracle import RANK_BM25_DEFAULTS


def test_a_later_save_removes_old_temporary_directories_only(tmp_path: Path) -> None:
    index = BM25Index.build([["a", "b"], ["b", "c"]], [1, 2], RANK_BM25_DEFAULTS)
    path = tmp_path / "bm25"
    old = tmp_path / ".bm25.tmp-k1ll3d"
    young = tmp_path / ".bm25.tmp-busy01"
    unrelated = tmp_path / ".other.tmp-x"
    for leftover in (old, young, unrelated):
        leftover.mkdir()
        (leftover / "impacts.npy").write_bytes(b"half an index")
    an_hour_ago = time.time() - 3600
    for leftover in (old, unrelated):
        os.utime(leftover, (an_hour_ago, an_hour_ago))
    index.save(path, {"generation": 1})
    assert not old.exists()
    assert young.exists()  # perhaps another process's save, still being written
    assert unrelated.exists()  # not ours
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
        [path.name, young.name, unrelated.name]
    )
    assert BM25Index.load(path, {"generation": 1}, RANK_BM25_DEFAULTS) is not None
