"""Index persistence leaves no litter: a killed save's temporary file is removed by a later save.

A SIGKILL during `BM25Index.save` leaves `<index>*.tmp` beside the database (the kill test sees
it happen). The next save deletes such files once they are older than ten minutes; a younger one
may be another process's save in progress, so it is left alone. Nothing ever reads them.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

from retrieval.index import BM25Index
from tests.retrieval.oracle import RANK_BM25_DEFAULTS


def test_a_later_save_removes_old_temporary_files_only(tmp_path: Path) -> None:
    index = BM25Index.build([["a", "b"], ["b", "c"]], [1, 2], RANK_BM25_DEFAULTS)
    path = tmp_path / "paperbot.db.index.npz"
    old = tmp_path / "paperbot.db.index.npzk1ll3d.tmp"
    young = tmp_path / "paperbot.db.index.npzbusy01.tmp"
    unrelated = tmp_path / "other.npz.tmp"
    for leftover in (old, young, unrelated):
        leftover.write_bytes(b"half an index")
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
