"""The name an abstract introduces for its method, benchmark or dataset, if any.

Triggers where the authors speak ("we", "this paper", "our") or name something ("called", "X, a
framework") are found with `str.find` on the lowercased text; regexes then run anchored there
only, with bounded quantifiers, so a hostile abstract cannot make the search slow.
"""

from __future__ import annotations

import dataclasses
import re

from retrieval.labels.candidates import PAREN_AFTER, Candidate, clause_end, scored, tail_after
from retrieval.labels.salient import PROPER_WORDS, SHORT_ACRONYM
from retrieval.labels.text import occurrences
from retrieval.labels.words import (
    ANAPHORA,
    TYPES,
    acronym_start,
    all_capitalised,
    is_acronym,
    is_coined_word,
    is_strong,
    strip_leading_noise,
)

# One word of a name carries a capital or a digit: "DRIFT", "Eyes-on-Me", "ctfIDu+", "o3".
_TOKEN = r"(?=[\w+\-.]{0,40}?[A-Z0-9])[^\W_](?:[\w+\-.]{0,40}[\w+])?"
_TOKEN_WORD = re.compile(_TOKEN)
# "Dr. Strategy": a courtesy title's period is part of the name, not the end of a sentence.
_TITLE_ABBREVIATION = r"(?:Dr|Mr|Mrs|Ms|Prof|St)\. "
_NAME = rf"(?:{_TITLE_ABBREVIATION})?{_TOKEN}(?: (?:and |of |as |& )?{_TOKEN}){{0,5}}"
# Where the authors speak ("we", "this paper") or name something, found with `str.find` on the
# lowercased text: a handful of C-speed scans instead of one slow alternation over every position.
_PAPER_WORDS = ("paper ", "work ", "study ", "article ", "note ")
_CALL_STEMS = ("called ", "name", "dubbed ", "termed ", "coined ", "referred to as ", "denoted ")
# Longest first: "coined as X" must not read "as X" as the name.
_CALL_WORDS = (
    "called as ", "named as ", "dubbed as ", "termed as ", "coined as ", "denoted as ",
    "called ", "named ", "namely, ", "namely ", "dubbed ", "termed ", "coined ", "referred to as ",
)  # fmt: skip
# Only words that start with the stem can be read where the stem was found.
_CALL_WORDS_BY_STEM = {
    stem: tuple(word for word in _CALL_WORDS if word.startswith(stem)) for stem in _CALL_STEMS
}
# Adverbs (and "have": "we have developed X") may stand between "we" and the verb.
_VERB = re.compile(
    r"(?P<adverbs>(?:(?:[a-z]{2,14}ly|also|further|then|thus|hence|first|here|now|therefore"
    r"|instead|accordingly|finally|additionally|next|to this end|have),? ){0,2})"
    r"(?:(?P<intro>propos|introduc|present|develop|design|devis|buil[dt]|construct|releas"
    r"|creat|contribut|offer|unveil|curat|provid|pioneer|put forth"
    # "we derive a novel class of transformers, PIDformer"; not "we derive the IPW estimator"
    r"|deriv(?=e[sd]? an? (?:novel|new) ))[a-z]{0,3}"
    r"|(?:call|term|name|dub|coin)[a-z]{0,3}(?: (?:it|this|them|these|our|the|such)"
    rf"(?: (?:new |proposed |resulting |overall |novel )?{TYPES})?)?"
    r"|refer(?:s|red)? to (?:it|this|them|these|our|the)(?: [\w\-]{1,30}){0,3}? as) "
)
# Gerunds that introduce after "by": not "by formulating", "by constructing".
_BY_GERUNDS = ("introducing ", "proposing ", "developing ", "designing ", "presenting ")
# Introducing verbs that may name what the field later took up ("we introduce QLoRA").
_FIRST_USE = frozenset(("propos", "introduc", "present"))
_ALSO = re.compile(r"also|further|additionally|finally|next")
_FILLER = re.compile(
    r"(?:(?:the|a|an|our|this|two|three|new|novel|simple|first|yet|effective|general|unified"
    r"|principled|lightweight|efficient|so-called|here|thus|also|further|then|and)\s){0,5}"
)
_ACRONYM_DEF = re.compile(
    r"(?P<exp>(?:[^\s(),.;:]{1,40}+ ){0,9}?[^\s(),.;:]{1,40}+) ?\( ?(?P<acr>[^()\s,;]{1,20}+) ?\)"
)
# "Safe Reinforcement Learning from Human Feedback (Safe RLHF)": the long form's first word, then
# an acronym of the rest, in brackets (the acronym alone would be a field term).
_SPACED_ACRONYM_DEF = re.compile(
    r"(?P<head>[A-Z][\w\-]{0,20}+) (?P<rest>(?:[^\s(),.;:]{1,40}+ ){0,8}?[^\s(),.;:]{1,40}+) "
    r"\((?P=head) (?P<acr>[^()\s,;]{2,15}+)\)"
)
# "X—a new algorithm": an em or en dash set without spaces opens the description too.
_DIRECT_NAME = re.compile(
    rf"(?P<name>{_NAME})(?P<after> ?[,(:]| [-–—](?= )|[–—](?=(?:a|an|the) )"
    r"| (?:which|that|is|for|to|as|in|with|on|by)\b| ?\.(?: |$)|$)"
)
# Singular only: "we propose CD algorithms for ..." is a family of methods, not a name.
_NAME_THEN_TYPE = re.compile(
    rf"(?P<name>{_TOKEN}(?: {_TOKEN}){{0,2}}) (?:[a-z][\w\-]{{0,20}} )?{TYPES}(?<!s)\b"
)
_TYPE_THEN_NAME = re.compile(
    rf"(?:[\w\-]{{1,30}}+,? ){{0,6}}?(?P<type>{TYPES}),? (?P<name>{_NAME})"
    r"(?= ?[,(:]| ?\.(?: |$)| (?:which|that|for|to|as|in|with|on|by)\b|$)"
)
# "our solution, Layerwise Proximal Replay (LPR), balances", "our algorithm, ACE: Off-policy ..."
_OUR_NAME = re.compile(
    rf"(?:[\w\-]{{1,30}}+ ){{0,3}}?{TYPES}, (?P<name>{_NAME})(?= \([^()]{{1,20}}\)[ ,]|,|:)"
)
# Words that may stand before a name without making it part of a longer term.
_TERM_OPENERS = frozenset(
    ["the", "a", "an", "our", "this", "its", "of", "with", "and", "by", "in", "on", "to", "for",
     "from", "that", "use", "using", "via", "apply", "applying", "train", "evaluate"]
)  # fmt: skip
_PART_NOUNS = ("block", "module", "layer", "unit", "component")
_USED_FOR = (
    "Leveraging ", "Using ", "With ", "Based on ", "Building on ", "Trained on ",
    "leveraging ", "using ", "with ", "based on ", "building on ", "trained on ",
)  # fmt: skip
# "approach - ", "method – ": a type noun, then a dash before the name.
_TYPE_DASH = re.compile(rf"(?:[a-z][\w\-]{{0,30}}+ ){{0,3}}?{TYPES} (?:--?|–|—) (?=[A-Z])")
_TYPE_AFTER = re.compile(rf" {TYPES}\b(?!-)")
# "novel evolution-strategies based method": lowercase words ending in an artefact noun.
_NOUN_PHRASE_TYPE = re.compile(
    rf"(?:(?!(?:using|with|for|of|by|via|to|on|in|from|and|or)\b)[a-z][\w\-]{{0,30}} ){{0,6}}"
    rf"{TYPES}"
)
# "triadic-OCD": a lowercase word of three letters or more, a hyphen, then capitals or digits.
_LOWER_HEAD_NAME = re.compile(r"[a-z]{3,20}-[A-Z][A-Z0-9]{1,10}")
_INNER_CAPITAL = re.compile(r"[a-z][A-Z]")
_NAME_OF = re.compile(rf"name of (?:our|the|this) (?:proposed |new )?{TYPES}(?::| is) ")
_OUR_QUOTED = re.compile(rf"(?:[a-z][\w\-]{{0,30}}+ ){{0,3}}?{TYPES} (?=['\"“‘][A-Z])")
_ADJECTIVE_THEN_COINED = re.compile(
    rf"[a-z][a-z\-]{{2,20}} (?P<name>{_TOKEN})(?= (?:in|for|that|which|to|with|on)\b| ?[,(])"
)
_TASK_DESCRIPTION = re.compile(r": an? (?:new |novel |challenging )?(?:task|problem|setting)\b")
_OUR_FILLERS = ("novel ", "new ", "proposed ")
_OUR_COINED = re.compile(rf"(?P<name>{_TOKEN}) {TYPES}(?<!s)\b")
_OPENING_QUOTES = "\"'“‘"
_CLOSING_QUOTES = ('"', "'", "”", "’")
_RESULT_WORDS = ("resulting ", "resulted ", "proposed ")
_TAIL_WORDS = frozenset(("for", "as", "via", "with"))
# A plain capitalised phrase counts as a name only when an appositive follows ("Decrypto, a
# game-based benchmark"); "Relational Graph Recognition, where ..." defines a task, not a method.
_WEAK_FOLLOW = re.compile(r" ?(?:a|an|the|our|which|that|called|named|dubbed)\b")
_APPOSITIVE_TYPE = re.compile(rf"(?:a|an) (?:[\w\-]{{1,30}}+,? ){{0,5}}?{TYPES}\b")
_MODIFIER_AFTER = re.compile(
    r"-| (?!(?:which|that|to|for|with|in|on|as|by|and|or|is|are|was|can|has|of|from|via"
    r"|using|based on|through|at|we|where|whose|while)\b)[a-z]"
)
_CONTINUATION = re.compile(r"(?: (?:[A-Z][\w\-]{0,30})){1,3}(?=[ ,.;:]|$)")
_PHRASE_BEFORE_CALL = re.compile(r"(?:a|an|the|our) [^.;:()]{1,80}")
# An appositive that describes someone else's artefact: "MMLU, a popular benchmark".
_KNOWN = re.compile(
    r"popular|widely|well[- ](?:known|tested|studied|established)|standard|existing|common"
    r"|classic|prominent|state-of-the-art|recent|representative|leading|famous|de facto"
    r"|established|canonical|prevalent"
)


