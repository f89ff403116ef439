"""A candidate name for a label, its score, and the description that follows it in the text.

`scored` turns a name found by `label_names` into a `Candidate`: it swaps in an acronym that
follows a long form, rejects generic or adjectival names, reads the description after the name,
and scores how surely the abstract introduces it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from retrieval.labels.words import (
    GENERIC,
    KNOWN_NAMES,
    TYPES,
    acronym_start,
    is_acronym,
    is_strong,
    strip_leading_noise,
    title_case,
)

PAREN_AFTER = re.compile(r" ?\((?P<paren>[^()]{1,120})\)")
_DESCRIPTION_HEAD = re.compile(
    r"(?:, |: | - | — | – )(?P<appositive>(?=(?:a|an|the|our) ))|,? (?=(?:which|that) )"
)
_TAIL_HEAD = re.compile(r",? (?=(?:for|to|that|which|with|in|on|of|based on|using|via) )")
_TITLE_RUN = re.compile(r"(?:a|an|the) (?P<words>(?:[A-Z][\w\-]{0,30} ){0,7}[A-Z][\w\-]{0,30})\b")
_TYPED_DESCRIPTION = re.compile(rf": (?:a|an|the|our) (?:[\w\-]{{1,30}}+,? ){{0,5}}?{TYPES}\b")
_DATA_DESCRIPTION = re.compile(
    r": (?:a|an|the|our) (?:[\w\-]{1,30}+,? ){0,6}?(?:data ?set|benchmark|corpus|suite|collection)"
)
_NOT_ARTIFACT = re.compile(
    r"\b(?:hypothes[ie]s|problem|phenomen(?:on|a)|effect|dilemma|paradox|tax|law|conjecture"
    r"|principle|theorem|lemma|assumption|property|condition|regime|bias|gap|fallacy|trap"
    r"|curse|collapse|illusion|puzzle)(?: (?:of|for|in) [\w\- ]{1,60})?$",
    re.IGNORECASE,
)
# "Tilt and Average", "Project and Probe": one name of two plain words.
_TWO_WORDS_JOINED = re.compile(r"[A-Z][a-z]{1,20} and [A-Z][a-z]{1,20}")
_GLUED_CALL = re.compile(r"(?:called|named|dubbed|termed|coined)(?=[A-Z])")
# "IO-aware algorithms", "LLM-based agents": a compound adjective, not a name.
_ADJECTIVAL = re.compile(
    r"-(?:aware|based|like|style|free|level|specific|driven|guided|agnostic|conditioned|centric"
    r"|oriented|wise|scale|type|efficient|friendly|invariant|equivariant|dependent|independent"
    r"|only|robust|powered|enhanced|generated|augmented|assisted|informed|induced|related)$",
    re.IGNORECASE,
)


@dataclass(frozen=True, slots=True)
class Candidate:
    """A name the abstract may introduce; the highest score wins, then the earliest."""

    name: str
    expansion: str
    description: str  # with its joiner: ": a framework ...", ", which ...", " algorithm for ..."
    score: int
    start: int


def scored(
    text: str,
    name: str,
    expansion: str,
    start: int,
    end: int,
    *,
    base: int,
    weak_ok: bool = True,
    typed: bool = False,
    description: str = "",
    known_ok: bool = False,
) -> Candidate | None:
    """The name found between `start` and `end` as a scored `Candidate`, or None if implausible."""
    name = strip_leading_noise(name)
    glued = _GLUED_CALL.match(name)
    if glued:
        # "an approach calledNeuroBack": lines joined without a space glue the naming word on.
        name = name[glued.end() :]
    if not expansion and " " in name:
        long_form, _, last = name.rpartition(" ")
        if is_acronym(last) and acronym_start(last, long_form) == 0:
            # "Variational Inference TS VITS": the long form, then its acronym, no brackets.
            name, expansion = last, long_form
    if not expansion and " " in name:
        # "Binarized Spectral-Redistribution Network (BiSRNet)": the acronym is the name.
        paren = PAREN_AFTER.match(text, end)
        acronym = paren.group("paren").strip() if paren else ""
        if paren and is_acronym(acronym) and acronym_start(acronym, name) >= 0:
            if text.startswith("-", paren.end()):
                return None  # "a Monte Carlo Tree Search (MCTS)-based method": a part
            name, expansion, end = acronym, name, paren.end()
    if len(name) < 2 or len(name) > 60 or name in GENERIC or _ADJECTIVAL.search(name):
        return None
    if " and " in name and not _TWO_WORDS_JOINED.fullmatch(name):
        return None  # "SCGD and SCSC", "Hiera and ViTDet": two names, not one
    if name in KNOWN_NAMES and not known_ok:
        return None  # "HumanEval, HumanEval+": what every paper evaluates on
    recurs = text.count(name) >= 2
    if not (weak_ok or recurs or is_strong(name)):
        return None
    description = description or _description(text, end)
    if not expansion and description.startswith(": "):
        expansion = _expansion_in(name, description[2:])
    score = base
    if expansion and title_case(expansion):
        score += 1
    if recurs:
        score += 1
    if (typed or _TYPED_DESCRIPTION.match(description)) and not _DATA_DESCRIPTION.match(
        description
    ):
        # A typed artefact; data sets and benchmarks come with the method more often than not
        # ("Leveraging ECInstruct, we develop eCeLLM"), and the method names the paper.
        score += 1
    if _NOT_ARTIFACT.search(expansion or name):
        score -= 4
    if text.find(f"({name})", 0, max(start - 1, 0)) >= 0:
        # Defined before the sentence that introduces it: background ("test-time adaptation
        # (TTA) ... we propose a TTA method, called PROGRAM").
        score -= 2
    return Candidate(name, expansion, description, score, start)


def _description(text: str, end: int) -> str:
    """What follows the name, with its joiner: ': a framework that ...' or ', which ...'."""
    if text.startswith(" (", end):  # "MeLoDy (M for music; ...), an LM-guided diffusion model"
        closing = text.find(")", end, end + 150)
        end = closing + 1 if closing > 0 else end
    head = _DESCRIPTION_HEAD.match(text, end)
    if head is None:
        return ""
    joiner = ": " if head.group("appositive") is not None else ", "
    return joiner + text[head.end() : clause_end(text, head.end())]


def tail_after(text: str, end: int, joiner: str) -> str:
    """'for comparing and ranking LLMs ...' after a name, or nothing."""
    head = _TAIL_HEAD.match(text, end)
    if head is None:
        return ""
    return joiner + text[head.end() : clause_end(text, head.end())]


def clause_end(text: str, start: int) -> int:
    """End of the sentence or clause from `start`, looking no further than a label needs."""
    limit = min(len(text), start + 200)
    ends = [text.find(stop, start, limit) for stop in (". ", "; ")]
    found = [end for end in ends if end >= 0]
    if found:
        return min(found)
    return limit - 1 if limit == len(text) and text.endswith(".") else limit


def _expansion_in(name: str, description: str) -> str:
    """'STAR, a Structure Aware Routing that ...' spells the name: use 'Structure Aware Routing'."""
    words = _TITLE_RUN.match(description)
    if not words or not is_acronym(name):
        return ""
    long_form = words.group("words")
    return long_form if acronym_start(name, long_form) == 0 else ""
