"""The papers of a corpus as flat arrays: id, label, store key and collection memberships per
document, and id -> document lookup by binary search.

Saved beside the BM25 index (`index_files`: stamped, written atomically, memory-mapped on open),
so opening a corpus of a million papers maps a few files instead of building a million Python
strings, tuples and dict entries. Ids are fixed-width UTF-8 bytes (they are `<slug>-<n>`, short
and never ending in NUL), labels a UTF-8 blob with offsets; `sorted_ids` and its permutation
`id_order` answer `doc_of` with `np.searchsorted`.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from retrieval.snapshot import files as index_files

BoolArray = npt.NDArray[np.bool_]
_ARRAYS = ("ids", "sorted_ids", "id_order", "labels", "label_offsets", "keys", "masks")


class PaperTable:
    """Per-document paper ids, labels, store keys and collection masks (document order)."""

    def __init__(self, arrays: dict[str, npt.NDArray[Any]], slugs: Sequence[str]) -> None:
        self._ids = arrays["ids"]
        # The ids in byte order and the document of each: id lookups and id-prefix ranges.
        self.sorted_ids: npt.NDArray[np.bytes_] = arrays["sorted_ids"]
        self.id_order: npt.NDArray[np.int64] = arrays["id_order"]
        self._labels = arrays["labels"]
        self._label_offsets = arrays["label_offsets"]
        self.keys: npt.NDArray[np.int64] = arrays["keys"]
        self._masks: BoolArray = arrays["masks"]
        self.slugs = list(slugs)

    @classmethod
    def build(
        cls,
        ids: Sequence[str],
        labels: Sequence[str],
        keys: Sequence[int],
        memberships: Sequence[Sequence[str]],
        slugs: Sequence[str],
    ) -> PaperTable:
        """A table from per-document ids, labels, keys and the slugs each paper belongs to;
        `slugs` are the collections that get a mask (memberships of other slugs are dropped)."""
        size = len(ids)
        encoded = [paper_id.encode("utf-8") for paper_id in ids]
        width = max((len(value) for value in encoded), default=0)
        id_array = np.array(encoded, dtype=f"S{max(width, 1)}").reshape(size)
        order = np.argsort(id_array, kind="stable").astype(np.int64)
        label_bytes = [label.encode("utf-8") for label in labels]
        offsets = np.zeros(size + 1, dtype=np.int64)
        np.cumsum([len(value) for value in label_bytes], out=offsets[1:])
        row_of = {slug: number for number, slug in enumerate(slugs)}
        masks = np.zeros((len(slugs), size), dtype=np.bool_)
        for doc, member_of in enumerate(memberships):
            for slug in member_of:
                if slug in row_of:
                    masks[row_of[slug], doc] = True
        arrays: dict[str, npt.NDArray[Any]] = {
            "ids": id_array,
            "sorted_ids": id_array[order],
            "id_order": order,
            "labels": np.frombuffer(b"".join(label_bytes), dtype=np.uint8),
            "label_offsets": offsets,
            "keys": np.asarray(keys, dtype=np.int64).reshape(size),
            "masks": masks,
        }
        return cls(arrays, slugs)

    # -- per document ------------------------------------------------------------------------

    def __len__(self) -> int:
        return len(self._ids)

    def paper_id(self, doc: int) -> str:
        return bytes(self._ids[doc]).decode("utf-8")

    def label(self, doc: int) -> str:
        start, stop = self._label_offsets[doc : doc + 2].tolist()
        return self._labels[start:stop].tobytes().decode("utf-8")

    def entry(self, doc: int) -> tuple[str, str]:
        """(paper id, label) of document `doc`, what autocomplete shows."""
        return self.paper_id(doc), self.label(doc)

    def doc_of(self, paper_id: str) -> int | None:
        """The document holding `paper_id` (exact, as stored), or None."""
        try:
            wanted = paper_id.encode("utf-8")
        except UnicodeEncodeError:
            return None  # a lone surrogate: no stored id (valid UTF-8) equals it
        if not wanted or len(wanted) > self.sorted_ids.dtype.itemsize or b"\0" in wanted:
            return None  # fixed-width bytes cannot hold it, so no stored id equals it
        place = int(np.searchsorted(self.sorted_ids, wanted))
        if place < len(self.sorted_ids) and bytes(self.sorted_ids[place]) == wanted:
            return int(self.id_order[place])
        return None

    def mask(self, slug: str) -> BoolArray:
        """Documents that are members of collection `slug` (all False for an unknown slug)."""
        if slug in self.slugs:
            row: BoolArray = self._masks[self.slugs.index(slug)]
            return row
        return np.zeros(len(self), dtype=np.bool_)

    # -- all documents -----------------------------------------------------------------------

    def paper_ids(self) -> list[str]:
        """Every paper id in document order (one pass over the array, not per-item lookups)."""
        return [value.decode("utf-8") for value in self._ids.tolist()]

    def entries(self, start: int = 0, stop: int | None = None) -> list[tuple[str, str]]:
        """(paper id, label) of documents start..stop-1, in document order."""
        stop = len(self) if stop is None else min(stop, len(self))
        if start >= stop:
            return []
        ids = [value.decode("utf-8") for value in self._ids[start:stop].tolist()]
        offsets = self._label_offsets[start : stop + 1].tolist()
        base = offsets[0]
        blob = self._labels[base : offsets[-1]].tobytes()
        return [
            (paper_id, blob[begin - base : end - base].decode("utf-8"))
            for paper_id, begin, end in zip(ids, offsets, offsets[1:], strict=False)
        ]

    def id_bytes(
        self, start: int, stop: int
    ) -> tuple[npt.NDArray[np.uint8], npt.NDArray[np.int64]]:
        """The UTF-8 bytes of the ids of documents start..stop-1 and each one's offsets into
        them (n + 1, from 0); an id is padded with NULs to the table's id width."""
        ids = np.ascontiguousarray(self._ids[start:stop])
        width = ids.dtype.itemsize
        return ids.view(np.uint8), np.arange(len(ids) + 1, dtype=np.int64) * width

    def label_bytes(
        self, start: int, stop: int
    ) -> tuple[npt.NDArray[np.uint8], npt.NDArray[np.int64]]:
        """The UTF-8 bytes of the labels of documents start..stop-1 and each one's offsets into
        them (n + 1, from 0): no Python string per label."""
        offsets = np.asarray(self._label_offsets[start : stop + 1], dtype=np.int64)
        if not len(offsets):
            return np.zeros(0, np.uint8), np.zeros(1, np.int64)
        return np.asarray(self._labels[offsets[0] : offsets[-1]]), offsets - offsets[0]

    def __iter__(self) -> Iterator[tuple[str, str]]:
        step = 65_536
        for start in range(0, len(self), step):
            yield from self.entries(start, start + step)

    # -- files -------------------------------------------------------------------------------

    def save(self, path: Path, stamp: dict[str, Any]) -> None:
        """Write the table directory `path` atomically (see index_files)."""
        arrays: dict[str, npt.NDArray[Any]] = {
            "ids": self._ids,
            "sorted_ids": self.sorted_ids,
            "id_order": self.id_order,
            "labels": self._labels,
            "label_offsets": self._label_offsets,
            "keys": self.keys,
            "masks": self._masks,
        }
        # The slugs ride in index_files' word list (one per line; slugs hold no newline).
        index_files.write(path, arrays, self.slugs, stamp)

    @classmethod
    def load(cls, path: Path, stamp: dict[str, Any]) -> PaperTable | None:
        """The saved table, memory-mapped, if it was written for `stamp` and is whole; None if
        missing, stale, truncated or inconsistent: the caller rebuilds it."""
        found = index_files.read(path, stamp)
        if found is None:
            return None
        arrays, slugs = found
        if set(arrays) != set(_ARRAYS):
            return None
        size = len(arrays["ids"])
        sizes = [len(arrays[name]) for name in ("sorted_ids", "id_order", "keys")]
        consistent = (
            sizes == [size] * 3
            and arrays["label_offsets"].shape == (size + 1,)
            and arrays["masks"].shape == (len(slugs), size)
            and int(arrays["label_offsets"][-1]) == len(arrays["labels"])
        )
        return cls(arrays, slugs) if consistent else None
