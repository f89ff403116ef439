"""One ingest at a time in a process; after each, the new corpus snapshot and the watch digests
for the papers it added (the engine's ingest methods run through `IngestRuns.run`)."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable

from retrieval.corpus import LiveCorpus
from retrieval.errors import PaperbotError
from retrieval.models import IngestReport
from retrieval.watches.service import Watches

log = logging.getLogger(__name__)


class IngestRuns:
    def __init__(self, live: LiveCorpus, watches: Watches) -> None:
        self._live = live
        self._watches = watches
        self._lock = asyncio.Lock()

    async def run(self, work: Awaitable[IngestReport]) -> IngestReport:
        async with self._lock:
            newest = self._watches.newest_key()
            report = await work
            if report.files_read:
                await self._live.refresh()
            if report.papers_added:
                try:
                    await self._watches.after_ingest(self._watches.docs_after(newest))
                except PaperbotError as error:
                    # The papers are stored and searchable; only this ingest's announcements
                    # are lost, and the ingest must still report what it did.
                    log.warning("watch digests for this ingest failed: %s", error)
        return report
