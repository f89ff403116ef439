"""Readable labels (<= 90 characters) and code/project URLs for abstracts that have no title.

A label is the name a paper introduces, with its expansion or a short description
("DRIFT: Decoupled Rollouts and Importance-Weighted Fine-Tuning"), or else a title-like phrase
from the sentence that states the contribution or opens the abstract, cut at a phrase boundary.
This runs on every ingested abstract, so it must stay in the tens of microseconds and never
raise, whatever a list file holds: triggers are found with `str.find`, regexes only run anchored
at those spots, and every quantifier is bounded.

This module assembles the label. The parts: `markup` cleans the text, `urls` finds links,
`names` finds the introduced name (scored in `candidates`, with the vocabulary of
`words`), `salient` the coined name the abstract keeps using or its code link repeats,
`phrases` gives candidate phrases and `scorer` picks one with fitted weights.
"""

from __future__ import annotations

import dataclasses
import re
from typing import Final

from retrieval.labels import phrases, scorer
from retrieval.labels.candidates import Candidate
from retrieval.labels.markup import clean, emphasized
from retrieval.labels.names import best_name
from retrieval.labels.salient import emphasis_hints, repository_names, salient_name
from retrieval.labels.text import MAX_LABEL_CHARS, capitalised, fit, opens_with_punctuation, unglued
from retrieval.labels.urls import extract_urls, url_matches

__all__ = [
    "LABELER_VERSION",
    "MAX_LABEL_CHARS",
    "derive_label",
    "extract_urls",
    "opens_with_punctuation",
]

# Bump on any change to the labels derived from abstracts: stored labels are re-derived.
# What each version changed: docs/tuning-labels.md.
LABELER_VERSION: Final = 13  # 11 (reverted) and 12 (branch labels2) were used

_FALLBACK_LABEL = "Untitled abstract"
# Consonant, vowel, consonant: an acronym said as a word ("WET", "SAN") names the method.
_SAID_AS_WORD = re.compile(r"[^AEIOU][AEIOUY][^AEIOU]")
# A "NAME: Expansion" shorter than this has room for what the named method is for.
_ROOM = 60


def derive_label(abstract: str, title: str | None = None) -> str:
    """<= 90 chars, never empty. A given title (JSONL lists) wins, trimmed on a word boundary."""
    cleaned_title = clean(title) if title else ""
    label = fit(cleaned_title) if cleaned_title else _label_from_abstract(abstract)
    if len(label) > MAX_LABEL_CHARS:
        label = _first_words(label)  # only a name longer than a label gets here
    # Rare Unicode spaces survive NFKC; a label must read as one clean line.
    return _drop_leading_punctuation(" ".join(label.split())) or _FALLBACK_LABEL


def _drop_leading_punctuation(label: str) -> str:
    """', a video tokenizer' -> 'a video tokenizer': a label never opens with punctuation."""
    while opens_with_punctuation(label):
        label = label[1:].lstrip()
    return label


def _label_from_abstract(abstract: str) -> str:
    text = unglued(clean(abstract))
    urls = url_matches(text)
    hints = repository_names([url.group() for url in urls if not _umbrella(text, url)])
    if "](" in abstract:
        # "[a website](https://lab.github.io/X/)": cleaning keeps the link text, not the URL.
        hints |= repository_names(list(extract_urls(abstract)))
    if urls:
        kept: list[str] = []
        start = 0
        for url in urls:
            kept.append(text[start : url.start()])
            start = url.end()
        kept.append(text[start:])
        text = " ".join(" ".join(kept).split())
    if not text:
        return ""
    candidate = best_name(text)
    linked = _linked(candidate, hints, text) if candidate and hints else None
    candidate = linked or candidate
    if candidate is None or (hints and linked is None):
        # A name the code link repeats beats one found by the introducing sentence alone.
        # Words set in bold or small capitals hint like a link's name, when nothing else names.
        extra = {} if candidate else emphasis_hints(emphasized(abstract))
        salient = salient_name(text, hints | extra if extra else hints)
        if candidate is None or (
            salient is not None and salient.name.casefold() in hints and salient.name in text
        ):
            candidate = salient
    if candidate and candidate.name.endswith("-"):
        candidate = dataclasses.replace(candidate, name=_unhyphenated(candidate.name, text))
    label = _compose(candidate, text, abstract) if candidate else _topic(text)
    return label or _first_words(text)


