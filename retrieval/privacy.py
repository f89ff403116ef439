"""`engine.privacy`: what the store keeps about one user, and deleting all of it (/privacy,
/forget-me). Which tables hold user data is the store's knowledge; docs/privacy.md lists them."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from retrieval.models import Paper
from retrieval.watches.service import WatchRow


@dataclass(frozen=True, slots=True)
class UserData:
    """How many rows of each kind the store holds about one user (or deleted for them)."""

    saved_papers: int = 0
    watches: int = 0
    conversations: int = 0
    answer_messages: int = 0
    watch_digests: int = 0
    shortlist_entries: int = 0

    @property
    def total(self) -> int:
        return (
            self.saved_papers
            + self.watches
            + self.conversations
            + self.answer_messages
            + self.watch_digests
            + self.shortlist_entries
        )


@dataclass(frozen=True, slots=True)
class PrivacyReport:
    """Counts of every kind of row, plus the saved paper ids and watches themselves."""

    counts: UserData
    saved_ids: tuple[str, ...]
    watches: tuple[WatchRow, ...]


class Privacy:
    def __init__(self, store: UserDataStore) -> None:
        self._store = store

    async def report(self, user_id: int) -> PrivacyReport:
        counts = await self._store.user_data(user_id)
        saved = await self._store.saved(user_id)
        watches = await self._store.watches_of(user_id)
        return PrivacyReport(counts, tuple(p.id for p in saved), tuple(watches))

    async def forget(self, user_id: int) -> UserData:
        """Delete every row about the user in one transaction; returns what was deleted."""
        return await self._store.forget_user(user_id)


def describe(counts: UserData) -> list[str]:
    """One line per kind of data held, for people ("3 saved papers"); empty if none."""
    kinds = (
        (counts.saved_papers, "saved paper(s) in your reading list"),
        (counts.watches, "watch(es) on new papers"),
        (counts.watch_digests, "watch announcement(s) queued or sent"),
        (counts.conversations, "conversation memory record(s) (your last question per channel)"),
        (counts.answer_messages, "answer message record(s) (for replies to answers)"),
        (
            counts.shortlist_entries,
            "server reading list entries you added (they stay for the server; "
            "/forget-me removes your name from them)",
        ),
    )
    return [
        f"{number} {_one(text) if number == 1 else _many(text)}" for number, text in kinds if number
    ]


def _one(text: str) -> str:
    """'saved paper(s) ...' for one: 'saved paper ...'; 'entries' -> 'entry'."""
    return text.replace("(s)", "").replace("(es)", "").replace("entries", "entry", 1)


def _many(text: str) -> str:
    return text.replace("(s)", "s").replace("(es)", "es")


class UserDataStore(Protocol):
    """Everything held about one user: counted, listed, and forgotten."""

    async def user_data(self, user_id: int) -> UserData: ...

    async def forget_user(self, user_id: int) -> UserData:
        """Delete every row about the user in one transaction (shortlist entries they added
        stay, with `added_by` set to 0); returns what was deleted or anonymised."""
        ...

    async def saved(self, user_id: int) -> list[Paper]:
        """Oldest first."""
        ...

    async def watches_of(self, user_id: int) -> list[WatchRow]:
        """A user's watches, oldest first."""
        ...