def best_name(text: str) -> Candidate | None:
    """The name the authors introduce: every plausible candidate is scored, the best one wins."""
    lower = text.lower()
    if len(lower) != len(text):  # a few characters lowercase to two; offsets must line up
        lower = text
    candidates: list[Candidate | None] = []
    ours: list[int] = []  # where the authors speak of their own work
    for position in occurrences(lower, "we "):
        if not lower[position - 1 : position].isalnum():
            ours.append(position)
            candidates.append(_after_subject(text, position, position + 3))
    if " wep" in lower:
        # "wepropose SEA: ...": text from PDFs loses spaces at line breaks (one scan: each
        # costs ~1 % of the labelling, so "weintroduce", never seen, is not looked for).
        for glued in (" wepropose ", " wepresent "):
            for position in occurrences(lower, glued):
                ours.append(position + 1)
                candidates.append(_after_subject(text, position + 1, position + 3))
    if " us to " in lower:
        # "These observations motivate us to propose an Alternating Denoising ... (ADDP)"
        for position in occurrences(lower, " us to "):
            ours.append(position + 1)
            candidates.append(_after_subject(text, position + 1, position + 7))
    for position in occurrences(lower, "this "):
        if (
            lower.startswith(_PAPER_WORDS, position + 5)
            and not lower[position - 1 : position].isalnum()
        ):
            ours.append(position)
            end = lower.find(" ", position + 5) + 1
            candidates.append(_after_subject(text, position, end))
    for word in _RESULT_WORDS:
        if word not in lower:  # most abstracts have none: one C scan, no list, no loop
            continue
        # "The resulting model, Tripod, achieves", "the proposed framework, X,"
        for position in occurrences(lower, word):
            if lower[position - 1 : position].isalnum():
                continue
            our_name = _OUR_NAME.match(text, position + len(word))
            if our_name:
                name = our_name.group("name")
                end = our_name.end()
                candidates.append(scored(text, name, "", our_name.start("name"), end, base=4))
                continue
            coined = _TOKEN_WORD.match(text, position + len(word))
            if coined and _proposed_name(text, coined.group()):
                # "The proposed Q-Align achieves ...": a coined word the abstract uses again.
                end = coined.end()
                spelled = _capitalised_spelling(text, coined.group())
                candidates.append(scored(text, spelled, "", coined.start(), end, base=3))
    for position in occurrences(lower, "our "):
        if not lower[position - 1 : position].isalnum():
            ours.append(position)
            our_name = _OUR_NAME.match(text, position + 4)
            if our_name:
                name = our_name.group("name")
                end = our_name.end()
                candidates.append(scored(text, name, "", our_name.start("name"), end, base=4))
            elif text[position + 4 : position + 5].isupper() or _our_filler_then_capital(
                text, position + 4
            ):
                # "our novel Geometry-Calibrated DRO (GCDRO)": filler words may come first.
                filler = _FILLER.match(text, position + 4)
                named_at = filler.end() if filler else position + 4
                definition = (
                    _ACRONYM_DEF.match(text, named_at)
                    if "(" in text[position : position + 200]
                    else None
                )
                if definition and all_capitalised(definition.group("exp")):
                    # "Our Dynamics Stable Learning by Invariant Measure (DySLIM) objective"
                    candidates.append(_from_definition(text, definition, base=4))
                else:
                    candidates.append(_our_coined(text, position + 4))
            elif any(mark in text[position + 4 : position + 70] for mark in _OPENING_QUOTES):
                # "Our novel method 'Expand-and-Cluster’ can identify ...": quotes mark the name.
                typed = _OUR_QUOTED.match(text, position + 4)
                if typed:
                    candidates.append(_quoted_name(text, typed.end(), base=4))
    if ours:
        candidates.extend(_named_inside(text, lower, ours))
    found = [candidate for candidate in candidates if candidate is not None]
    if not found:
        return None
    if len(found) > 1 and ", we " in text:
        found = [_demoted_if_used(text, candidate) for candidate in found]
    if len(found) > 1:
        found = [_demoted_if_task(candidate) for candidate in found]
    best = max(found, key=lambda candidate: (candidate.score, -candidate.start))
    suffix = "-" + best.name
    for candidate in found:
        if candidate.score >= best.score - 1 and candidate.name.endswith(suffix):
            # "the R-EDL (Relaxed-EDL) method" builds on "Evidential Deep Learning (EDL)".
            return candidate
    if " " in best.name and not best.expansion and not is_strong(best.name):
        return _coined_over_plain(found, best)
    return _extended_in_use(text, best)


