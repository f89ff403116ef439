"""The query behind "papers like X": the paper's distinctive words, without generic prose.

`ranking.distinctive_terms` weighs a paper's words by tf x idf. Words of academic prose that
say nothing about the topic ("seems", "intricate", "notoriously", "landscape", "well-understood",
"showcase") are rare enough in a corpus to get a high idf, so a paper that happens to use
several of them was matched to papers sharing only those words. They come last in the
similarity query, at a small weight: a paper with few topic words of its own still finds
papers like it, but shared prose never outweighs a shared topic word.
"""

from __future__ import annotations

from retrieval import text as analysis
from retrieval.corpus import Corpus
from retrieval.ranking import distinctive_terms

# Academic prose: how a paper argues, not what it is about. Surface words; their index terms
# (stems) are computed below with the analyzer every query uses.
GENERIC_WORDS = """
seem seems seemingly pertain pertains pertaining entail entails unlock unlocks unlocking
understood well-understood understanding understand landscape systematic systematically
investigate investigates investigated investigation explore explores explored exploring
notorious notoriously difficult difficulty difficulties intricate unrelated incomplete
prominent characterize characterizes characterization showcase showcases showcasing overlook
overlooks overlooked ignore ignores ignoring ignored consequently consequence therefore thereby
moreover furthermore additionally specifically particularly particular notably namely
remarkable remarkably promising superior competitive comparable extensive extensively
substantial substantially significant significantly considerable considerably crucial
critical fundamental fundamentally essential important importance novel new existing
recent recently previous previously prior current currently various variety diverse wide
widely range several numerous many often typically commonly usually generally general overall
simple simply straightforward effective effectively efficient efficiently achieve achieves
achieved achieving leverage leverages leveraging enable enables enabling address addresses
addressed addressing provide provides provided providing present presents presented introduce
introduces introduced introducing develop develops developed demonstrate demonstrates
demonstrated demonstrating reveal reveals revealed highlight highlights highlighted
conduct conducted outperform outperforms outperforming improve improves improved improving
improvement improvements state-of-the-art art strong stronger despite whereas although
lack lacks lacking limited limitation limitations challenge challenges challenging issue
issues aspect aspects respect regard regarding way ways manner kind kinds type types
first finally further second third able ability possible impossible unclear clear clearly
insight insights perspective perspectives paradigm popular popularity
great greatly largely mainly mostly primarily rather instead directly indeed crucially
"""
GENERIC_TERMS: frozenset[str] = frozenset(analysis.analyze(GENERIC_WORDS))
# The similarity query's length, and the weight generic prose keeps in it: enough for a paper
# of mostly generic prose to still find papers like it, never enough to outweigh a topic word.
QUERY_TERMS = 25
GENERIC_WEIGHT = 0.1


def similarity_terms(corpus: Corpus, doc: int) -> list[tuple[str, float]]:
    """Document `doc`'s distinctive terms for "papers like it": its topic words first, each at
    its tf x idf weight relative to the strongest, then generic prose at GENERIC_WEIGHT of that
    in the slots left."""
    candidates = distinctive_terms(corpus, doc, QUERY_TERMS * 2)
    topical = [item for item in candidates if item[0] not in GENERIC_TERMS]
    generic = [(term, GENERIC_WEIGHT * w) for term, w in candidates if term in GENERIC_TERMS]
    return (topical + generic)[:QUERY_TERMS]
