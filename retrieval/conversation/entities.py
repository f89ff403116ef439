"""What a message points at, read by rules about form: papers, positions, collections.

The classifier says what a message asks for; these rules say which papers or collections it
means. They are about the shape of text (an id, a number, an ordinal, a venue name), which
does not depend on phrasing the way intents do: "#5", "number five", "the fifth one", "5" in
"1 vs 5", "icml2026 13", "icml 24", "NeurIPS" (every loaded NeurIPS).
"""

from __future__ import annotations

import re
from collections.abc import Collection, Sequence

from retrieval.collection_names import (
    NamedCollection,
    collection_key,
    resolve_collection,
    resolve_collections,
)
from retrieval.conversation import patterns
from retrieval.conversation.model import ALL, PositionRef, Ref, RelativeRef, ZeroRef
from retrieval.conversation.refs import refs_in_text
from retrieval.ids import find_paper_keys

_NUMBER_WORDS = patterns.SPELLED  # one list of number words, in patterns.py
_ORDINAL = "|".join(sorted((re.escape(word) for word in patterns.ORDINALS), key=len, reverse=True))
_NUMBER_WORD = "|".join(_NUMBER_WORDS)
# Looser position forms, for messages the classifier already says point at papers.
# A bare number followed by a unit is a quantity ("at 4 bit", "on 8 GPUs"), not a position.
_UNIT = (
    r"[ -]?(?:bits?|gpus?|tpus?|layers?|epochs?|hours?|days?|minutes?|shots?|tokens?|steps?"
    r"|samples?|params|parameters?|heads?|experts?|languages?|percent|points?|times|fold"
    r"|[kmb]|x|%)(?![\w])"
)
_LOOSE = re.compile(
    r"(?<![\w#])(?:"
    r"(?P<before>(?:the )?(?:one|paper|result) (?:before|above) (?:that|it|this)|previous one)"
    r"|(?P<after>(?:the )?(?:next|following) (?:one|paper)"
    r"|(?:the )?one (?:after|below) (?:that|it))"
    r"|(?P<top>(?:the )?(?:top|best|first) (?:one|result|paper|hit|match))"
    r"|(?:the )?(?:first|top) (?P<first_n>" + _NUMBER_WORD + r"|\d)\b"
    r"|(?:the )?last (?P<last_n>" + _NUMBER_WORD + r"|\d)\b"
    r"|(?P<both>both)"
    r"|(?P<all>(?:all of )?(?:them|these|those)(?: (?:papers|ones|results))?)"
    r"|(?P<range>\d{1,2}) ?(?:-|–|to|through) ?(?P<range_end>\d{1,2})"
    r"|(?:#|no\.? ?|number |num |nr\.? ?)(?P<word>" + _NUMBER_WORD + r")"
    r"|(?:the )?(?P<ord>" + _ORDINAL + r")"
    r"|#? ?(?<!\d\.)(?P<num>\d{1,2})(?!\d)(?:st|nd|rd|th)?(?!" + _UNIT + r")"
    r")(?![\w%.]\w)",
    re.IGNORECASE,
)
# A bare number word as a position; not a count ("the two", "these three papers", "two of them")
# nor a pronoun ("the one i opened", "which one").
_SPELLED = re.compile(
    r"(?<![\w#\-])(?<!the )(?<!these )(?<!those )(?<!which )(?<!this )(?<!that )(?<!each )("
    + "|".join(_NUMBER_WORDS)
    + r")(?![\w\-])(?! (?:of|papers?|ones?|results?|more)\b)",
    re.IGNORECASE,
)
_VENUES = ("icml", "iclr", "neurips", "nips", "acl", "emnlp", "cvpr", "aaai")
# "iclr", "NeurIPS", "icml 24", "ICML'24", "icml2024": a venue with or without a year.
_VENUE = re.compile(
    r"(?<![\w:\-])(?P<venue>"
    + "|".join(_VENUES)
    + r")(?:\s?['’]?(?P<year>(?:19|20)?\d\d))?(?![\w\-])",
    re.IGNORECASE,
)
# Question words that are not about the paper's content ("what about", "can you tell me").
_QUESTION_FILLER = re.compile(
    r"^(?:(?:hey|ok|so|and|also|then|pls|please)[, ]+)*"
    r"|\b(?:can|could) (?:you|u) (?:tell me|say)\b|\bpls\b|\bplease\b",
    re.IGNORECASE,
)