def _topic(text: str) -> str:
    """What a paper that names no method is about: the best-scored phrase of its contribution
    or opening sentence, else its first words cut at a phrase boundary."""
    best = scorer.best(phrases.candidates(text), text)
    return best.text if best else _first_words(text)


def _first_words(text: str) -> str:
    """The first sentence, or the longest clean cut of its first 90 characters, before its
    first comma when that leaves a clean phrase (never a list); never an ellipsis."""
    head = (phrases.opening(text) or text)[: MAX_LABEL_CHARS + 1]
    for stop in (". ", "? ", "! "):
        if stop in head:
            head = head[: head.index(stop) + 1]
    comma = head.find(", ")
    label = ""
    for part in (head[:comma], head) if comma > 0 else (head,):
        words = part.split(" ")
        verb = phrases.sentence_verb(words)
        if verb == 1 and words[1:2] in (["is"], ["are"]) and _predicate(words[2:3]):
            words = [words[0] + ":", *words[2:]]  # "Touch is a sense" -> "Touch: a sense"
        elif verb >= 2:
            words = words[:verb]  # "Physics simulators" can serve
        if len(part) > MAX_LABEL_CHARS and len(words) > 1:
            words.pop()  # the last word may be cut in the middle
        while len(words) > 1 and not phrases.ends_cleanly(" ".join(words).rstrip(" ,;:.")):
            words.pop()
        label = capitalised(" ".join(words).rstrip(" ,;:.")) or text
        if len(words) > 1 and phrases.ends_cleanly(label):
            break
    return label[:MAX_LABEL_CHARS]  # one word longer than a label: hostile input only


def _predicate(first: list[str]) -> bool:
    """Whether a noun phrase may open with this word: an article or an adjective, not a
    participle, adverb or preposition ("is known to", "is often", "are at")."""
    word = first[0] if first else ""
    return word in ("a", "an", "the") or (
        word.isalpha()
        and word.islower()
        and not word.endswith(("ed", "ly", "en"))
        and word not in phrases.DANGLING
    )


def _unhyphenated(name: str, text: str) -> str:
    """'HiDe-' of '(HiDe-)Prompt' is 'HiDe-Prompt': a name never ends on a hyphen."""
    at = text.find(name + ")")
    following = re.match(r"[\w-]{1,30}", text[at + len(name) + 1 :]) if at >= 0 else None
    return name + following.group() if following else name.rstrip("-")


def _umbrella(text: str, url: re.Match[str]) -> bool:
    """'Our code is available as part of AIRS (https://github.com/divelab/AIRS)': the link
    names the lab's library that holds the method, not the method."""
    return "part of " in text[max(url.start() - 40, 0) : url.start()]


def _linked(candidate: Candidate, hints: dict[str, str], text: str) -> Candidate | None:
    """The candidate as the code link spells it, if the link names it.

    'Lookbehind' with github.com/lab/Lookbehind-SAM is 'Lookbehind-SAM'; 'video-SALMONN' with
    github.com/lab/SALMONN is the same name, hyphen parts apart, and keeps its spelling.
    """
    name = candidate.name.casefold()
    if name in hints:
        return candidate
    for hint, spelled in hints.items():
        if hint.startswith(name + "-") and (
            spelled in text or _names_a_part(spelled[len(name) + 1 :], text)
        ):
            # Only as the abstract spells it, or when the abstract names the added part
            # ("Lookbehind" with .../Lookbehind-SAM and "sharpness-aware minimization (SAM)"):
            # links also say "X-ICML2024", "X-pytorch".
            return dataclasses.replace(candidate, name=spelled)
        if hint.startswith(name + "-") and spelled.replace("-", " ") in text:
            # ".../GeneOH-Diffusion/" and "GeneOH Diffusion" in the abstract: a two-word name.
            return dataclasses.replace(candidate, name=spelled.replace("-", " "))
        if name.endswith("-" + hint) or name.startswith(hint + "-"):
            return candidate
    return None


