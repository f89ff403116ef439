"""The autocomplete of `main` before it became mapped arrays (`LabelIndex`, as it was, with
`sorted` for its sliced sort): the reference the arrays must answer exactly like."""

from __future__ import annotations

import bisect
import re
import unicodedata
from collections.abc import Sequence

_WORD = re.compile(r"[^\W_]+", re.UNICODE)


def _words(text: str) -> list[str]:
    return _WORD.findall(unicodedata.normalize("NFKC", text).casefold())


class LabelIndex:
    """Sorted (word, paper number) pairs for label words and sorted ids, built once per corpus."""

    def __init__(self, entries: Sequence[tuple[str, str]]) -> None:
        self.entries = list(entries)
        self._ids = sorted(
            (paper_id.lower(), number) for number, (paper_id, _) in enumerate(entries)
        )
        pairs = {
            (word, number)
            for number, (paper_id, label) in enumerate(self.entries)
            for word in _words(label) + _words(paper_id.replace("-", " "))
        }
        self._words = sorted(pairs)

    def _prefix(self, table: list[tuple[str, int]], prefix: str) -> set[int]:
        start = bisect.bisect_left(table, (prefix, -1))
        found: set[int] = set()
        for word, number in table[start:]:
            if not word.startswith(prefix):
                break
            found.add(number)
        return found

    def suggest(self, text: str, limit: int = 25) -> list[tuple[str, str]]:
        """Up to `limit` (id, label) pairs: ids starting with the text first, then label matches."""
        text = text.strip()
        if not text:
            return self.entries[:limit]
        by_id = sorted(self._prefix(self._ids, text.lower()))
        words = _words(text)
        by_label: set[int] = set()
        if words:
            # Every complete word must match exactly-or-prefix; the last one is still being typed.
            candidates: set[int] | None = None
            for word in words:
                found = self._prefix(self._words, word)
                candidates = found if candidates is None else candidates & found
                if not candidates:
                    break
            by_label = candidates or set()
        ordered = by_id + sorted(by_label - set(by_id))
        return [self.entries[number] for number in ordered[:limit]]
