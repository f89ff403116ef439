"""Code and project URLs in an abstract, in order, deduplicated, minus trailing punctuation.

The URL regex only runs anchored where `str.find` saw a likely start, so abstracts without a
link cost a few C-speed scans.
"""

from __future__ import annotations

import re
import unicodedata

from retrieval.labels.markup import MAX_SCAN, without_junk
from retrieval.labels.text import occurrences

# Bare hosts are accepted only for the code-hosting sites people cite without a scheme.
_URL = re.compile(
    r"(?:https?://|(?<![\w.@/])(?:www\.|(?:github|gitlab|huggingface|bitbucket)\.(?:com|co|org)/))"
    r"[^\s<>\"'`{}\[\]|\\^*]{1,500}",  # "*": markdown bold after a link ("repo.**WARNING**")
    re.IGNORECASE,
)
# The regex only runs anchored where one of these starts: an unanchored scan of every
# abstract for a rare URL would cost more than the rest of the labelling.
_URL_STARTS = ("http", "www.", "github.", "gitlab.", "huggingface.", "bitbucket.")
_URL_TRAIL = ".,;:!?)]}*'\"’”>"


def extract_urls(abstract: str) -> tuple[str, ...]:
    """Code and project URLs in the abstract, in order, deduplicated, minus trailing punctuation."""
    text = unicodedata.normalize("NFKC", without_junk(abstract[: MAX_SCAN * 2]))
    found: dict[str, str] = {}
    for match in url_matches(text):
        url = _trim_url(match.group())
        if "." not in url.split("//", 1)[-1]:
            continue
        if not url.lower().startswith(("http://", "https://")):
            url = "https://" + url
        # The same link is often written twice ("[url](url)", with and without a final slash).
        found.setdefault(url.rstrip("/").lower(), url)
    return tuple(found.values())


def url_matches(text: str) -> list[re.Match[str]]:
    """URL matches in `text`, in order and not overlapping, with their offsets in `text`."""
    if "/" not in text:
        return []
    lower = text.lower()
    if len(lower) != len(text):  # offsets must line up with the original
        lower = text
    starts = sorted({position for hint in _URL_STARTS for position in occurrences(lower, hint)})
    matches: list[re.Match[str]] = []
    for position in starts:
        if matches and position < matches[-1].end():
            continue
        match = _URL.match(text, position)
        if match:
            matches.append(match)
    return matches


def _trim_url(url: str) -> str:
    while url and url[-1] in _URL_TRAIL:
        # Keep a parenthesis that closes one opened inside the URL (Wikipedia style).
        if url[-1] == ")" and url.count("(") >= url.count(")"):
            break
        url = url[:-1]
    return url
