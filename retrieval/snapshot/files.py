"""An index as a directory of flat .npy arrays, memory-mapped on open, replaced atomically.

Opening maps the files (`np.load(mmap_mode="r")`): no per-paper Python objects, pages are read
on first use and shared by every process that maps the same files. `stamp.json` names the
format, the caller's stamp (corpus generation, analyzer version), the BM25 parameters and each
array's shape and dtype; it is written last, inside a temporary directory that is renamed into
place, so a reader sees a whole index or none. Anything missing, truncated or stamped otherwise
reads as None: the caller rebuilds, never crashes.
"""

from __future__ import annotations

import contextlib
import json
import mmap
import os
import shutil
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

FORMAT = 2
STAMP_FILE = "stamp.json"
TERMS_FILE = "terms.txt"
# Older temporary directories are leftovers of a killed save, not another save in progress.
_STALE_SECONDS = 600
# np.load parses each file's header with ast.literal_eval, and CPython 3.11 keeps the AST
# constructor's recursion depth per interpreter, not per thread: two threads parsing at once can
# raise "SystemError: AST constructor recursion depth mismatch" (seen here on 3.11.7 in a test
# that opens an engine; see CPython gh-106905). The index, paper table, autocomplete and
# sentence table load in worker threads at the same time, so their headers are read one at a
# time (microseconds; the mapping itself is not serialised).
HEADER_LOCK = threading.Lock()


def write(
    directory: Path, arrays: dict[str, npt.NDArray[Any]], terms: list[str], stamp: Any
) -> None:
    """Write `arrays` and `terms` under `directory`, replacing what was there in one rename."""
    parent = directory.parent
    parent.mkdir(parents=True, exist_ok=True)
    for stale in parent.glob(f".{directory.name}.*"):
        with contextlib.suppress(OSError):
            if time.time() - stale.stat().st_mtime > _STALE_SECONDS:
                shutil.rmtree(stale, ignore_errors=True)
    temporary = Path(tempfile.mkdtemp(dir=parent, prefix=f".{directory.name}.tmp-"))
    try:
        shapes = {}
        for name, array in arrays.items():
            np.save(temporary / f"{name}.npy", np.ascontiguousarray(array), allow_pickle=False)
            shapes[name] = [list(array.shape), array.dtype.str]
        (temporary / TERMS_FILE).write_text("\n".join(terms), encoding="utf-8")
        header = {"format": FORMAT, "stamp": stamp, "arrays": shapes, "terms": len(terms)}
        with (temporary / STAMP_FILE).open("w", encoding="utf-8") as file:
            json.dump(header, file)
            file.flush()
            os.fsync(file.fileno())
        # Move the old index aside first: a directory cannot be renamed over a non-empty one.
        # Processes that mapped the old files keep reading them until they reopen.
        old = None
        if directory.exists():
            old = Path(tempfile.mkdtemp(dir=parent, prefix=f".{directory.name}.old-"))
            directory.rename(old / "index")
        temporary.rename(directory)
        if old is not None:
            shutil.rmtree(old, ignore_errors=True)
    except BaseException:
        shutil.rmtree(temporary, ignore_errors=True)
        raise


def read(directory: Path, stamp: Any) -> tuple[dict[str, npt.NDArray[Any]], list[str]] | None:
    """The mapped arrays and the terms if `directory` holds a whole index for `stamp`."""
    try:
        header = json.loads((directory / STAMP_FILE).read_text(encoding="utf-8"))
        if header.get("format") != FORMAT or header.get("stamp") != stamp:
            return None
        arrays = {}
        for name, (shape, dtype) in header["arrays"].items():
            with HEADER_LOCK:
                array = np.load(directory / f"{name}.npy", mmap_mode="r", allow_pickle=False)
            if list(array.shape) != shape or array.dtype.str != dtype:
                return None
            # A plain ndarray view of the mapping (which it keeps open): np.memmap's own
            # __getitem__ runs in Python, microseconds per lookup on every question.
            arrays[name] = np.asarray(array)
        text = (directory / TERMS_FILE).read_text(encoding="utf-8")
        terms = text.split("\n") if text else []
        if len(terms) != header["terms"]:
            return None
        return arrays, terms
    except (OSError, ValueError, KeyError, TypeError, UnicodeDecodeError):
        # Missing or truncated files, a broken header: rebuild.
        return None


def is_mapped(array: Any) -> bool:
    """Whether `array` reads a mapped file (its own pages are not held in memory)."""
    while array is not None:
        if isinstance(array, np.memmap | mmap.mmap):
            return True
        array = getattr(array, "base", None)
    return False


def saved_stamp(directory: Path) -> Any:
    """The caller's stamp `directory`'s index was written with (None if there is none): lets a
    caller reuse an index of an earlier corpus generation as the base of an append."""
    try:
        header = json.loads((directory / STAMP_FILE).read_text(encoding="utf-8"))
        return header.get("stamp") if header.get("format") == FORMAT else None
    except (OSError, ValueError, AttributeError, UnicodeDecodeError):
        return None