def pointed_at(
    text: str, slugs: Collection[str], *, loose: bool, spelled: bool = False
) -> tuple[Ref, ...]:
    """The papers `text` points at, in order, each once: ids, positions, relative, the focus.

    `loose` also reads bare numbers and ordinals ("1 vs 2", "the first or the second"); use it
    only once the message is known to be about papers, never for a search. `spelled` also
    reads bare number words ("compare seven and nine", "one or two?"): only where a number can
    only be a paper, since elsewhere "one" is a pronoun and "two" a count.
    """
    found: list[tuple[int, int, Ref]] = list(refs_in_text(text, slugs))
    if loose:
        # "the one before that" is one relation, not "the one" (the focus) and a "that".
        relations = [
            match.span()
            for match in _LOOSE.finditer(text)
            if match.group("before") or match.group("after")
        ]
        found = [
            item for item in found if not any(s < item[1] and item[0] < e for s, e in relations)
        ]
        taken = [(start, end) for start, end, _ in found]
        taken += [(start, end) for start, end, _ in find_paper_keys(text, slugs)]
        for match in _LOOSE.finditer(text):
            if any(start < match.end() and match.start() < end for start, end in taken):
                continue
            for ref in _loose_refs(match):
                found.append((match.start(), match.end(), ref))
            taken.append(match.span())
        for match in _SPELLED.finditer(text) if spelled else ():
            if not any(start < match.end() and match.start() < end for start, end in taken):
                found.append(
                    (match.start(), match.end(), PositionRef(_NUMBER_WORDS[match[1].lower()] - 1))
                )
    found.sort(key=lambda item: item[0])
    return tuple(dict.fromkeys(ref for _, _, ref in found))


def _loose_refs(match: re.Match[str]) -> list[Ref]:
    groups = match.groupdict()
    if groups["before"]:
        return [RelativeRef(-1)]
    if groups["after"]:
        return [RelativeRef(1)]
    if groups["top"]:
        return [PositionRef(0)]
    if groups["both"]:
        return [PositionRef(0, 2)]
    if groups["all"]:
        return [PositionRef(0, ALL)]
    for name, from_end in (("first_n", False), ("last_n", True)):
        if groups[name]:
            text = groups[name].lower()
            count = _NUMBER_WORDS.get(text) or int(text)
            return [PositionRef(-count, count) if from_end else PositionRef(0, count)]
    if groups["range"]:
        first, last = int(groups["range"]), int(groups["range_end"])
        if 0 < first <= last <= first + 9:
            return [PositionRef(first - 1, last - first + 1)]
        return []
    if groups["word"]:
        return [PositionRef(_NUMBER_WORDS[groups["word"].lower()] - 1)]
    if groups["ord"]:
        return [PositionRef(patterns.ORDINALS[groups["ord"].lower()])]
    number = int(groups["num"])
    if number > 0:
        return [PositionRef(number - 1)]
    # "#0" is a reference that cannot exist; a bare 0 ("llama 3.0") is no reference at all.
    return [ZeroRef()] if match.group(0).startswith("#") else []


def named_collections(
    text: str,
    collections: Sequence[NamedCollection],
    protected: Sequence[tuple[int, int]] = (),
) -> tuple[str, list[tuple[int, int]]] | None:
    """Loaded collections `text` names, as the engine's filter (slugs joined by commas), and
    where they are named; None when it names none. A venue without a year means every loaded
    collection of that venue ("neurips" -> neurips2023); "icml 24" means ICML 2024."""
    slugs: list[str] = []
    spans: list[tuple[int, int]] = []
    for match in _VENUE.finditer(text):
        if any(start < match.end() and match.start() < end for start, end in protected):
            continue
        venue = match.group("venue").lower()
        venue = "neurips" if venue == "nips" else venue
        year = match.group("year")
        if year:
            found = resolve_collection(collection_key(f"{venue}{year}"), collections)
            chosen = [found.slug] if found is not None else []
        else:
            chosen = [c.slug for c in resolve_collections(venue, collections)]
        if chosen:
            slugs += [slug for slug in chosen if slug not in slugs]
            spans.append(match.span())
    if not slugs:
        return None
    return ",".join(slugs), spans


