"""Readable labels (<= 90 characters) and code/project URLs for abstracts that have no title.

A label is the name a paper introduces, with its expansion or a short description
("DRIFT: Decoupled Rollouts and Importance-Weighted Fine-Tuning"), or else a compact topic phrase
from the sentence that states the contribution. This runs on every ingested abstract, so it must
stay in the tens of microseconds and never raise, whatever a list file holds: triggers are found
with `str.find`, regexes only run anchored at those spots, and every quantifier is bounded.

This module assembles the label. The parts: `markup` cleans the text, `urls` finds links,
`names` finds the introduced name (scored in `candidates`, with the vocabulary of
`words`), `salient` the coined name the abstract keeps using or its code link repeats,
`topics` gives the topic phrase, `keyphrases` the key phrases (weighed by the learned lexicon of
`title_words`) and `text` trims to the limit.
"""

from __future__ import annotations

import dataclasses
import re
from typing import Final

from retrieval.labels.candidates import Candidate
from retrieval.labels.keyphrases import key_phrases
from retrieval.labels.markup import clean, emphasized
from retrieval.labels.names import best_name
from retrieval.labels.salient import emphasis_hints, repository_names, salient_name
from retrieval.labels.text import (
    MAX_LABEL_CHARS,
    capitalised,
    fit,
    opens_with_punctuation,
    unglued,
)
from retrieval.labels.topics import compress, contribution_clause, topic_phrase
from retrieval.labels.urls import extract_urls, url_matches
from retrieval.text import analyze

__all__ = [
    "LABELER_VERSION",
    "MAX_LABEL_CHARS",
    "derive_label",
    "extract_urls",
    "opens_with_punctuation",
]

# Bump on any change to the labels derived from abstracts: stored labels are re-derived.
# 2: introduced names found wherever the abstract introduces them (salient.py, code links),
#    topic phrases from the contribution sentence, compressed.
# 3: quoted names after naming words; a name that extends its code link's name keeps it;
#    descriptions after a name lose filler words; hedges and praise ("crucial") are filler.
# 4: glued naming words ("calledX"), "the proposed triadic-OCD", "a framework, Title Case Name,",
#    "our RAPTOR model"; "a universal" rather than "an universal"; no "a and" after fillers;
#    acronyms spelled by capitals inside words (MERT); a code link's "-SAM" part the abstract names;
#    coined words set in bold or small capitals hint like a code link when nothing else names.
# 5: a two- or three-capital acronym of a title-case long form follows it ("Layerwise Proximal
#    Replay (LPR)"); field-wide names (HumanEval) and "(MCTS)-based" parts are no names; "by
#    introducing X"; not "we formulate X as"; "R-EDL" over "EDL", "A2Q+" over "A2Q"; names with
#    "of", "as", "&" ("Chain of Code"); links inside markdown links hint; "Long Form ACR".
# 6: "Score identity Distillation (SiD)": a case-kept mixed acronym follows its long form; "the
#    Connect Later framework"; "NEFTune adds ..."; "us to propose X"; "We present QLoRA, an ...";
#    "Leveraging X, we develop Y" prefers Y; a "block"/"module" is a part; "_" in links reads "-";
#    topics lose an empty head ("the problem of X" -> "X").
# 7: papers that name nothing are labelled by key phrases chosen with a lexicon learned on the
#    tuning lists (keyphrases.py, title_words.json), and so are the words after a short name.
# 8: names the abstract keeps using: a mixed-case abbreviation that opens sentences ("SuRe
#    helps"), a coined word the authors act on ("we train CLIPZyme") or that opens a clause
#    twice, "a neural LSEnet", a word built on the name used more ("LeaP" -> "LeaPformer"), a
#    code link's head the abstract writes ("Spider" of ".../Spider-UniCDSeg"), "our proposed
#    method, X (ACR) ...", "our novel X (ACR)"; a task the paper sets loses to its solver; a bare
#    "a framework" after a name gives way to key phrases.
# 9: a courtesy title's period stays in the name ("Dr. Strategy", not "Dr"); a label's first word
#    spelled with a capital inside keeps its case ("νPI", not "ΝPI").
LABELER_VERSION: Final = 9

