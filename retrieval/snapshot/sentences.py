"""The sentence table: for the first `size` documents of an index, each abstract's sentences as
flat arrays, so an excerpt needs no re-analysis of the abstract per question.

Per document: whether its record is usable (`STATE_*`), the abstract's length (a fetched paper
is checked against it), where its sentences start in the per-sentence arrays, and its cleaned
text when that differs from the abstract (a UTF-8 blob with offsets; three abstracts in four
need none). Per sentence: its character span in the cleaned text and its token range in the
document's slice of the index's forward array (title tokens first). Saved beside the index with
`index_files` (stamped, written atomically, memory-mapped on open): a missing, truncated or
stale table reads as None and is rebuilt. Documents are a prefix of the index's: an ingest
appends papers, so the table of an earlier corpus is extended, never rebuilt.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any, Final

import numpy as np
import numpy.typing as npt

from retrieval.snapshot import files as index_files
from retrieval.snapshot.sentence_records import SentenceRecord

VERSION: Final = 2  # bump when what a record holds, or how it is computed, changes

STATE_UNUSABLE: Final = 0  # excerpts come from the abstract itself
STATE_CLEAN_IS_ABSTRACT: Final = 1
STATE_CLEAN_STORED: Final = 2

_PER_DOCUMENT = ("keys", "state", "length")
_OFFSETS = ("first_sentence", "clean_offsets", "first_token")
_PER_SENTENCE = ("span_start", "span_end", "token_start", "token_end")
_BLOBS = ("clean", "word_offset")
_DTYPES: Final[dict[str, Any]] = {
    "keys": np.int64,
    "state": np.int8,
    "length": np.int64,
    "first_sentence": np.int64,
    "clean_offsets": np.int64,
    "clean": np.uint8,
    "first_token": np.int64,
    "word_offset": np.uint16,
    "span_start": np.int32,
    "span_end": np.int32,
    "token_start": np.int32,
    "token_end": np.int32,
}


class SentenceTable:
    """Sentences of documents 0..size-1 (store keys `keys`), as flat arrays."""

    def __init__(self, arrays: dict[str, npt.NDArray[Any]]) -> None:
        # Plain ndarray views of mapped files: `np.memmap` indexing runs Python code per access.
        arrays = {name: np.asarray(array) for name, array in arrays.items()}
        self.arrays = arrays
        self.keys: npt.NDArray[np.int64] = arrays["keys"]
        self.state: npt.NDArray[np.int8] = arrays["state"]
        self.length: npt.NDArray[np.int64] = arrays["length"]
        self.first_sentence: npt.NDArray[np.int64] = arrays["first_sentence"]
        self.clean_offsets: npt.NDArray[np.int64] = arrays["clean_offsets"]
        self.clean: npt.NDArray[np.uint8] = arrays["clean"]
        self.span_start: npt.NDArray[np.int32] = arrays["span_start"]
        self.span_end: npt.NDArray[np.int32] = arrays["span_end"]
        self.token_start: npt.NDArray[np.int32] = arrays["token_start"]
        self.token_end: npt.NDArray[np.int32] = arrays["token_end"]
        self.first_token: npt.NDArray[np.int64] = arrays["first_token"]
        self.word_offset: npt.NDArray[np.uint16] = arrays["word_offset"]
        self.size = len(self.keys)

    @classmethod
    def empty(cls) -> SentenceTable:
        return cls.build([], [])

    @classmethod
    def build(cls, keys: Sequence[int], records: Sequence[SentenceRecord]) -> SentenceTable:
        """A table of documents with store keys `keys` and their records, in document order."""
        if len(keys) != len(records):
            raise ValueError(f"{len(keys)} keys but {len(records)} records")
        usable = [record.title_tokens >= 0 for record in records]
        state = [
            STATE_UNUSABLE
            if not ok
            else STATE_CLEAN_IS_ABSTRACT
            if record.clean is None
            else STATE_CLEAN_STORED
            for ok, record in zip(usable, records, strict=True)
        ]
        counts = [len(record.spans) for record in records]
        clean = [(record.clean or "").encode("utf-8") for record in records]
        spans = [span for record in records for span in record.spans]
        token_start: list[int] = []
        token_end: list[int] = []
        word_offset: list[int] = []
        for ok, record in zip(usable, records, strict=True):
            position = record.title_tokens
            for count in record.token_counts:
                token_start.append(position)
                position += count
                token_end.append(position)
            # One entry per index token of the document, the title's (never looked up) too.
            word_offset.extend([0] * (record.title_tokens if ok else record.tokens))
            word_offset.extend(record.word_offsets)
        arrays: dict[str, npt.NDArray[Any]] = {
            "keys": np.asarray(keys, dtype=np.int64),
            "state": np.asarray(state, dtype=np.int8),
            "length": np.asarray([record.length for record in records], dtype=np.int64),
            "first_sentence": _offsets(counts),
            "clean_offsets": _offsets([len(value) for value in clean]),
            "clean": np.frombuffer(b"".join(clean), dtype=np.uint8).copy(),
            "span_start": np.asarray([start for start, _ in spans], dtype=np.int32),
            "span_end": np.asarray([end for _, end in spans], dtype=np.int32),
            "token_start": np.asarray(token_start, dtype=np.int32),
            "token_end": np.asarray(token_end, dtype=np.int32),
            "first_token": _offsets([record.tokens for record in records]),
            "word_offset": np.asarray(word_offset, dtype=np.uint16),
        }
        return cls(arrays)

    @classmethod
    def joined(cls, tables: Sequence[SentenceTable]) -> SentenceTable:
        """The documents of `tables`, one after the other (equal to building them at once);
        one concatenation, so building a large table chunk by chunk stays linear."""
        if len(tables) == 1:
            return tables[0]
        arrays: dict[str, npt.NDArray[Any]] = {}
        for name in (*_PER_DOCUMENT, *_PER_SENTENCE, *_BLOBS):
            arrays[name] = np.concatenate([table.arrays[name] for table in tables])
        for name in _OFFSETS:
            parts = [np.zeros(1, dtype=np.int64)]
            total = 0
            for table in tables:
                offsets = table.arrays[name]
                parts.append(offsets[1:] - offsets[0] + total)
                total += int(offsets[-1] - offsets[0])
            arrays[name] = np.concatenate(parts)
        return cls(arrays)

    def prefix(self, size: int) -> SentenceTable:
        """The table of its first `size` documents (views, nothing copied)."""
        sentences = int(self.first_sentence[size])
        arrays = {name: self.arrays[name][:size] for name in _PER_DOCUMENT}
        arrays.update({name: self.arrays[name][: size + 1] for name in _OFFSETS})
        arrays.update({name: self.arrays[name][:sentences] for name in _PER_SENTENCE})
        arrays["clean"] = self.clean[: int(self.clean_offsets[size])]
        arrays["word_offset"] = self.word_offset[: int(self.first_token[size])]
        return SentenceTable(arrays)

    def clean_text(self, doc: int, abstract: str) -> str:
        """Document `doc`'s cleaned text, given its abstract."""
        if int(self.state[doc]) != STATE_CLEAN_STORED:
            return abstract
        start, end = self.clean_offsets[doc : doc + 2].tolist()
        return self.clean[start:end].tobytes().decode("utf-8")

    # -- persistence ---------------------------------------------------------------------------

    def save(self, path: Path, stamp: dict[str, Any]) -> None:
        index_files.write(path, self.arrays, [], _full_stamp(stamp))

    @classmethod
    def load(cls, path: Path, stamp: dict[str, Any]) -> SentenceTable | None:
        """The saved table, mapped, if written for `stamp` and whole; None otherwise."""
        found = index_files.read(path, _full_stamp(stamp))
        if found is None:
            return None
        arrays, _ = found
        if set(arrays) != set(_DTYPES) or not _consistent(arrays):
            return None
        return cls(arrays)


def _offsets(lengths: Sequence[int]) -> npt.NDArray[np.int64]:
    offsets = np.zeros(len(lengths) + 1, dtype=np.int64)
    np.cumsum(np.asarray(lengths, dtype=np.int64), out=offsets[1:])
    return offsets


def _full_stamp(stamp: dict[str, Any]) -> dict[str, Any]:
    return {**stamp, "sentences": VERSION}


def _consistent(arrays: dict[str, npt.NDArray[Any]]) -> bool:
    """Lengths agree with each other (the stamp already checked each array's shape)."""
    size = len(arrays["keys"])
    if any(len(arrays[name]) != size for name in _PER_DOCUMENT):
        return False
    if any(len(arrays[name]) != size + 1 for name in _OFFSETS):
        return False
    sentences = int(arrays["first_sentence"][-1])
    if any(len(arrays[name]) != sentences for name in _PER_SENTENCE):
        return False
    if int(arrays["first_token"][-1]) != len(arrays["word_offset"]):
        return False
    return int(arrays["clean_offsets"][-1]) == len(arrays["clean"])
