"""The one place that touches rank-bm25's internals: BM25Okapi's IDF table, epsilon floor included.

The index (retrieval/index.py) reproduces `rank_bm25.BM25Okapi` scores exactly but counts document
frequencies itself, so it borrows only the IDF step: the private method `BM25Okapi._calc_idf(nd)`,
which reads `corpus_size` and `epsilon`, fills the `idf` dict and sets `average_idf`. A private
method can change in any release, so before first use this module runs it on a three-document
example with known answers, and if anything differs raises `RankBM25Changed`: one line naming
the method, the installed version and the version paperbot is tested against (`PINNED`, the same
pin as in pyproject.toml).
"""

from __future__ import annotations

import inspect
import math
import threading
from collections.abc import Mapping
from importlib import metadata
from typing import Any

from rank_bm25 import BM25Okapi

from retrieval.errors import PaperbotError

PINNED = "0.2.*"  # keep equal to pyproject.toml's `rank-bm25==0.2.*`
METHOD = "rank_bm25.BM25Okapi._calc_idf"

_checked = threading.Event()


class RankBM25Changed(PaperbotError):
    """The installed rank-bm25 no longer has the private IDF method paperbot relies on."""

    def __init__(self, problem: str) -> None:
        try:
            installed = metadata.version("rank-bm25")
        except metadata.PackageNotFoundError:
            installed = "unknown"
        super().__init__(
            f"{METHOD} changed in rank-bm25 {installed} ({problem}); paperbot is tested with "
            f"rank-bm25=={PINNED}: install that version (`pip install 'rank-bm25=={PINNED}'`)."
        )


def _run(okapi: type[Any], frequencies: Mapping[str, int], corpus_size: int, epsilon: float) -> Any:
    """An `okapi` instance whose IDF table was filled by its own `_calc_idf`.

    `__init__` is skipped on purpose: it would count frequencies over a whole corpus again.
    """
    table: Any = object.__new__(okapi)
    table.corpus_size = corpus_size
    table.epsilon = epsilon
    table.idf = {}
    table._calc_idf(dict(frequencies))
    return table


def check(okapi: type[Any] | None = None) -> None:
    """Raise RankBM25Changed unless `okapi._calc_idf` (default BM25Okapi's) works as relied on."""
    if okapi is None:
        okapi = BM25Okapi
    method = getattr(okapi, "_calc_idf", None)
    if not callable(method):
        raise RankBM25Changed("the method is gone")
    if list(inspect.signature(method).parameters) != ["self", "nd"]:
        raise RankBM25Changed(f"its parameters are now {inspect.signature(method)}")
    # "a" is in 1 of 3 documents (positive IDF); "b" in 2 of 3 (negative, so floored at
    # epsilon x the average IDF).
    try:
        table = _run(okapi, {"a": 1, "b": 2}, corpus_size=3, epsilon=0.25)
        idf, average = dict(table.idf), float(table.average_idf)
    except Exception as error:
        raise RankBM25Changed(f"{type(error).__name__}: {error}") from error
    raw_a, raw_b = math.log(2.5) - math.log(1.5), math.log(1.5) - math.log(2.5)
    expected = {"a": raw_a, "b": 0.25 * (raw_a + raw_b) / 2}
    if idf.keys() != expected.keys() or any(
        not math.isclose(idf[term], value, rel_tol=1e-12, abs_tol=1e-15)
        for term, value in expected.items()
    ):
        raise RankBM25Changed(f"IDF of a known example is {idf}, expected {expected}")
    if not math.isclose(average, (raw_a + raw_b) / 2, rel_tol=1e-12, abs_tol=1e-15):
        raise RankBM25Changed(f"average_idf is {average}, expected {(raw_a + raw_b) / 2}")


def idf_table(
    document_frequencies: Mapping[str, int], corpus_size: int, epsilon: float
) -> dict[str, float]:
    """BM25Okapi's IDF per term, computed by rank-bm25 itself (checked before the first use).

    No terms at all (every abstract only stopwords): no IDF to compute, and rank-bm25 would
    divide by zero averaging it."""
    if not document_frequencies:
        return {}
    if not _checked.is_set():
        check()
        _checked.set()
    return dict(_run(BM25Okapi, document_frequencies, corpus_size, epsilon).idf)
