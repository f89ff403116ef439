"""Words that point at papers -> references: ids, positions in the last answer, the focus.

`whole_refs` reads a fragment that is nothing but references ("the first two", "1 and 3",
"icml2026-6 vs icml2026-23", "it"); `refs_in_text` finds them inside a question and says where.
"""

from __future__ import annotations

import re
from collections.abc import Collection

from retrieval.conversation import patterns
from retrieval.conversation.model import ALL, FocusRef, IdRef, PositionRef, Ref, ZeroRef
from retrieval.ids import find_paper_keys, record_id

_LEADING_ARTICLE = re.compile(r"^(?:the|a|an|to|of|for|about|on|with|and|me)\s")


def _id_ref(fragment: str, slugs: Collection[str]) -> IdRef | None:
    found = find_paper_keys(fragment, slugs)
    if len(found) == 1 and found[0][0] == 0 and found[0][1] == len(fragment):
        return IdRef(found[0][2], record_id(fragment))
    return None


def _position(match: re.Match[str]) -> PositionRef | ZeroRef | None:
    """A POSITION or POSITION_IN_TEXT match as a reference: ZeroRef for "#0" (answered with how
    numbering works), None for "top 0"."""
    groups = match.groupdict()
    ordinal = groups.get("ord") or groups.get("ord_end")
    if ordinal:
        index = patterns.ORDINALS[ordinal.lower()]
        count = patterns.COUNTS.get((groups.get("count") or "one").lower(), 1)
        if index < 0 and count > 1:  # "the last two": start `count` from the end
            return PositionRef(-count, count)
        return PositionRef(index, count)
    spelled = groups.get("spelled")
    if spelled:
        return PositionRef(patterns.SPELLED[spelled.lower()] - 1)
    if groups.get("both"):
        return PositionRef(0, 2)
    number = groups.get("num") or groups.get("num2") or groups.get("bare")
    if number:
        return PositionRef(int(number) - 1) if int(number) > 0 else ZeroRef()
    top = groups.get("topn")
    if top:
        return PositionRef(0, int(top)) if int(top) > 0 else None
    return PositionRef(0, ALL)  # "them", "these", "those"


def whole_ref(fragment: str, slugs: Collection[str]) -> Ref | None:
    """One reference that is the whole (folded) fragment, or None."""
    fragment = fragment.strip(" .,!?;:")
    if not fragment:
        return None
    found = _id_ref(fragment, slugs)
    if found is not None:
        return found
    position = patterns.POSITION.pattern.fullmatch(fragment)
    if position is not None:
        return _position(position)
    if patterns.FOCUS.pattern.fullmatch(fragment):
        return FocusRef()
    return None


def whole_refs(fragment: str, slugs: Collection[str]) -> tuple[Ref, ...] | None:
    """References that make up the whole fragment ("1 3", "it and the second one"), or None."""
    single = whole_ref(fragment, slugs)
    if single is not None:
        return (single,)
    refs: list[Ref] = []
    for part in re.split(r"\s*(?:,|&|\band\b|\bvs\.?|\bversus\b|\bwith\b|\bto\b)\s*", fragment):
        if not part.strip():
            continue
        part = _LEADING_ARTICLE.sub("", part.strip())
        ref = whole_ref(part, slugs)
        if ref is not None:
            refs.append(ref)
            continue
        words = [whole_ref(word, slugs) for word in part.split()]  # "1 3"
        if not words or any(word is None for word in words):
            return None
        refs.extend(word for word in words if word is not None)
    return tuple(refs) if refs else None


def refs_in_text(text: str, slugs: Collection[str]) -> list[tuple[int, int, Ref]]:
    """References inside a sentence, as (start, end, ref), left to right, without overlaps."""
    spans: list[tuple[int, int, Ref]] = [
        (start, end, IdRef(key, record_id(text[start:end])))
        for start, end, key in find_paper_keys(text, slugs)
    ]
    for match in patterns.POSITION_IN_TEXT.finditer(text):
        ref = _position(match)
        if ref is not None:
            spans.append((match.start(), match.end(), ref))
    spans.extend(
        (match.start(), match.end(), FocusRef()) for match in patterns.FOCUS_IN_TEXT.finditer(text)
    )
    spans.sort(key=lambda span: (span[0], -span[1]))
    kept: list[tuple[int, int, Ref]] = []
    for span in spans:
        if not kept or span[0] >= kept[-1][1]:
            kept.append(span)
    return kept
