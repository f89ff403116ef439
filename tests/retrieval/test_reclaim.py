"""Freeing replaced snapshots: only when nothing else holds them, never what the new one shares."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field

import pytest

from retrieval.snapshot import reclaim


@dataclass
class Snapshot:
    label_entries: list[tuple[str, str]] = field(default_factory=list)
    doc_of_paper: dict[str, int] = field(default_factory=dict)
    generation: int = 0


def _snapshot(size: int, shared: list[tuple[str, str]] | None = None) -> Snapshot:
    entries = [(f"p-{n}", f"label {n}") for n in range(size)]
    return Snapshot(
        label_entries=shared if shared is not None else entries,
        doc_of_paper={paper: doc for doc, (paper, _) in enumerate(entries)},
    )


@pytest.fixture(autouse=True)
def no_grace(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(reclaim, "GRACE_SECONDS", 0.0)


def test_an_unreferenced_snapshot_is_emptied_in_slices() -> None:
    old, new = _snapshot(10_000), _snapshot(5)
    probe = old.label_entries, old.doc_of_paper  # the containers, not the snapshot itself
    box = [old]
    del old
    asyncio.run(reclaim.release(box, new))
    assert probe[0] == [] and probe[1] == {}
    assert box == []
    assert len(new.label_entries) == 5


def test_a_snapshot_still_in_use_is_left_whole() -> None:
    old, new = _snapshot(100), _snapshot(5)
    in_flight = old  # a question still ranking over the old snapshot
    asyncio.run(reclaim.release([old], new))
    assert len(in_flight.label_entries) == 100
    assert len(in_flight.doc_of_paper) == 100


def test_containers_the_new_snapshot_shares_are_kept() -> None:
    shared = [("p-1", "kept")]
    old, new = _snapshot(3, shared=shared), _snapshot(0, shared=shared)
    doc_of_paper = old.doc_of_paper
    box = [old]
    del old
    asyncio.run(reclaim.release(box, new))
    assert shared == [("p-1", "kept")]
    assert doc_of_paper == {}
