"""Query syntax people expect from a search box: "exact phrase", -excluded, in:collection.

Parsing is one linear regex scan: a hostile 100k-character question costs only its length.
Repeated operators count once, and at most `MAX_PHRASES` distinct phrases are enforced (each is
checked word by word in up to thousands of papers); further phrases count as plain words.
"""

from __future__ import annotations

import re

from retrieval.models import ParsedQuery

_TOKEN = re.compile(
    r"""
    (?P<filter>(?<!\S)in:(?:"(?P<fq>[^"]{1,100})"|(?P<fw>\S{1,100})))
    | (?P<exclude>(?<!\S)-(?:"(?P<xq>[^"]{1,300})"|(?P<xw>[^\s"-]\S*)))
    | "(?P<phrase>[^"]{1,300})"
    """,
    re.VERBOSE | re.IGNORECASE,
)
MAX_PHRASES = 4
# Typographic quotes count as quotes: phones insert them.
_QUOTES = str.maketrans({"“": '"', "”": '"', "„": '"', "«": '"', "»": '"'})


def parse_query(text: str) -> ParsedQuery:
    """Split operators from free text; the phrase words also stay in the free text for ranking."""
    text = text.translate(_QUOTES)
    phrases: list[str] = []
    excluded: list[str] = []
    collections: list[str] = []
    free: list[str] = []
    seen: set[str] = set()
    position = 0
    for match in _TOKEN.finditer(text):
        free.append(text[position : match.start()])
        position = match.end()
        if match.group("filter"):
            collections.append((match.group("fq") or match.group("fw")).strip())
        elif match.group("exclude"):
            excluded.append((match.group("xq") or match.group("xw")).strip())
        else:
            phrase = match.group("phrase").strip()
            key = " ".join(phrase.casefold().split())
            if phrase and key not in seen and len(phrases) < MAX_PHRASES:
                seen.add(key)
                phrases.append(phrase)
            free.append(f" {phrase} ")
    free.append(text[position:])
    remainder = " ".join("".join(free).replace('"', " ").split())
    return ParsedQuery(
        text=remainder,
        phrases=tuple(phrases),
        excluded=tuple(dict.fromkeys(excluded)),
        collections=tuple(dict.fromkeys(collections)),
    )
