"""A compact topic phrase for a label, from the sentence that states the contribution.

The fallback when an abstract names nothing: "we study X" gives X, trimmed at the first clause
break; without such a sentence the first sentence serves.
"""

from __future__ import annotations

import re

from retrieval.labels.text import capitalised, fit, occurrences
from retrieval.labels.words import ANAPHORA, is_coined_word

# A period after these does not end a sentence.
_ABBREVIATIONS = tuple(
    prefix + word
    for word in ("e.g", "i.e", "et al", "etc", "vs", "cf", "Fig", "Figs", "Eq", "Eqs", "Sec",
                 "resp", "approx", "w.r.t", "a.k.a", "No", "Dr", "Prof")
    for prefix in (" ", "(")
)  # fmt: skip
_LEAD_IN = re.compile(
    r"(?:(?:(?:in|within) (?:this|the present|our) (?:paper|work|study|article|note|submission)"
    r"|here|to (?:this end|that end|address (?:this|these|such)[^,]{0,40})|accordingly|therefore"
    r"|thus|hence|specifically|concretely|instead|in contrast|motivated by [^,]{0,60}"
    r"|inspired by [^,]{0,60}|towards? [^,]{0,60}"
    r"|recent (?:advances|progress|work|works|studies|research|results)[^,]{0,60}? "
    r"(?:suggest|show|demonstrate|indicate|reveal)s? that),? )+",
    re.IGNORECASE,
)
_CONTRIBUTION = re.compile(
    r"(?:we|this (?:paper|work|study|article|note)|our (?:paper|work|study)) (?:(?:first"
    r"|also|further|then|here|now|formally|novelly|systematically|theoretically|empirically"
    r"|rigorously|comprehensively|carefully|thoroughly) )?(?:propos|introduc|present|stud"
    r"|investigat|consider|develop|examin|explor|analy[sz]|address|tackl|design|revisit|show"
    r"|prove|demonstrat|characteri[sz]|establish|provid|deriv|describ|report|formulat|focus"
    r"|identif|offer|initiat|put forward|extend|give|leverag|ask|aim|seek|explain|uncover"
    r"|reveal)[a-z]{0,4}(?: (?:on|that|how(?: to)?|whether|to|at))? ",
    re.IGNORECASE,
)
# "we aim to address X": the subject goes first, then the second verb.
_SECOND_VERB = re.compile(
    r"(?:address|answer|bridge|close|fill|understand|tackle|solve|study|investigate|explore"
    r"|provide|develop|build|design|improve|characteri[sz]e|identify|learn|mitigate|overcome)"
    r"[a-z]{0,3} ",
    re.IGNORECASE,
)
_LEADING_DETERMINERS = re.compile(
    r"(?:(?:a|an|the|our|its|their|some|several|two|three|new|novel|first|simple|general"
    r"|unified|yet|effective|and) )+",
    re.IGNORECASE,
)
_SHORT = 60
# "the problem of X", "the use of X": the head says little, X is what a title names.
_EMPTY_HEAD = re.compile(
    r"(?:the )?(?:challenge|problem|task|application|use|notion|question|concept|issue|study"
    r"|analysis|investigation) of ",
    re.IGNORECASE,
)
# An empty head goes only when more than this many characters follow it.
_HEAD_ROOM = 20
# "Despite the remarkable capabilities, LLMs face ...": the concession is not the subject.
_CONCESSION = re.compile(
    r"(?:despite|although|though|while|even though|whereas) [^,;]{3,120}, ", re.I
)
# Only a free-standing aside: "(ε, δ)-private" keeps its parenthesis.
_ASIDE = re.compile(r" \([^()]{0,80}\)(?=[\s,.;:]|$)")
# Words a 90-character label can do without; whole words only, so the "A" of "A/B testing"
# and the "simple" of "simple-yet-efficient" stay.
FILLER_WORDS = frozenset(
    [
        "a", "an", "the", "novel", "new", "simple", "yet", "effective", "general", "generic",
        "unified", "principled", "several", "various", "some", "very", "highly", "also", "both",
        "existing", "different", "specific", "particular", "powerful", "practical",
        "lightweight", "systematic", "comprehensive", "innovative",
        # hedges and praise: what the background says of the field, not what the paper does
        "recently", "significantly", "effectively", "successfully", "important",
        "crucial", "fundamental", "critical", "promising", "remarkable", "impressive", "notable",
    ]
)  # fmt: skip
_FILLER_OR_COMMA = FILLER_WORDS | {word + "," for word in FILLER_WORDS}
_JOINERS = frozenset(["and", "or"])
_CLAUSE_BREAK = re.compile(
    r": |; | — | – | - |, (?:which|where|whereas|while|and|but|so|thus|with|[a-z]{3,20}ing)\b"
)