def _extended_in_use(text: str, best: Candidate) -> Candidate:
    """'we propose Learned Proportions (LeaP) and LeaPformers ... LeaPformer achieves': a word
    built on the name that the abstract goes on using, more than the name, is what it is called."""
    name = best.name
    if " " in name or len(name) < 3:
        return best
    words: dict[str, int] = {}
    at = text.find(name)
    while at >= 0:
        # Words are at most 30 characters either side: a hostile run of letters stays linear.
        start = at
        while start and text[start - 1].isalnum() and at - start < 30:
            start -= 1
        end = at + len(name)
        while end < len(text) and text[end].isalnum() and end - at < 30 + len(name):
            end += 1
        word = text[start:end]
        words[word] = words.get(word, 0) + 1
        at = text.find(name, at + len(name))
    used = words.pop(name, 0) + words.pop(name + "s", 0)
    # "LeaPformers" is the plural of "LeaPformer".
    for word in list(words):
        if word.endswith("s") and word[:-1] in words:
            words[word[:-1]] += words.pop(word)
    extension, count = max(words.items(), key=lambda item: item[1], default=("", 0))
    if count >= 3 and count > used and is_coined_word(extension):
        return dataclasses.replace(best, name=extension, expansion="", description="")
    return best


def _our_filler_then_capital(text: str, start: int) -> bool:
    """'our novel Geometry-Calibrated ...', 'our proposed Dual ...'."""
    if not text.startswith(_OUR_FILLERS, start):
        return False
    filler = _FILLER.match(text, start)
    return filler is not None and text[filler.end() : filler.end() + 1].isupper()


