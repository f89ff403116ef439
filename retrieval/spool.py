"""A temporary file of pickled chunks of prepared papers, between the process pool and the store.

A big file's prepared papers wait here, not in memory, until its one store transaction reads
them back a chunk at a time. The file lives in the temp dir (TMPDIR) and is deleted on close,
also after an error.
"""

from __future__ import annotations

import asyncio
import os
import pickle
import tempfile
from collections.abc import AsyncIterator, Callable, Sequence
from pathlib import Path
from types import TracebackType

from retrieval.stores.protocol import NewPaper, PaperChunks

OnChunk = Callable[[int], None]


class ChunkSpool:
    """Append pickled chunks (`append`), then read them back in order (`chunks`)."""

    def __init__(self, folder: Path | None = None) -> None:
        descriptor, name = tempfile.mkstemp(prefix="paperbot-ingest-", suffix=".spool", dir=folder)
        self.path = Path(name)
        self._fd = descriptor
        # (offset, length) of each chunk: reads use pread, so they need no shared file position.
        self._extents: list[tuple[int, int]] = []
        self._end = 0

    def append(self, blob: bytes) -> None:
        """Write one pickled chunk (a list of NewPaper) at the end; blocking, for a thread."""
        view = memoryview(blob)
        while view:
            view = view[os.write(self._fd, view) :]
        self._extents.append((self._end, len(blob)))
        self._end += len(blob)

    def __len__(self) -> int:
        return len(self._extents)

    def chunks(self, on_chunk: OnChunk | None = None) -> PaperChunks:
        """The chunks in order, each read and unpickled in a worker thread (never on the event
        loop); `on_chunk(papers)` is called after each one has been handed over."""

        async def read() -> AsyncIterator[Sequence[NewPaper]]:
            for offset, length in list(self._extents):
                chunk = await asyncio.to_thread(self._load, offset, length)
                yield chunk
                if on_chunk is not None:
                    on_chunk(len(chunk))

        return PaperChunks(read)

    def _load(self, offset: int, length: int) -> list[NewPaper]:
        parts: list[bytes] = []
        while length:
            part = os.pread(self._fd, length, offset)
            if not part:
                raise OSError(f"{self.path}: the spool file is shorter than was written")
            parts.append(part)
            offset += len(part)
            length -= len(part)
        data = b"".join(parts)
        papers: list[NewPaper] = pickle.loads(data)
        return papers

    def close(self) -> None:
        """Delete the file (idempotent)."""
        if self._fd < 0:
            return
        os.close(self._fd)
        self._fd = -1
        self.path.unlink(missing_ok=True)

    def __enter__(self) -> ChunkSpool:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()
