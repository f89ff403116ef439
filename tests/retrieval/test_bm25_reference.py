"""rank-bm25's private IDF method: present and unchanged in the installed version, pinned, and a
loud one-line error naming it when a release changes it."""

from __future__ import annotations

import math
import re
import tomllib
from fnmatch import fnmatch
from importlib import metadata
from typing import Any

import pytest
from rank_bm25 import BM25Okapi

from retrieval.snapshot import bm25_reference
from retrieval.snapshot.bm25_reference import METHOD, PINNED, RankBM25Changed, check, idf_table
from tests.conftest import ROOT

CORPUS = [
    ["sparse", "mixture", "of", "experts", "routing"],
    ["expert", "routing", "with", "load", "balancing"],
    ["diffusion", "sampler"],
    ["routing", "in", "networks"],
]


def test_the_installed_rank_bm25_has_the_method_we_rely_on() -> None:
    check()  # raises RankBM25Changed, naming the method, if this release changed it


def test_idf_table_equals_bm25okapi_built_on_the_corpus() -> None:
    oracle = BM25Okapi(CORPUS, epsilon=0.3)
    frequencies: dict[str, int] = {}
    for document in CORPUS:
        for term in set(document):
            frequencies[term] = frequencies.get(term, 0) + 1
    assert idf_table(frequencies, len(CORPUS), epsilon=0.3) == oracle.idf
    assert oracle.idf["routing"] < oracle.idf["sparse"]  # 3 of 4 documents: floored, positive
    assert oracle.idf["routing"] == pytest.approx(0.3 * oracle.average_idf)


def test_the_pin_is_the_installed_minor_version() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    pins = [d for d in project["project"]["dependencies"] if d.startswith("rank-bm25")]
    assert pins == [f"rank-bm25=={PINNED}"]
    assert fnmatch(metadata.version("rank-bm25"), PINNED)


class _Gone:
    pass


class _Renamed:
    """A release that renamed `corpus_size`."""

    def _calc_idf(self, nd: dict[str, int]) -> None:
        self.idf = {word: math.log(self.n_docs / freq) for word, freq in nd.items()}


class _Unfloored(BM25Okapi):  # type: ignore[misc]
    """A release that dropped the epsilon floor."""

    def _calc_idf(self, nd: dict[str, int]) -> None:
        for word, freq in nd.items():
            self.idf[word] = math.log(self.corpus_size - freq + 0.5) - math.log(freq + 0.5)
        self.average_idf = sum(self.idf.values()) / len(self.idf)


class _NewSignature(BM25Okapi):  # type: ignore[misc]
    def _calc_idf(self, nd: dict[str, int], smoothing: float = 0.5) -> None:
        super()._calc_idf(nd)


@pytest.mark.parametrize(
    ("okapi", "problem"),
    [
        (_Gone, "the method is gone"),
        (_Renamed, "AttributeError"),
        (_Unfloored, "IDF of a known example"),
        (_NewSignature, "its parameters are now"),
    ],
)
def test_a_changed_rank_bm25_fails_loudly_naming_the_method(okapi: Any, problem: str) -> None:
    with pytest.raises(RankBM25Changed) as raised:
        check(okapi)
    message = str(raised.value)
    assert message.startswith(f"{METHOD} changed in rank-bm25 {metadata.version('rank-bm25')} (")
    assert problem in message
    assert f"install that version (`pip install 'rank-bm25=={PINNED}'`)." in message
    assert "\n" not in message


def test_idf_table_checks_before_first_use(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(bm25_reference, "BM25Okapi", _Gone)
    monkeypatch.setattr(bm25_reference, "_checked", type(bm25_reference._checked)())
    with pytest.raises(RankBM25Changed, match=re.escape(METHOD)):
        idf_table({"a": 1}, 2, 0.25)