def _coined_over_plain(found: list[Candidate], best: Candidate) -> Candidate:
    """'we introduce the Markov Bridge Model, a generative framework ... and RetroBridge, a
    template-free approach': plain title-case words name a paper less surely than a coined
    word the abstract defines with an appositive, so the coined one wins within one point."""
    coined = [
        candidate
        for candidate in found
        if candidate.score >= best.score - 1
        and candidate.description.startswith(": ")
        and is_strong(candidate.name)
    ]
    return max(coined, key=lambda candidate: (candidate.score, -candidate.start), default=best)


def _demoted_if_task(candidate: Candidate) -> Candidate:
    """'we introduce a new task, Instruction-oriented Object Detection (IOD) ... we propose a
    model called Ins-DetCLIP': a paper that sets a task and solves it is called by its solver."""
    if _TASK_DESCRIPTION.match(candidate.description):
        return dataclasses.replace(candidate, score=candidate.score - 2)
    return candidate


def _demoted_if_used(text: str, candidate: Candidate) -> Candidate:
    """'Leveraging ECInstruct, we develop eCeLLM': what the authors build with is not what
    they build; it loses a point to the other names."""
    name = candidate.name
    at = text.find(name + ", we ")
    while at > 0:
        if text[max(at - 16, 0) : at].endswith(_USED_FOR):
            return dataclasses.replace(candidate, score=candidate.score - 1)
        at = text.find(name + ", we ", at + 1)
    return candidate


def _named_inside(text: str, lower: str, ours: list[int]) -> list[Candidate | None]:
    """'called X', 'X, a framework ...' inside the authors' own sentences."""
    candidates: list[Candidate | None] = []
    for stem in _CALL_STEMS:
        if stem not in lower:  # the common case: one C scan, no list, no loop
            continue
        for position in occurrences(lower, stem):
            if lower[position - 1 : position].isalnum():  # "rename", "surnamed"
                continue
            words = _CALL_WORDS_BY_STEM[stem]
            word = next((word for word in words if lower.startswith(word, position)), "")
            if not word and stem == "name" and lower.startswith("name of ", position):
                # "hence the name of our method: Win-Win": the name is given, not introduced
                # by a verb.
                name_of = _NAME_OF.match(lower, position)
                word = name_of.group() if name_of else ""
            if word:
                # "The resulting approach, referred to as BRAIn": naming is introducing, even
                # outside the authors' own sentences, but those come first.
                base = 5 if _is_ours(lower, ours, position) else 4
                after = position + len(word)
                candidates.append(_name_at(text, after, base=base, verb_start=position, named=True))
    for position in occurrences(lower, ", a"):
        if (
            lower.startswith((" ", "n "), position + 3)
            and _is_ours(lower, ours, position)
            and _APPOSITIVE_TYPE.match(text, position + 2)
        ):
            candidates.append(_appositive(text, position))
    return candidates


def _is_ours(lower: str, ours: list[int], position: int) -> bool:
    """Whether the sentence around `position` holds one of the authors' 'we', 'our' ..."""
    start, end = _sentence_around(lower, position)
    return any(start <= subject < end for subject in ours)


