"""`parse_message`: one chat message -> one Intent (what to do), before anything is searched.

Order: chit-chat and help, then a paper shown by reference, similar, compare, the next page,
a question about a referenced paper, and otherwise a search. Ambiguity resolves toward SEARCH:
"hi-res image synthesis papers", "paper on RLHF" and "more efficient attention" are searched.
Chat rules only run on short messages (`patterns.MAX_CHAT_CHARS`); every regex here is linear,
so any text, of any length, returns an Intent quickly and never raises.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from dataclasses import replace

from retrieval.collection_names import (
    NamedCollection,
    find_collection_names,
    find_venue_years,
    resolve_collection,
)
from retrieval.conversation import patterns
from retrieval.conversation.model import FocusRef, Intent, IntentKind, Ref
from retrieval.conversation.refs import refs_in_text, whole_ref, whole_refs

# Control and invisible characters become spaces; typographic apostrophes become "'".
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\u200b-\u200f\u2028\u2029\u2060\ufeff]")
_APOSTROPHES = str.maketrans({"’": "'", "‘": "'", "`": "'", "´": "'"})
_QUOTES = str.maketrans({"“": '"', "”": '"', "„": '"', "«": '"', "»": '"'})
_OUTER_LEFT = re.compile(r"^[^\w#?'\"]+")
_OUTER_RIGHT = re.compile(r"[^\w'\")]+$")
# Query syntax that must reach retrieval/query.py untouched: quotes, in:..., -term.
_PROTECTED = re.compile(r'"[^"]*"|(?<!\S)in:\S*|(?<!\S)-\S+')
# Words a definition term is never made of: "what are the best papers on RLHF" is a search.
_NOT_A_TERM = patterns.words(
    "paper papers on about for in of with best latest new recent some any good top the a an "
    "there you your this that it these those"
)
_SHORT_ANSWERS = {
    patterns.GREETING: IntentKind.GREETING,
    patterns.THANKS: IntentKind.THANKS,
    patterns.SMALL_TALK: IntentKind.SMALL_TALK,
    patterns.HELP: IntentKind.HELP,
}


def normalize(text: str) -> str:
    """NFKC, control characters as spaces, one apostrophe, whitespace collapsed."""
    text = unicodedata.normalize("NFKC", text)
    return " ".join(_CONTROL.sub(" ", text).translate(_APOSTROPHES).split())


def fold(text: str) -> str:
    """A short message for whole-message rules: lowercase, no outer punctuation or politeness."""
    folded = _OUTER_RIGHT.sub("", _OUTER_LEFT.sub("", text.lower()))
    folded = patterns.OUTER_FILLER.sub("", folded)
    folded = patterns.TRAILING_FILLER.sub("", folded)
    return _OUTER_RIGHT.sub("", folded)


def parse_message(text: str, collections: Sequence[NamedCollection]) -> Intent:
    """What `text` asks for. Never raises; an unreadable message is a SEARCH (or HELP if empty)."""
    clean = normalize(text)
    slugs = frozenset(collection.slug for collection in collections)
    intent = _chat_intent(clean, slugs) if len(clean) <= patterns.MAX_CHAT_CHARS else None
    return replace(intent or _search(clean, collections), message=clean)


def _chat_intent(clean: str, slugs: frozenset[str]) -> Intent | None:
    if not clean or set(clean) <= set("?!. "):
        return Intent(IntentKind.HELP)
    folded = fold(clean)
    for rule, kind in _SHORT_ANSWERS.items():
        if rule.pattern.fullmatch(folded):
            return Intent(kind)
    if not folded:
        return None
    shown = whole_refs(patterns.SHOW_VERB.sub("", folded), slugs)
    if shown is not None:  # "icml2026-13", "the second one", "it", "2 and 3"
        return Intent(IntentKind.PAPER, refs=shown)
    return (
        _similar(folded, slugs)
        or _compare(folded, slugs)
        or _more(folded)
        or _question(clean, slugs)
    )


def _similar(folded: str, slugs: frozenset[str]) -> Intent | None:
    match = patterns.SIMILAR.pattern.fullmatch(folded)
    if match is None:
        return None
    target = next((group for group in match.groups() if group), "")
    target = re.sub(r"^(?:the )?(?:papers? |ones? )?(?:to |like )?", "", target.strip())
    ref: Ref | None = FocusRef() if not target else whole_ref(target, slugs)
    if ref is None:
        return None  # "papers like transformers for vision": a search
    return Intent(IntentKind.SIMILAR, refs=(ref,))


def _compare(folded: str, slugs: frozenset[str]) -> Intent | None:
    match = patterns.COMPARE.pattern.fullmatch(folded)
    if match is None:
        return None
    refs = whole_refs(match.group("refs"), slugs)
    if refs is None:
        return None  # "compare transformers and RNNs": a search
    return Intent(IntentKind.COMPARE, refs=refs)


def _more(folded: str) -> Intent | None:
    return Intent(IntentKind.MORE) if patterns.MORE.pattern.fullmatch(folded) else None


def _question(clean: str, slugs: frozenset[str]) -> Intent | None:
    """A question about referenced papers: "what dataset does icml2026-6 use?"."""
    found = refs_in_text(clean, slugs)
    if not found:
        return None
    protected = _protected(clean)
    found = [
        span
        for span in found
        if not any(start < span[1] and span[0] < end for start, end in protected)
    ]
    if not found:
        return None
    wants_code = patterns.WANTS_CODE.search(clean) is not None
    has_id = any(not isinstance(ref, FocusRef) for _, _, ref in found)
    if not (has_id or wants_code or patterns.QUESTION.search(clean)):
        return None
    pieces: list[str] = []
    position = 0
    for start, end, _ in found:
        pieces.append(clean[position:start])
        position = end
    pieces.append(clean[position:])
    words = " ".join(" ".join(pieces).split()).rstrip(" ?!.")
    return Intent(
        IntentKind.QUESTION_ABOUT_PAPER,
        query=words,
        refs=tuple(dict.fromkeys(ref for _, _, ref in found)),
        wants_code=wants_code,
    )


def _search(clean: str, collections: Sequence[NamedCollection]) -> Intent:
    """SEARCH: a leading greeting and a collection named in words are taken out of the query."""
    text = patterns.LEADING_GREETING.sub("", clean, count=1)
    collection: str | None = None
    unknown: str | None = None
    cuts: list[tuple[int, int]] = []
    phrases = find_venue_years(text)
    protected = _protected(text) if phrases or collections else []
    for start, end, surface, venue in phrases:
        if any(p_start < end and start < p_end for p_start, p_end in protected):
            continue
        loaded = resolve_collection(surface, collections)
        if loaded is not None:
            collection = collection or loaded.slug
        elif venue in patterns.KNOWN_VENUES:
            unknown = unknown or surface
        else:
            continue
        cuts.append(_cut(text, start, end))
    if collection is None and collections:
        for start, end, loaded in find_collection_names(text, collections):
            if any(c_start < end and start < c_end for c_start, c_end in cuts + protected):
                continue
            before = patterns.COLLECTION_BEFORE.search(text, max(0, start - 16), start)
            if before or patterns.COLLECTION_NOUN_AFTER.match(text, end):
                collection = loaded.slug
                cuts.append(_cut(text, start, end))
                break
    query = _without(text, sorted(cuts))
    defines: str | None = None
    definition = patterns.DEFINITION.pattern.fullmatch(query.rstrip(" ?!."))
    if definition is not None:
        term = definition.group("term") or definition.group("term2")
        if not set(term.lower().split()) & _NOT_A_TERM:
            defines = term
            query = term
    return Intent(
        IntentKind.SEARCH,
        query=query,
        collection=collection,
        unknown_collection=unknown,
        defines=defines,
    )


def _cut(text: str, start: int, end: int) -> tuple[int, int]:
    """A collection phrase's span widened by the words that only say where ("in", "'s")."""
    before = patterns.COLLECTION_BEFORE.search(text, max(0, start - 16), start)
    after = patterns.COLLECTION_AFTER.match(text, end)
    return (before.start() if before else start, after.end() if after else end)


def _protected(text: str) -> list[tuple[int, int]]:
    """Spans of query syntax (quotes, in:, -term) that no chat rule may take words from."""
    return [match.span() for match in _PROTECTED.finditer(text.translate(_QUOTES))]


def _without(text: str, cuts: list[tuple[int, int]]) -> str:
    pieces: list[str] = []
    position = 0
    for start, end in cuts:
        pieces.append(text[position:start])
        position = max(position, end)
    pieces.append(text[position:])
    joined = " ".join(" ".join(pieces).split())
    return joined.strip(" ,;:").strip()