def split_sentences(text: str, limit: int = 4) -> list[str]:
    """The first sentences; a period ends one only before a capital, digit or opening mark."""
    sentences: list[str] = []
    start = 0
    stop = text.find(". ")
    while stop >= 0 and len(sentences) < limit:
        following = text[stop + 2 : stop + 3]
        # A lowercase start counts too: "clips. \\modelname{} halves" lost its subject to markup.
        if (following.isalnum() or following in "\"“'([") and not (
            text.endswith(_ABBREVIATIONS, start, stop)
        ):
            sentences.append(text[start : stop + 1])
            start = stop + 2
        stop = text.find(". ", stop + 2)
    if len(sentences) < limit:
        sentences.append(text[start:])
    return sentences


def topic_phrase(text: str) -> str:
    """A compact phrase from the contribution sentence, else from the first sentence."""
    chosen, later, opening = _contribution(text)
    if not chosen:
        chosen, opening = opening, ""
    chosen = _phrase(chosen)
    if later and opening and len(chosen) < _SHORT:
        # A short contribution leaves room for the problem the abstract opens with.
        chosen = f"{chosen}; {_phrase(opening)}"
    if not chosen:
        return ""
    return fit(capitalised(chosen))


def contribution_clause(text: str) -> str:
    """What the contribution sentence says the paper does, uncut ("" when none says it)."""
    return _contribution(text)[0]


def _contribution(text: str) -> tuple[str, bool, str]:
    """The contribution clause, whether it comes after the opening sentence, and the opening
    sentence without its lead-in or concession."""
    sentences = split_sentences(text)
    chosen = ""
    later = False
    opening_rest = ""
    for index, sentence in enumerate(sentences):
        lead = _LEAD_IN.match(sentence)
        rest = sentence[lead.end() :] if lead else sentence
        if index == 0:
            opening_rest = rest  # the opening needs the same cut: match the lead-in once
        contribution = _contribution_in(rest)
        if contribution:
            chosen = rest[contribution.end() :]
            second = _SECOND_VERB.match(chosen)
            chosen = chosen[second.end() :] if second else chosen
            if len(chosen) < 16 or ANAPHORA.search(chosen, 0, 60):
                chosen = ""
            later = index > 0
            break
    return chosen, later, _opening(opening_rest)


def states_contribution(sentence: str) -> bool:
    """Whether the sentence says what the paper does: "In this paper, we propose ..."."""
    lead = _LEAD_IN.match(sentence)
    return _contribution_in(sentence[lead.end() :] if lead else sentence) is not None


def _contribution_in(rest: str) -> re.Match[str] | None:
    """The contribution verb of a sentence without its lead-in: at its start, or after an
    opening clause ("Based on this insight, we propose ...")."""
    found = _CONTRIBUTION.match(rest)
    if found is None and " we " in rest:
        found = _contribution_inside(rest)
    return found


def _contribution_inside(sentence: str) -> re.Match[str] | None:
    """'Based on this insight, we propose ...': the contribution after an opening clause."""
    for position in occurrences(sentence, " we "):
        found = _CONTRIBUTION.match(sentence, position + 1)
        if found:
            return found
    return None


def _aside(match: re.Match[str]) -> str:
    """'(LLMs)', '(e.g., ...)' go; a coined name such as '(X-Prompt)' stays."""
    inner = match.group()[2:-1]
    keep = " " not in inner and is_coined_word(inner) and not inner.rstrip("s").isupper()
    return match.group() if keep else ""


def _opening(sentence: str) -> str:
    """The opening sentence, its lead-in already cut, without a leading concession."""
    concession = _CONCESSION.match(sentence)
    return sentence[concession.end() :] if concession else sentence


def _phrase(chosen: str) -> str:
    """The clause, without leading determiners, asides in parentheses or filler adjectives."""
    determiners = _LEADING_DETERMINERS.match(chosen)
    if determiners and determiners.end() < len(chosen):
        chosen = chosen[determiners.end() :]
    head = _EMPTY_HEAD.match(chosen)
    if head and head.end() < len(chosen) - _HEAD_ROOM:
        chosen = chosen[head.end() :]
    chosen = chosen[:300].rstrip(" .!?")
    broken = _CLAUSE_BREAK.search(chosen, 25)
    if broken:
        chosen = chosen[: broken.start()]
        if chosen.count("(") > chosen.count(")"):  # the break fell inside a parenthesis
            chosen = chosen[: chosen.rfind("(")].rstrip()
    return compress(chosen).strip(" ,;:")


def compress(phrase: str) -> str:
    """The phrase without asides in parentheses and filler words: 90 characters hold more of
    what the paper does without "(LLMs)", "a novel", "the"."""
    if "(" in phrase:
        phrase = _ASIDE.sub(_aside, phrase)
    # A label keeps 90 characters: the words after the first 200 never reach it.
    # "a novel, simple yet powerful sampler": a filler word goes with its comma.
    kept: list[str] = []
    dropped = False
    for word in phrase[:200].split():
        lower = word.lower()
        if lower in _FILLER_OR_COMMA or (dropped and lower in _JOINERS):
            # "a novel and scalable method" -> "scalable method", not "and scalable method".
            dropped = lower not in _JOINERS
            continue
        dropped = False
        kept.append(word)
    return " ".join(kept)