def _after_subject(text: str, subject: int, end: int) -> Candidate | None:
    """The name after 'we propose', 'this paper introduces', 'we call this method' ..."""
    verb = _VERB.match(text, end)
    if verb is None:
        # "we close this gap and introduce LASER": the second verb of the same clause.
        stop = text.find(". ", end, end + 120)
        stop = stop if stop >= 0 else end + 120
        joined = text.find(" and ", end, stop)
        verb = _VERB.match(text, joined + 5) if joined >= 0 else None
        if verb is None:
            # "we address this gap by introducing a novel task sampler (DATS)"
            # Not "by formulating a Neural Architecture Search (NAS) problem".
            joined = text.find(" by ", end, stop)
            by_gerund = joined >= 0 and text.startswith(_BY_GERUNDS, joined + 4)
            verb = _VERB.match(text, joined + 4) if by_gerund else None
        if verb is None:
            # "This work pioneers a paradigm shift, unveiling Social Reward - an ...": a
            # participle after a comma introduces as a second verb does.
            joined = text.find(", unveiling ", end, stop)
            joined = joined if joined >= 0 else text.find(", introducing ", end, stop)
            verb = _VERB.match(text, joined + 2) if joined >= 0 else None
        if verb is None or verb.group("intro") is None:
            return None
    base = 4 if _ALSO.search(verb.group("adverbs")) else 5  # "we also propose" is secondary
    intro = verb.group("intro")
    named = intro is None
    # "We present QLoRA, ...": the paper that introduced a name the field now uses.
    known_ok = intro in _FIRST_USE
    return _name_at(text, verb.end(), base=base, verb_start=subject, named=named, known_ok=known_ok)


def _sentence_around(lower: str, position: int) -> tuple[int, int]:
    start = lower.rfind(". ", max(position - 300, 0), position)
    start = start + 2 if start >= 0 else max(position - 300, 0)
    end = lower.find(". ", position, position + 300)
    return start, end if end >= 0 else min(position + 300, len(lower))


def _name_at(
    text: str,
    position: int,
    *,
    base: int,
    verb_start: int,
    named: bool = False,
    known_ok: bool = False,
) -> Candidate | None:
    """The name right after an introducing verb or a 'called'."""
    if position >= len(text):
        return None
    filler = _FILLER.match(text, position)
    phrase_start = position
    position = filler.end() if filler else position
    if text[position : position + 1] in _OPENING_QUOTES:
        # 'called "In-Context Unlearning."', "method 'Expand-and-Cluster’": quotes mark it.
        quoted = _quoted_name(text, position, base=base)
        if quoted:
            return quoted
    has_parenthesis = text.find("(", position, position + 420) >= 0
    dashed = _TYPE_DASH.match(text, position) if has_parenthesis else None
    if dashed:
        # "a new approach - Separated Model-based Offline Policy Optimization (SeMOPO) -": the
        # dash sets the long form off from the type noun as "called" would.
        definition = _ACRONYM_DEF.match(text, dashed.end())
        found = _from_definition(text, definition, base=base) if definition else None
        if found:
            return found
    definition = _ACRONYM_DEF.match(text, position) if has_parenthesis else None
    if definition:
        found = _from_definition(text, definition, base=base)
        if found:
            return found
    elif has_parenthesis and text[position : position + 1].isupper():
        found = _spaced_definition(text, position, base=base)
        if found:
            return found
    found = _direct_name(
        text, position, base=base, verb_start=verb_start, named=named, known_ok=known_ok
    )
    if found:
        return found
    after_type = _TYPE_THEN_NAME.match(text, position)
    if after_type and (
        is_strong(after_type.group("name"))
        or _spelled_by_paren(text, after_type)
        or _recurring_word(text, after_type.group("name"))
        or _between_commas(text, after_type)
        or _plain_word_then_clause(text, after_type)
    ):
        # "an expansive benchmark suite SciBench for LLMs", "a graph neural network, Graph2Tac,"
        end = after_type.end("name")
        noun = text[phrase_start : after_type.end("type")].rstrip(",")
        tail = tail_after(text, end, " ")
        # "the benchmark Pinocchio." alone says less than the topic does.
        described = ": " + noun + tail if tail or noun.count(" ") > 1 else ""
        name = after_type.group("name")
        return scored(
            text,
            name,
            "",
            after_type.start("name"),
            end,
            base=base,
            typed=True,
            description=described,
        )
    typed = _NAME_THEN_TYPE.match(text, position)
    strong = typed is not None and is_strong(typed.group("name"))
    if typed and (strong or _title_case_before_type(text, typed)):
        # "the ctfIDu+ algorithm for identifying ...": the label reads on from the name. Without
        # a tail ("the DIL method.") the topic says more than the type word.
        tail = tail_after(text, typed.end(), " ")
        described = " " + text[typed.end("name") + 1 : typed.end()] + tail if tail else ""
        name = typed.group("name")
        return scored(
            text,
            name,
            "",
            typed.start(),
            typed.end(),
            # "the Connect Later framework": plain words name it less surely than a coined one.
            base=base - 1 if strong else base - 2,
            # "we design a HelmDynamics block": a part of the method, not what names the paper
            typed=not text.endswith(_PART_NOUNS, typed.start(), typed.end()),
            description=described,
        )
    qualified = _ADJECTIVE_THEN_COINED.match(text, position)
    if qualified and _mixed_case(qualified.group("name")):
        # "we design a neural LSEnet in the Lorentz model": one plain adjective, then a word
        # coined in mixed case, which field terms (set in capitals) are not.
        name_start = qualified.start("name")
        return scored(text, qualified.group("name"), "", name_start, qualified.end(), base=base - 1)
    coined = _TOKEN_WORD.match(text, position)
    if coined and is_coined_word(coined.group()) and text.count(coined.group()) >= 2:
        # "this paper introduces ZeRO++ composing of ...": a coined word the paper keeps using.
        return scored(text, coined.group(), "", position, coined.end(), base=base - 1)
    return None