# Vowel letters that sound like a consonant: "a universal method", "a one-step sampler".
_CONSONANT_SOUND = ("uni", "use", "usu", "uti", "eu", "one")
_FALLBACK_LABEL = "Untitled abstract"
# Consonant, vowel, consonant: an acronym said as a word ("WET", "SAN") names the method.
_SAID_AS_WORD = re.compile(r"[^AEIOU][AEIOUY][^AEIOU]")
# "Gen-Z—a generative ...", "∞-Diff, a generative ...": the clause opens with a name it defines.
_DEFINED_NAME = re.compile(r"[^\s,:—]{1,30}(?: [^\s,:—]{1,30}){0,3}(?:—|, an? |, the |: )")
# ": a framework", ": a model": the type alone says less than the topic does.
_BARE_TYPE = re.compile(r"(?:a|an|the) [a-z\-]{1,20}")
# A description cut to fewer characters than this says too little to be worth it.
_DESCRIPTION_ROOM = 30
# Key phrases after a name need this much room to say something ("– LLMs" does not).
_TAIL_ROOM = 15
# A label shorter than this has room for what the named method is for.
_ROOM = 80


def derive_label(abstract: str, title: str | None = None) -> str:
    """<= 90 chars, never empty. A given title (JSONL lists) wins, trimmed on a word boundary."""
    cleaned_title = clean(title) if title else ""
    label = fit(cleaned_title) if cleaned_title else _label_from_abstract(abstract)
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
    label = _compose(candidate, text, abstract) if candidate else _topic(text)
    return label or fit(text)


def _topic(text: str) -> str:
    """What a paper that names no method is about.

    Key phrases hold more of what its title would say than any one clause: title words in the
    label on the tuning lists, each list's lexicon learned on the other, about 0.50 against 0.38
    for the contribution's statement and 0.48 for a 40-character statement followed by key
    phrases (docs/tuning-labels.md, seventh round, topic labels). A contribution that opens
    with a name ("we introduce Algorithm of Thoughts, a strategy ...") keeps its clause, which
    leads with the name.
    """
    clause = contribution_clause(text).removeprefix("the ")
    if clause[:1] and not clause[:1].islower() and _DEFINED_NAME.match(clause):
        return topic_phrase(text)
    return key_phrases(text) or topic_phrase(text)


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


def _described(description: str) -> str:
    """'a novel, lightweight framework for ...' -> 'a framework for ...': the article reads
    better after a name, the filler words take room."""
    article, _, rest = description.partition(" ")
    if article.lower() in {"a", "an", "the"} and rest:
        kept = compress(rest)
        if (
            kept[:1].lower() in "aeiou"
            and not kept.lower().startswith(_CONSONANT_SOUND)
            and article.lower() in {"a", "an"}
        ):
            article = article[0] + "n"  # "a novel, efficient model" -> "an efficient model"
        elif article.lower() in {"a", "an"}:
            article = article[0]
        return f"{article} {kept}"
    return compress(description)


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
        label = (
            f"{expansion} ({name})"
            if _long_form_leads(name, expansion, abstract)
            else f"{name}: {expansion}"
        )
        if len(label) < _ROOM:
            # "DMC: Dynamic Memory Compression" says little of what it is for: add the
            # description or the topic while there is room.
            room = MAX_LABEL_CHARS - len(label) - 3
            described = _described(candidate.description.removeprefix(": ").removeprefix(", "))
            if described and len(described) > room and room < _DESCRIPTION_ROOM:
                # "DRIFT: Decoupled Rollouts and ... Fine-Tuning, a framework…": too little of
                # the description would show; key phrases fit the room whole.
                described = ""
            more = described or (
                key_phrases(text, room, frozenset(analyze(label))) if room >= _TAIL_ROOM else ""
            )
            if more and name not in more and expansion.casefold() not in more.casefold():
                label = (
                    f"{label}, {more[:1].lower()}{more[1:]}" if described else f"{label} – {more}"
                )
        return fit(label)
    if candidate.description:
        # Keep the joiner: ": a framework ...", ", which ...", " algorithm for ...".
        joiner = candidate.description[:2] if candidate.description[:1] in ",:" else " "
        described = _described(candidate.description[len(joiner) :])
        if not _BARE_TYPE.fullmatch(described):
            return fit(name + joiner + described)
    # A bare name says little in a list of papers: add what the abstract is about.
    topic = topic_phrase(text)
    if topic.casefold().startswith(name.casefold()) and not candidate.description:
        return topic  # "QuIP#, a weight-only PTQ method": the clause leads with the name
    topic = key_phrases(text, MAX_LABEL_CHARS - len(name) - 2, frozenset(analyze(name))) or topic
    if name in topic:
        # "Method, eXpRT, prunes experts": the name leads, so it need not be said twice.
        for spelled in (f", {name},", f" ({name})", f" {name}"):
            topic = topic.replace(spelled, "")
        topic = capitalised(topic)
    return fit(f"{name}: {topic}" if topic else name)
