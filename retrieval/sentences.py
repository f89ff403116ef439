"""Sentence splitting for abstracts: survives e.g., i.e., et al., Fig. 3, decimals, URLs and $...$.

A sentence ends at ".", "!" or "?" (optionally followed by closing quotes or brackets) when
whitespace and then a capital, digit or opening mark follow, and the word before the stop is not
an abbreviation or one of a run of initials; also at a "." with no space after it between two
words ("policy.To our knowledge"), where the word holds no other dot, slash or colon. "?" and
"!" inside parentheses and any stop inside $...$ math never end a sentence. Blank lines always
do. One pass over the text: linear time.
"""

from __future__ import annotations

import re
from typing import Final

# Abbreviations that never end a sentence: a capital or digit usually follows them mid-sentence.
_ABBREVIATIONS: Final = frozenset(
    {"e.g.", "i.e.", "al.", "fig.", "figs.", "eq.", "eqs.", "eqn.", "sec.", "secs.", "tab.", "cf."}
    | {"vs.", "approx.", "resp.", "w.r.t.", "dr.", "mr.", "ms.", "prof.", "vol.", "ref.", "refs."}
    | {"ch.", "pp.", "no.", "nos.", "st.", "inc.", "ltd.", "jr.", "sr.", "thm.", "def.", "lem."}
    | {"prop.", "alg.", "appx.", "app.", "et.", "a.k.a.", "cor.", "ex.", "viz.", "sect."}
)
# "etc." ends a sentence only before a capitalised word ("... etc. We show").
# The lookbehind lets only the first stop of a run start a match, and possessive quantifiers
# never give back, so a run of 100k dots is scanned once.
# The third kind is a stop with no space after it ("...retention policy.To our knowledge"),
# taken only between two lowercase letters and a capitalised word, and only where the word
# holds no other dot, slash or colon (a URL, "arXiv.Org", "e.g.The").
_CANDIDATE = re.compile(
    r"(?<![.!?])[.!?]++[\"'”’)\]]*+(?=\s)|\n[^\S\n]*+\n|(?<=[a-z][a-z])\.(?=[A-Z][a-z])"
)
_GLUED_WORD = re.compile(r"[^\s./:@]+\.[A-Z][a-z]+")
# Math spans: $$...$$ first, then $...$ within a line. [^$] cannot pass the closing $, so each
# attempt stops at the next $ and the scan stays linear.
_MATH = re.compile(r"\$\$[^$]*\$\$|\$[^$\n]+\$")
_INITIALS = re.compile(r"(?:[A-Za-z]\.)+")
_INITIAL_BEFORE = re.compile(r"(?:^|\s)[A-Z]\.\s+$")
_LOOKBACK: Final = 24  # longest abbreviation-like word inspected before a stop


def split_sentences(text: str) -> list[tuple[int, int]]:
    """Character spans (start, end) of the sentences of `text`, in order, without surrounding
    whitespace. Every non-space character of `text` lies in exactly one span."""
    math = [(m.start(), m.end()) for m in _MATH.finditer(text)] if "$" in text else []
    # Depths matter only at "?" and "!" (_ends_sentence): most abstracts have neither.
    needs_depths = "(" in text and ("?" in text or "!" in text)
    parens = _paren_depths(text) if needs_depths else None
    spans: list[tuple[int, int]] = []
    start = 0
    math_index = 0
    for match in _CANDIDATE.finditer(text):
        stop = match.start()
        while math_index < len(math) and math[math_index][1] <= stop:
            math_index += 1
        if math_index < len(math) and math[math_index][0] <= stop:
            continue  # inside $...$
        if match.end() < len(text) and not text[match.end()].isspace() and match.group() == ".":
            if not _glued_stop(text, stop):
                continue
        elif match.group()[0] != "\n" and not _ends_sentence(text, match, parens):
            continue
        _add(spans, text, start, match.end())
        start = match.end()
    _add(spans, text, start, len(text))
    return spans


def _add(spans: list[tuple[int, int]], text: str, start: int, end: int) -> None:
    """Append text[start:end] with its surrounding whitespace trimmed, if anything is left."""
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    if start < end:
        spans.append((start, end))


def _paren_depths(text: str) -> list[int]:
    """Parenthesis depth before each position; unmatched ")" do not go below zero, and a line
    break resets an unclosed "(" so one stray bracket cannot swallow the rest of the text."""
    depths = [0] * (len(text) + 1)
    depth = 0
    for index, char in enumerate(text):
        depths[index] = depth
        if char == "(":
            depth += 1
        elif char == ")":
            depth = max(depth - 1, 0)
        elif char == "\n":
            depth = 0
    depths[len(text)] = depth
    return depths


def _ends_sentence(text: str, match: re.Match[str], parens: list[int] | None) -> bool:
    stop = match.start()
    marks = match.group()
    after = match.end()
    while after < len(text) and text[after].isspace():
        after += 1
    if after >= len(text):
        return True
    following = text[after]
    if following.islower():
        return False  # "e.g. the", "3 vs. 5 ...", a lowercase continuation
    if "." not in marks:
        # "?" or "!": not inside parentheses ("(why?) We ...").
        return parens is None or parens[stop] == 0
    if not (following.isupper() or following.isdigit() or following in "\"'“‘([$\\*`"):
        return False
    word = _word_before(text, stop + 1)
    lowered = word.lower()
    if lowered in _ABBREVIATIONS:
        return False
    if lowered == "etc.":
        return following.isupper()
    # Dotted abbreviations ("U.S.") and runs of initials ("J. R. Smith") do not end sentences.
    # A lone capital does: abstracts end sentences with "method X." or "Appendix A." far more
    # often than they name people.
    if _INITIALS.fullmatch(word) and len(word) > 2:
        return False
    if len(word) == 2 and word[0].isupper():
        before = text[max(stop - 8, 0) : stop - 1]
        return not (_INITIALS.match(text, after) or _INITIAL_BEFORE.search(before))
    return True


def _glued_stop(text: str, stop: int) -> bool:
    """A stop with no space after it ends a sentence when the whole word around it is two
    words joined by it ("policy.To"), not a URL, a file name or an abbreviation."""
    begin = stop
    limit = max(stop - _LOOKBACK, 0)
    while begin > limit and not text[begin - 1].isspace():
        begin -= 1
    end = stop + 1
    while end < len(text) and end - stop <= _LOOKBACK and text[end].isalpha():
        end += 1
    if end < len(text) and not (text[end].isspace() or text[end] in ",;:.!?)"):
        return False  # "policy.ToDo/x", a path or an identifier
    return _GLUED_WORD.fullmatch(text, begin, end) is not None


def _word_before(text: str, end: int) -> str:
    """The word ending at `end` (which includes the stop), opening brackets and quotes removed;
    looks back at most `_LOOKBACK` characters so long runs without spaces stay linear."""
    begin = end
    limit = max(end - _LOOKBACK, 0)
    while begin > limit and not text[begin - 1].isspace():
        begin -= 1
    return text[begin:end].lstrip("([{\"'“‘")