def _mixed_case(word: str) -> bool:
    """'LSEnet', 'CLIPZyme', 'GraphMAE' (not 'MLP', 'Transformer', 'k-NN')."""
    return (
        is_coined_word(word)
        and sum(char.isupper() for char in word) >= 2
        and sum(char.islower() for char in word) >= 2
    )


def _quoted_name(text: str, quote: int, *, base: int) -> Candidate | None:
    """The capitalised words between quotes: at most five words, every one capitalised."""
    closing = -1
    for mark in _CLOSING_QUOTES:
        found = text.find(mark, quote + 2, quote + 62)
        if found >= 0 and (closing < 0 or found < closing):
            closing = found
    if closing < 0:
        return None
    name = text[quote + 1 : closing].strip(" .,")
    if not name or name.count(" ") > 4 or not all_capitalised(name) or "  " in name:
        return None
    return scored(text, name, "", quote + 1, closing + 1, base=base)


def _proposed_name(text: str, word: str) -> bool:
    """'Q-Align' after 'the proposed', used again; not 'MI', 'CSs' or 'k-NN'.

    'triadic-OCD' (a lowercase word, a hyphen, capitals) counts too, used again in either case.
    """
    plural_acronym = word.endswith("s") and word[:-1].isupper()
    if _LOWER_HEAD_NAME.fullmatch(word):
        return text.count(word[1:]) >= 2
    return (
        len(word) >= 3
        and word[0].isupper()
        and not plural_acronym
        and is_coined_word(word)
        and text.count(word) >= 2
    )


def _capitalised_spelling(text: str, word: str) -> str:
    """'Triadic-OCD' for 'triadic-OCD' when the abstract also spells it with a capital."""
    if word[:1].islower():
        capitalised = word[0].upper() + word[1:]
        if capitalised in text:
            return capitalised
    return word


def _our_coined(text: str, start: int) -> Candidate | None:
    """'our RAPTOR model retrieves ...': a coined word the abstract uses again, then the type."""
    typed = _OUR_COINED.match(text, start)
    if typed is None:
        return None
    name = typed.group("name")
    if not is_strong(name) or SHORT_ACRONYM.fullmatch(name) or text.count(name) < 2:
        # "our NAS method", "our BC layer-aware attacks": three capitals are field terms as often.
        return None
    return scored(text, name, "", start, typed.end(), base=3, typed=True)


def _title_case_before_type(text: str, match: re.Match[str]) -> bool:
    """'the Connect Later framework', 'Poisoned Forgery Face framework': two or three
    capitalised words right before the type noun name it."""
    name = match.group("name")
    words = name.split(" ")
    if not (
        len(words) > 1
        and all(word[:1].isupper() and word[1:2].islower() for word in words)
        and _TYPE_AFTER.match(text, match.end("name")) is not None
    ):
        return False
    # Not the tail of a longer term elsewhere: "Masked Image Modeling", "Markov chain Monte Carlo".
    position = text.find(name)
    while position >= 0:
        if position != match.start("name"):
            before = text[max(position - 12, 0) : position]
            word = before[:-1].rpartition(" ")[2]
            if before[-1:] == " " and word[-1:].isalnum() and word.lower() not in _TERM_OPENERS:
                return False
        position = text.find(name, position + 1)
    return True


def _between_commas(text: str, match: re.Match[str]) -> bool:
    """'a lightweight framework, Prompt Risk Control, for selecting ...': a title-case phrase
    set off by commas right after the type noun names it."""
    name = match.group("name")
    return (
        (" " in name or name[1:].islower())
        and text.startswith(", ", match.end("type"))
        and text.startswith(", ", match.end("name"))
        and all_capitalised(name)
    )


def _plain_word_then_clause(text: str, match: re.Match[str]) -> bool:
    """'we propose a new attack Chameleon that leverages ...': one capitalised word right
    after the type noun, then the clause that says what it does."""
    name = match.group("name")
    return (
        name[1:].islower()
        and len(name) >= 4
        and name not in PROPER_WORDS  # "the loss Hessian that ..."
        and text.startswith(" ", match.end("type"))
        and text.startswith((" that ", " which "), match.end("name"))
    )


def _recurring_word(text: str, name: str) -> bool:
    """'a GPT based model, Duolando, which': one capitalised word the abstract uses again."""
    return " " not in name and name[:1].isupper() and text.count(name) >= 2