_YEAR = re.compile(r"(?<![\w'’\-])(?:19|20)\d\d(?![\w\-])")


def year_collections(
    text: str, collections: Sequence[NamedCollection]
) -> tuple[str, list[tuple[int, int]]] | None:
    """Loaded collections of a year named alone ("2026 papers only" -> every 2026 list), as
    the engine's filter and where the year is written; None when no loaded list has it."""
    for match in _YEAR.finditer(text):
        year = match.group()
        slugs = [c.slug for c in collections if c.slug.endswith(year)]
        if slugs:
            return ",".join(slugs), [match.span()]
    return None


# A year said as where to look: "2026 papers on ...", "papers from 2024", "in 2026".
_YEAR_AS_PLACE = re.compile(
    r"(?:\b(?:from|in|during)\s(?:the\s)?(?P<after>(?:19|20)\d\d)(?![\w\-])"
    r"|(?<![\w'’\-])(?P<before>(?:19|20)\d\d)\s(?P<noun>papers?|abstracts?|list|set|ones)\b)",
    re.IGNORECASE,
)


def year_as_place(
    text: str, collections: Sequence[NamedCollection], protected: Sequence[tuple[int, int]] = ()
) -> tuple[str, tuple[int, int]] | None:
    """Loaded collections of a year said as where to look ("2026 papers on watermarking"), as
    the engine's filter and the year's span; None when no year is said so or none is loaded.
    A year inside a topic ("the 2024 election") is not a place."""
    for match in _YEAR_AS_PLACE.finditer(text):
        group = "after" if match.group("after") else "before"
        start, end = match.span(group)
        if match.group("noun") in ("list", "set", "ones"):
            end = match.end()  # "the 2026 list": "list" names no topic either
        if any(p_start < end and start < p_end for p_start, p_end in protected):
            continue
        found = year_collections(match.group(group), collections)
        if found is not None:
            return found[0], (start, end)
    return None


def unloaded_venue(
    text: str, protected: Sequence[tuple[int, int]] = ()
) -> tuple[int, int, str] | None:
    """A venue named as a place to look ("neurips papers on ...", "from ICML"), as (start, end,
    name), for a text in which no loaded collection was found; None when there is none."""
    for match in _VENUE.finditer(text):
        if any(start < match.end() and match.start() < end for start, end in protected):
            continue
        before = patterns.COLLECTION_BEFORE.search(text, max(0, match.start() - 16), match.start())
        if before or patterns.COLLECTION_NOUN_AFTER.match(text, match.end()):
            return match.start(), match.end(), venue_named(match.group(0)) or match.group(0)
    return None


def venue_named(text: str) -> str | None:
    """The first venue `text` names, as people write it ("ICLR", "NeurIPS 2023"), loaded or not."""
    match = _VENUE.search(text)
    if match is None:
        return None
    venue = match.group("venue").lower()
    name = "NeurIPS" if venue in ("neurips", "nips") else venue.upper()
    year = match.group("year")
    if year:
        name += f" {year if len(year) == 4 else '20' + year}"
    return name


def question_words(text: str, slugs: Collection[str]) -> str:
    """A question about papers without its references and filler: what to look for in them."""
    spans = [(start, end) for start, end, _ in refs_in_text(text, slugs)]
    pieces: list[str] = []
    position = 0
    for start, end in sorted(spans):
        pieces.append(text[position:start])
        position = max(position, end)
    pieces.append(text[position:])
    words = _QUESTION_FILLER.sub(" ", " ".join(pieces))
    return " ".join(words.split()).strip(" ?!.,")