def _long_form_leads(acronym: str, long_form: str, abstract: str) -> bool:
    """Whether the paper is called by its long form: 'Layerwise Proximal Replay (LPR)'.

    Two or three plain capitals, one per title-case word, abbreviate a name the title spells out
    more often than not (29 to 11 papers on the tuning lists); kept are acronyms that read as a
    word ('WET', 'DOS') and initials the authors set in bold ('**D**ecoding **T**ree ...').
    """
    if not (2 <= len(acronym) <= 4 and acronym.isascii() and acronym.isalpha()):
        return False
    if not acronym.isupper():
        # "Score identity Distillation (SiD)", "Chain of Code (CoC)": the acronym copies the
        # long form's initials with their case, small words included; titles spell it out
        # (8 to 0 on the tuning lists; other mixed-case acronyms lead 31 to 5).
        return _case_kept_initials(acronym, long_form)
    if len(acronym) == 4:
        return False
    words = long_form.split(" ")
    if not acronym.isupper() or "".join(word[:1] for word in words) != acronym:
        return False
    if len(acronym) == 3 and _SAID_AS_WORD.fullmatch(acronym):
        return False
    # "**D**ecoding", "\\textbf{D}ecoding": the initials marked, the acronym is the name.
    first = words[0]
    marked = re.escape(first[:1]) + r"(?:\*\*?|\}|__?)" + re.escape(first[1:])
    return not any(mark in abstract for mark in "*}_") or re.search(marked, abstract) is None


def _case_kept_initials(acronym: str, long_form: str) -> bool:
    """'SiD' of 'Score identity Distillation', 'DfPO' of 'Degeneration-free Policy
    Optimization', 'CnC' of 'Compose and Conquer' (a small word may give another letter)."""
    parts = long_form.replace("-", " ").split()
    if len(parts) != len(acronym):
        return False
    for letter, part in zip(acronym, parts, strict=True):
        if part[0] != letter and not (letter.islower() and part.islower() and letter in part):
            return False
    return True


def _names_a_part(part: str, text: str) -> bool:
    """Whether `part` is an acronym the abstract uses as a word: 'SAM' in '... (SAM) ...'."""
    return (
        len(part) >= 2
        and part.isupper()
        and re.search(rf"(?<![\w-]){re.escape(part)}(?![\w-])", text) is not None
    )


def _tails(candidate: Candidate, text: str, room: int, *, topic: bool) -> list[phrases.Phrase]:
    """What may follow a name: its description ("a framework for X") and, when `topic`, the
    contribution's phrases that do not repeat the name."""
    found: list[phrases.Phrase] = []
    description = candidate.description
    if description[:2] in (": ", ", ") and description[2:].startswith(("a ", "an ", "the ")):
        for phrase in phrases.cuts(description[2:], "description", 0, room, title=False):
            if phrase.text.count(" ") >= 2:  # "a framework" alone says nothing
                found.append(phrase)
    if topic and not found:
        for phrase in phrases.candidates(text, room):
            if candidate.name.casefold() not in phrase.text.casefold():
                found.append(phrase)
    return found


def _compose(candidate: Candidate, text: str, abstract: str) -> str:
    name = candidate.name
    expansion = candidate.expansion.strip(" ,;:.\"'“”")
    if (
        " " not in expansion
        and "-" in expansion
        and expansion[:1].isupper()
        and f"{name}: {expansion}" not in text
    ):
        # "Think-on-Graph (ToG)": a hyphenated long form is what papers call it by, unless the
        # authors put the acronym first ("PAE: Planner-Actor-Evaluator").
        name, expansion = expansion, ""
    if expansion and expansion.casefold() != name.casefold():
        head = (
            f"{expansion} ({name})"
            if _long_form_leads(name, expansion, abstract)
            else f"{name}: {expansion}"
        )
        if len(head) > MAX_LABEL_CHARS:
            return name
        if len(head) < _ROOM:
            # "DMC: Dynamic Memory Compression" says little of what it is for: its description
            # follows when there is room for a whole phrase of it.
            tail = scorer.best(
                _tails(candidate, text, MAX_LABEL_CHARS - len(head) - 2, topic=False), text
            )
            if tail and expansion.casefold() not in tail.text.casefold():
                return f"{head}, {tail.text}"
        return head
    room = MAX_LABEL_CHARS - len(name) - 2
    if candidate.description[:1] == " " and candidate.description[1:2].islower():
        # "NAME algorithm for X": the type noun right after the name.
        kept = phrases.cuts(candidate.description[1:], "description", 0, room - 1, title=False)
        if kept and kept[-1].text.count(" ") >= 1:
            return f"{name} {scorer.best(kept, text).text}"  # type: ignore[union-attr]
    tail = scorer.best(_tails(candidate, text, room, topic=True), text)
    return f"{name}: {tail.text}" if tail else name