def _spelled_by_paren(text: str, match: re.Match[str]) -> bool:
    """'a novel framework, Online Auxiliary Knowledge (OAK)': the acronym makes it a name."""
    paren = PAREN_AFTER.match(text, match.end("name"))
    acronym = paren.group("paren") if paren else ""
    return is_acronym(acronym) and acronym_start(acronym, match.group("name")) == 0


def _direct_name(
    text: str, position: int, *, base: int, verb_start: int, named: bool, known_ok: bool = False
) -> Candidate | None:
    """'DRIFT (Decoupled ...)', 'PIPER: Primitive-Informed ...', 'Decrypto, a benchmark ...'."""
    direct = _DIRECT_NAME.match(text, position)
    if direct is None:
        return None
    name = direct.group("name")
    after = direct.group("after").strip()
    end = direct.end("name")
    expansion = ""
    if after == "(":
        paren = PAREN_AFTER.match(text, end)
        if paren and acronym_start(name, paren.group("paren")) == 0:
            expansion = paren.group("paren")
            end = paren.end()
    elif after in {":", ",", "-", "–", "—"}:
        # "ERP, Entropy-Reinforced Planning for Transformer Decoding, which ..." and
        # "LASER: LineAr CompreSsion in WirEless DistRibuted Optimization."
        stop = _segment_end(text, direct.end())
        if after == ":" and len(name) < 3:
            return None  # "Dr. Strategy" broken at its period
        segment = text[direct.end() : stop].strip()
        # Cheap shape tests first: spelling out the acronym walks the segment letter by letter.
        if (
            segment
            and segment.count(" ") < 12
            and all_capitalised(segment)
            and (after != "," or acronym_start(name, segment) == 0)
        ):
            expansion = segment
            end = stop
    weak_ok = named or after in {"(", ":", "-", "–", "—"}
    weak_ok = weak_ok or (after == "," and _WEAK_FOLLOW.match(text, direct.end()) is not None)
    described = _called_description(text, verb_start, end) if named else ""
    if not described and after in _TAIL_WORDS:
        # "Mol-AE for molecular representation learning", "DiffDA as a denoising diffusion model"
        tail = text[direct.end("name") : clause_end(text, direct.end())]
        described = "" if ANAPHORA.search(tail) else tail
    return scored(
        text,
        name,
        expansion,
        direct.start("name"),
        end,
        base=base,
        weak_ok=weak_ok,
        description=described,
        # ... right after the verb and defined there: "We present QLoRA, an efficient ...".
        known_ok=known_ok
        and direct.start("name") == position
        and weak_ok
        and after != "-"
        and not _KNOWN.search(text, direct.end(), direct.end() + 40),
    )


def _segment_end(text: str, start: int) -> int:
    ends = [text.find(stop, start, start + 150) for stop in (", ", ". ", "; ", " (", " - ")]
    found = [end for end in ends if end >= 0]
    return min(found) if found else min(len(text), start + 150)


def _called_description(text: str, call_start: int, name_end: int) -> str:
    """'a nonparametric statistical framework, called DMLRank, for comparing ...' -> ': a ...'."""
    for verb in reversed(_intro_verb_ends(text, max(call_start - 120, 0), call_start)):
        phrase = text[verb:call_start].strip(" ,")
        if _PHRASE_BEFORE_CALL.fullmatch(phrase):
            return ": " + phrase + tail_after(text, name_end, " ")
    return ""


def _intro_verb_ends(text: str, start: int, end: int) -> list[int]:
    """Ends of introducing verbs ('propose ', 'introduces ') between start and end."""
    ends: list[int] = []
    for stem in ("propos", "introduc", "present", "develop", "design", "construct"):
        position = text.find(stem, start, end)
        while position >= 0:
            space = text.find(" ", position, end)
            if space >= 0 and not text[position - 1 : position].isalnum():
                ends.append(space + 1)
            position = text.find(stem, position + 1, end)
    return sorted(ends)


