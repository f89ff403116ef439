"""Credit for the other forms of a query's acronyms, as extra lists for top-k.

A paper's score rises to the better of the written and the other form: for each alternative the
credit is max(other - written, 0), where `other` is the other form's BM25 score at the expansion
weight and `written` the written form's. It is kept only where an other form occurs, so a list
holds just those papers (every one counts as matched), less those with zero credit that hold
the written form (the written form's own list matches them).

A list is described by its terms (`topk.Credit`): "LLM" -> "large language model" covers most
of a large corpus, and building it per question cost milliseconds at 1M papers. Top-k computes
it in full only when it must walk it, and otherwise only for the few papers still in the
running. Its bound is the expansion weight times the other form's largest impacts, so top-k can
place and skip it without computing it. The other direction ("large language model" -> "LLM")
is the opposite case: few papers hold the acronym, but each must be looked up in the long form's
common words, which cost milliseconds as well. Those lists are short (4M postings at 1M papers),
so `prepare` builds all of them once per snapshot, off the answer path, and questions read them.
"""

from __future__ import annotations

import threading
import weakref
from collections.abc import Sequence
from dataclasses import replace

from retrieval.acronyms import AcronymTable, Alternative
from retrieval.index import BM25Index
from retrieval.topk import CREDIT_BOUND_SLACK, Credit, Postings, build, materialize

# Prepared postings per snapshot, in documents (8 bytes each): at most ~64 MB.
MAX_PREPARED = 8_000_000

Key = tuple[tuple[str, ...], tuple[str, ...]]  # (written, other)


def credits(index: BM25Index, alternatives: Sequence[Alternative], weight: float) -> list[Credit]:
    """One credit per alternative whose other form occurs in the corpus, in order; with its
    list when `prepare` built it (the same list either way, so the same ranking)."""
    with _lock:
        weight_built, ready = _prepared.get(index, (weight, {}))
    if weight_built != weight:
        ready = {}
    found: list[Credit] = []
    for alternative in alternatives:
        other = _terms(index, alternative.other)
        if not other:
            continue
        largest = sum(max(float(index.max_impact[term]), 0.0) for _, _, term in other)
        credit = Credit(
            index.postings_docs,
            index.impacts,
            other,
            _terms(index, alternative.written),
            weight,
            weight * largest * (1 + CREDIT_BOUND_SLACK),
        )
        built = ready.get((alternative.written, alternative.other))
        found.append(credit if built is None else replace(credit, built=built))
    return found


def prepare(index: BM25Index, table: AcronymTable, weight: float) -> None:
    """Build the list of every long form -> acronym alternative of `table` for `index`, once
    (questions asked meanwhile compute theirs), within MAX_PREPARED documents."""
    if weight <= 0:
        return
    with _building:
        with _lock:
            if index in _prepared and _prepared[index][0] == weight:
                return
        lists: dict[Key, Postings] = {}
        held = 0
        for expansion, short in table.long_to_short.items():
            alternative = Alternative(expansion, (short,), "")
            built = next((build(credit) for credit in credits(index, [alternative], weight)), None)
            if built is None:
                continue
            if held + built.end > MAX_PREPARED:
                break
            held += built.end
            lists[(expansion, (short,))] = built
        with _lock:
            _prepared[index] = (weight, lists)


def credit_postings_numpy(
    index: BM25Index, alternatives: Sequence[Alternative], weight: float
) -> list[Postings]:
    """The same credits built as lists over all documents (numpy): the reference."""
    built = (materialize(credit, index.size) for credit in credits(index, alternatives, weight))
    return [postings for postings in built if postings is not None]


def _terms(index: BM25Index, terms: Sequence[str]) -> tuple[tuple[int, int, int], ...]:
    """(start, end, term number) of each term the index holds, in order."""
    found = []
    for term in terms:
        number = index.term_number(term)
        if number is not None:
            found.append((int(index.offsets[number]), int(index.offsets[number + 1]), number))
    return tuple(found)


# Per snapshot: the weight they were built for, and the lists.
_prepared: weakref.WeakKeyDictionary[BM25Index, tuple[float, dict[Key, Postings]]] = (
    weakref.WeakKeyDictionary()
)
_lock = threading.Lock()
_building = threading.Lock()  # one build at a time
