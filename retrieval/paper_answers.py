"""Questions about one paper, answered from its abstract by what they ask for (pure).

"what's the main result?", "which datasets?", "how does it work?", "does it have code?", "who
wrote it?": the question's type (`question_type`) picks the abstract's sentences whose role
(`sentence_roles`: background, objective, method, result) and cue words answer that type, plus
the question's own words. When the abstract cannot answer (authors, a limitation it never
states, a data set it never names) the answer says so instead of quoting a random sentence.
A comparison takes, for each paper, what it proposes, what it is evaluated on and its result.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import Enum
from functools import lru_cache

from retrieval import text as analysis
from retrieval.excerpts import Sentence, analyse
from retrieval.models import Excerpt, Span
from retrieval.sentence_roles import Role, sentence_roles


class QuestionType(Enum):
    DATASET = "dataset"
    RESULT = "result"
    METHOD = "method"
    PROBLEM = "problem"
    LIMITATIONS = "limitations"
    CODE = "code"
    AUTHORS = "authors"
    VENUE = "venue"
    OTHER = "other"


def _words(*alternatives: str) -> re.Pattern[str]:
    return re.compile(r"\b(?:" + "|".join(alternatives) + r")\b", re.IGNORECASE)


# Which words ask which type; the first type whose words appear wins (order matters: "code
# for the results" asks for code).
_ASKS: tuple[tuple[QuestionType, re.Pattern[str]], ...] = (
    (
        QuestionType.CODE,
        _words(
            r"code", r"github", r"repos?", r"repositor\w*", r"implementation", r"open[- ]?sourc\w*"
        ),
    ),
    (
        QuestionType.AUTHORS,
        _words(r"who (?:wrote|authored|made|did)", r"authors?", r"written by", r"affiliation\w*"),
    ),
    (
        QuestionType.VENUE,
        _words(r"venue", r"published (?:at|in|where)", r"which (?:conference|venue)", r"what year"),
    ),
    (
        QuestionType.LIMITATIONS,
        _words(r"limitations?", r"weakness\w*", r"drawbacks?", r"downsides?", r"caveats?", r"cons"),
    ),
    (
        QuestionType.DATASET,
        _words(
            r"data ?sets?",
            r"benchmark\w*",
            r"evaluat\w*",
            r"tested",
            r"test(?:ed)? on",
            r"corpus",
            r"corpora",
            r"tasks?",
            r"environments?",
            r"experiments?",
            r"navier[- ]stokes",
            r"imagenet",
        ),
    ),
    (
        QuestionType.RESULT,
        _words(
            r"results?",
            r"findings?",
            r"find",
            r"found",
            r"achiev\w*",
            r"perform\w*",
            r"improv\w*",
            r"better",
            r"faster",
            r"accura\w*",
            r"outperform\w*",
            r"gains?",
            r"speed ?up",
            r"how (?:much|well|good)",
            r"take ?away",
            r"conclu\w*",
            r"sota",
            r"beat",
        ),
    ),
    (
        QuestionType.PROBLEM,
        _words(
            r"problem",
            r"challenge",
            r"motivat\w*",
            r"why",
            r"address\w*",
            r"tackl\w*",
            r"gap",
            r"trying to",
            r"what question",
            r"goal",
            r"aim",
        ),
    ),
    (
        QuestionType.METHOD,
        _words(
            r"how (?:does|do|did)",
            r"method",
            r"approach",
            r"propos\w*",
            r"architecture",
            r"idea",
            r"technique",
            r"algorithm",
            r"contribution\w*",
            r"summar\w*",
            r"tl;?dr",
            r"about",
        ),
    ),
)
# Words that show a sentence answers a type, marked in the answer.
_CUES: Mapping[QuestionType, re.Pattern[str]] = {
    QuestionType.CODE: _words(r"codes?", r"implementation", r"available", r"released"),
    QuestionType.DATASET: re.compile(
        r"\b(?:data ?sets?|benchmarks?|corpus|corpora|suites?|tasks?|environments?"
        r"|(?:evaluat\w*|experiments?|tested|trained) on|[A-Z][A-Za-z]*[A-Z0-9][\w\-]*)\b"
    ),
    QuestionType.RESULT: re.compile(
        r"\d+(?:\.\d+)?\s?(?:\\?%|x\b|×|times\b)|"
        + _words(
            r"outperform\w*",
            r"improv\w*",
            r"achiev\w*",
            r"surpass\w*",
            r"state[- ]of[- ]the[- ]art",
            r"sota",
            r"reduc\w*",
            r"faster",
            r"better",
            r"gains?",
            r"speed\w*",
            r"accura\w*",
            r"consistently",
            r"significantly",
            r"demonstrat\w*",
            r"shows? that",
            r"results?",
        ).pattern,
        re.IGNORECASE,
    ),
    QuestionType.METHOD: _words(
        r"we (?:propose|introduce|present|develop|design)",
        r"propos\w*",
        r"introduc\w*",
        r"framework",
        r"method",
        r"approach",
        r"algorithm",
        r"architecture",
        r"via",
        r"leverag\w*",
        r"based on",
    ),
    QuestionType.PROBLEM: _words(
        r"problem",
        r"challeng\w*",
        r"however",
        r"limit\w*",
        r"fail\w*",
        r"lack\w*",
        r"difficult\w*",
        r"issue",
        r"bottleneck",
        r"costly",
        r"expensive",
        r"remain\w*",
        r"struggl\w*",
    ),
    QuestionType.LIMITATIONS: _words(
        r"limitation\w*",
        r"limited to",
        r"fails? (?:to|when)",
        r"cannot",
        r"restrict\w*",
        r"future work",
        r"drawback\w*",
        r"only (?:works|applies)",
    ),
}
_DATA_WORDS = _words(
    r"data ?sets?", r"benchmarks?", r"corpus", r"corpora", r"(?:evaluat\w*|experiments?|tested) on"
)
_CODE_SAID = re.compile(
    r"\b(?:code|codes|implementation|github|source)\b.{0,40}\b(?:available|released|public)",
    re.IGNORECASE,
)
# The roles that answer each type, and how much a matching role counts.
_ROLES: Mapping[QuestionType, frozenset[Role]] = {
    QuestionType.DATASET: frozenset({Role.METHOD, Role.RESULT}),
    QuestionType.RESULT: frozenset({Role.RESULT}),
    QuestionType.METHOD: frozenset({Role.METHOD, Role.OBJECTIVE}),
    QuestionType.PROBLEM: frozenset({Role.BACKGROUND, Role.OBJECTIVE}),
    QuestionType.LIMITATIONS: frozenset(),
    QuestionType.OTHER: frozenset(),
}
# Types whose answer needs a cue word in the sentence; without one the abstract does not say.
_NEEDS_CUE = frozenset({QuestionType.DATASET, QuestionType.LIMITATIONS})
_NOT_STATED = {
    QuestionType.DATASET: "The abstract names no data set or benchmark.",
    QuestionType.LIMITATIONS: "The abstract states no limitation.",
    QuestionType.OTHER: "The abstract does not say.",
}


@dataclass(frozen=True, slots=True)
class AboutPaper:
    """What a paper's abstract says to one question: answering sentences (answering words
    marked), or `statement` when the abstract (or the list) does not hold the answer."""

    question_type: QuestionType
    sentences: tuple[Excerpt, ...] = ()
    statement: str | None = None


@dataclass(frozen=True, slots=True)
class Aspects:
    """One paper of a comparison: what it proposes, what it is evaluated on, its result."""

    proposes: Excerpt | None
    evaluated_on: Excerpt | None
    result: Excerpt | None


_QUESTION_SHAPE = re.compile(
    r"^(?:what|which|who|whom|whose|where|when|why|how|does|did|do|is|are|was|were|can|could"
    r"|will|would|has|have|should|any|so)\b|\?\s*$",
    re.IGNORECASE,
)


def is_question(message: str) -> bool:
    """Shaped as a question: a question word first, or a question mark last."""
    return _QUESTION_SHAPE.search(message.strip()) is not None


def about_the_paper(question: str, abstract: str) -> bool:
    """Whether a question reads as one about this paper: at least half of its topic words are
    the abstract's (the words that only say what kind of answer is wanted do not count), or
    it has no topic words of its own beyond one ("where can I get the code?")."""
    topic = [
        term for term in dict.fromkeys(analysis.analyze(question)) if term not in _QUESTION_TERMS
    ]
    if len(topic) <= 1 and question_type(question) is not QuestionType.OTHER:
        return True
    if not topic:
        return False
    held = set(analysis.analyze(abstract))
    return sum(term in held for term in topic) * 2 >= len(topic)


def question_type(question: str) -> QuestionType:
    for kind, asks in _ASKS:
        if asks.search(question):
            return kind
    return QuestionType.OTHER


def answer_about(
    abstract: str,
    question: str,
    *,
    kind: QuestionType | None = None,
    collection: str = "",
    urls: Sequence[str] = (),
    limit: int = 2,
) -> AboutPaper:
    """The sentences of `abstract` that answer `question` (at most `limit`, in text order)."""
    kind = kind or question_type(question)
    if kind is QuestionType.AUTHORS:
        return AboutPaper(kind, statement="Paper lists hold no authors, only abstracts.")
    if kind is QuestionType.VENUE:
        where = f" It is in {collection}." if collection else ""
        return AboutPaper(kind, statement=f"The list holds no venue details.{where}")
    sentences, texts, roles = _read(abstract)
    if kind is QuestionType.CODE:
        if urls:
            return AboutPaper(kind, statement="Code: " + " ".join(urls[:5]))
        said = [_marked(text, kind, frozenset()) for text in texts if _CODE_SAID.search(text)]
        return AboutPaper(
            kind, tuple(said[:1]), None if said else "No code or project link appears in it."
        )
    wanted = frozenset(analysis.analyze(question)) - _QUESTION_TERMS
    scored = []
    for index, (sentence, role) in enumerate(zip(sentences, roles, strict=True)):
        cue = _CUES.get(kind)
        cues = len(cue.findall(texts[index])) if cue is not None else 0
        if kind is QuestionType.DATASET:
            # "benchmarks", "evaluated on" say data; a capitalised name may be the method's.
            cues = 2 * len(_DATA_WORDS.findall(texts[index])) + min(cues, 1)
        overlap = len(sentence.terms & wanted)
        if kind in _NEEDS_CUE and cues == 0 and overlap == 0:
            continue
        score = 2.0 * (role in _ROLES.get(kind, frozenset())) + min(cues, 3) + 1.5 * overlap
        if score > 0:
            scored.append((score, index))
    if not scored:
        return AboutPaper(kind, statement=_NOT_STATED.get(kind, _NOT_STATED[QuestionType.OTHER]))
    best = sorted(scored, key=lambda item: (-item[0], item[1]))[:limit]
    top = best[0][0]
    chosen = sorted(index for score, index in best if score >= top * 0.75)
    return AboutPaper(kind, tuple(_marked(texts[i], kind, wanted) for i in chosen))


@lru_cache(maxsize=256)
def _read(abstract: str) -> tuple[tuple[Sentence, ...], tuple[str, ...], tuple[Role, ...]]:
    """An abstract's sentences, their text and their roles, once per abstract (a comparison
    asks three questions of each paper)."""
    clean, sentences = analyse(abstract)
    texts = tuple(clean[s.start : s.end] for s in sentences)
    return sentences, texts, tuple(sentence_roles(texts))


def aspects(abstract: str) -> Aspects:
    """What a paper proposes, is evaluated on and finds: one sentence each (None if absent)."""
    found = {
        kind: answer_about(abstract, "", kind=kind, limit=1)
        for kind in (QuestionType.METHOD, QuestionType.DATASET, QuestionType.RESULT)
    }
    first = {
        kind: (about.sentences[0] if about.sentences else None) for kind, about in found.items()
    }
    return Aspects(
        first[QuestionType.METHOD], first[QuestionType.DATASET], first[QuestionType.RESULT]
    )


# Words of a question that say what kind of answer it wants rather than what to look for.
_QUESTION_TERMS = frozenset(
    analysis.analyze(
        "what which how does do did is are the main result results dataset datasets data set "
        "benchmark benchmarks evaluate evaluated method approach problem propose paper it this "
        "show work use key idea limitation limitations code get where find much many better "
        "need needs does do"
    )
)


def _marked(sentence: str, kind: QuestionType, wanted: frozenset[str]) -> Excerpt:
    """`sentence` with its cue words for `kind` and the question's own words marked."""
    marks: list[tuple[int, int]] = []
    cue = _CUES.get(kind)
    if cue is not None:
        marks += [match.span() for match in cue.finditer(sentence) if match.group().strip()]
    marks += [(start, end) for start, end, term in analysis.word_spans(sentence) if term in wanted]
    spans: list[Span] = []
    position = 0
    for start, end in sorted(marks):
        if start < position:
            continue
        if start > position:
            spans.append(Span(sentence[position:start]))
        spans.append(Span(sentence[start:end], match=True))
        position = end
    if position < len(sentence):
        spans.append(Span(sentence[position:]))
    return Excerpt(tuple(spans))