def _from_definition(text: str, match: re.Match[str], *, base: int) -> Candidate | None:
    """'Long Input Fine-Tuning (LIFT)' right after the verb: the acronym names the contribution."""
    acronym = match.group("acr")
    words = match.group("exp")
    if not is_acronym(acronym) and not _word_acronym(acronym, words):
        return None
    start = acronym_start(acronym, words)
    # The long form must begin right after the verb: "a framework using a Denoising Masked
    # AutoEncoder (DMAE)" names a part. A title-case phrase is accepted whole even when the
    # letters spell only its tail ("Switchable Sparse-Dense Learning (SSD)") or do not spell out
    # at all ("Side-by-Side (SxS)").
    described = ""
    first = _first_capitalised_word(words)
    if start != 0 and words.count(" ", 0, first) <= 1 and _capitals_spell(acronym, words):
        # "an acoustic Music undERstanding model with ... Training (MERT)": the capitals the
        # authors set in bold spell the acronym; the long form starts at the first of them,
        # one word after the verb at most ("a framework using a Denoising Masked AutoEncoder
        # (DMAE)" names a part).
        words = words[first:]
    elif start != 0 and not (all_capitalised(words) and words.count(" ") < 8):
        # "a novel evolution-strategies based method (EvIL)": a plain noun phrase that ends in
        # what is introduced describes the name; "a framework using a ... (DMAE)" names a part.
        if not (_NOUN_PHRASE_TYPE.fullmatch(words) and is_strong(acronym)):
            return None
        # A lone type noun ("a new architecture (Mamba-2)") says less than the topic.
        described, words = (": " + words if " " in words else ""), ""
    elif " " not in words and is_coined_word(words):
        # "Cell2Sentence (C2S)": a coined word is the name its acronym abbreviates.
        acronym, words = words, ""
    expansion = words
    end = match.end()
    continuation = _CONTINUATION.match(text, end) if expansion else None
    if continuation:
        # "Side-by-Side (SxS) Interleaved Reasoning": the name goes on after the acronym.
        expansion += continuation.group()
        end = continuation.end()
    elif _MODIFIER_AFTER.match(text, end) and not _TYPE_AFTER.match(text, end):
        # "linear program (LP)-based policies", "imitation learning (IL) algorithm, PAIL":
        # the acronym qualifies the thing introduced rather than naming it; "(RCOT) approach"
        # names it.
        return None
    return scored(text, acronym, expansion, match.start(), end, base=base, description=described)


def _spaced_definition(text: str, position: int, *, base: int) -> Candidate | None:
    """'Safe Reinforcement Learning from Human Feedback (Safe RLHF)': the name is the bracket."""
    spaced = _SPACED_ACRONYM_DEF.match(text, position)
    if spaced is None:
        return None
    acronym = spaced.group("acr")
    rest = spaced.group("rest")
    # The acronym's letters in order, the first one the rest's initial ("PPO" of "Proximal
    # Policy Optimization": the spelling may start later, at "Policy", and still be it).
    if (
        sum(char.isupper() for char in acronym) < 2
        or acronym[0].lower() != rest[0].lower()
        or acronym_start(acronym, rest) < 0
    ):
        return None
    head = spaced.group("head")
    name, expansion = f"{head} {acronym}", f"{head} {rest}"
    return scored(text, name, expansion, spaced.start(), spaced.end(), base=base)


def _word_acronym(acronym: str, words: str) -> bool:
    """'Normalizing the soft-prompt vectors of vision-language models (Nemesis)', 'Time Series
    Transformer (Timer)': a capitalised word that spells its long form from the first word on."""
    return (
        4 <= len(acronym) <= 12
        and acronym[0].isupper()
        and acronym[1:].isalpha()
        and acronym[1:].islower()
        and acronym.lower() not in words.lower()
        and acronym_start(acronym, words) == 0
    )


def _capitals_spell(acronym: str, words: str) -> bool:
    """Whether the capitals of `words`, in order, are the letters of an all-capital acronym, and
    some are inside words ("undERstanding"): set so on purpose, not a title-case field term
    ("Test Time Adaptation (TTA)")."""
    letters = [char for char in acronym if char.isalnum()]
    return (
        len(letters) >= 3
        and acronym.isupper()
        and _INNER_CAPITAL.search(words) is not None
        and [char for char in words if char.isupper()] == letters
    )


def _first_capitalised_word(words: str) -> int:
    """Where the first word holding a capital starts."""
    for index, char in enumerate(words):
        if char.isupper():
            return words.rfind(" ", 0, index) + 1
    return 0


def _appositive(text: str, comma: int) -> Candidate | None:
    """'X, a framework for ...' or 'Long Form (X), an automated framework ...'."""
    head = text[max(comma - 200, 0) : comma]
    paren = ""
    if head.endswith(")"):
        opening = head.rfind("(")
        if opening < 0:
            return None
        paren = head[opening + 1 : -1]
        head = head[:opening].rstrip()
    if _KNOWN.search(text, comma, comma + 40):
        return None
    words = head.split(" ")[-12:]
    name_words: list[str] = []
    for word in reversed(words[-6:]):
        if not _TOKEN_WORD.fullmatch(word):
            break
        name_words.append(word)
    name = strip_leading_noise(" ".join(reversed(name_words)))
    start = comma - len(head)
    if paren and is_acronym(paren):
        # "the Agentic LInguistic Gossip Network (ALIGN), an automated framework"
        long_form = " ".join(words)
        first = acronym_start(paren, long_form)
        if first < 0:
            return None
        if " " not in long_form[first:] and is_coined_word(long_form[first:]):
            # "Gene2Text (G2T), a method": the coined word is the name its acronym abbreviates.
            return scored(text, long_form[first:], "", start, comma, base=4, typed=True)
        return scored(text, paren, long_form[first:], start, comma, base=4, typed=True)
    if not name:
        return None
    if paren:
        if acronym_start(name, paren) != 0:
            return None
        return scored(text, name, paren, start, comma, base=4, typed=True)
    if not is_strong(name):
        return None
    return scored(text, name, "", start, comma, base=3, typed=True)
