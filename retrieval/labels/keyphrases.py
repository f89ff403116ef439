"""Key phrases for a topic label: the phrases of the abstract a title would most likely keep.

When an abstract names no method, its label lists the few phrases that best say what the paper is
about ("Normalizing flows, fast path gradient estimator, maximum likelihood training"). A phrase
is a run of words between punctuation, stopwords and words titles never keep ("we propose"); each
word is weighed by the learned chance that a title keeps it (`title_words`), and phrases are
chosen greedily by the weight they add for their length until the label is full. They are listed
in the abstract's order.
"""

from __future__ import annotations

import heapq
import itertools
import re
from collections import Counter
from dataclasses import dataclass
from typing import Final

from retrieval.labels.text import MAX_LABEL_CHARS, capitalised, unglued
from retrieval.labels.title_words import UNSEEN_BUCKET, TitleWords, title_words
from retrieval.labels.topics import FILLER_WORDS, split_sentences, states_contribution
from retrieval.stopwords import STOPWORDS
from retrieval.text import analyze

SEPARATOR: Final = ", "
# Longer runs are clauses rather than phrases ("models demonstrate strong performance on").
_MAX_PHRASE_WORDS: Final = 6
# How many sentences may hold the contribution, as for the topic phrase.
_SENTENCES: Final = 8
# A phrase's gain is its added weight over its length to this power.
_LENGTH_EXPONENT: Final = 0.4
# A phrase's gain must exceed this to be worth its room.
_MIN_GAIN: Final = 0.01
# Letters, digits and the marks words are made of ("k-means", "GPT-3.5", "A2Q+", "encoder/decoder").
_WORD_SHAPE: Final = re.compile(r"[^\W_](?:[\w'’./+-]{0,60}[\w+])?")
# Every bracketed aside goes, "(ε, δ)-private" included: unlike the topic phrase's asides
# (topics.py), key phrases never quote a clause, and the lexicon was learned on this text.
_ASIDE: Final = re.compile(r" \([^()]{0,80}\)")
_OPENING_MARKS: Final = "([{\"'“‘"
_CLOSING_MARKS: Final = ",;:.!?)]}\"'”’"
# Words that join two content words inside one phrase: "mixture of experts".
_INNER: Final = frozenset(["of"])
# A lone word must occur this often to be listed.
_LONE_WORD_COUNT: Final = 2
# ... and titles must keep it at least this often (`title_words` prior bucket: 2 is 20 %).
_LONE_WORD_BUCKET: Final = 2
# Stems titles keep often, but only with other words: "Learning", "Model" alone say nothing.
_VAGUE_ALONE: Final = frozenset(
    ["learn", "model", "data", "larg", "dynam", "time", "network", "neural", "deep", "train"]
)
_POSSESSIVE: Final = ("'s", "’s")
# A lowercase word right after these is a verb: "to deceive", "we train", "can extract".
_BEFORE_VERBS: Final = frozenset(
    ["to", "can", "could", "may", "might", "will", "would", "should", "must", "cannot", "we",
     "they"]
)  # fmt: skip
# A lowercase word with these endings is a verb ("optimizes", "unlearned"; "-ates" is not:
# "updates", "states"): it is no phrase alone, and no phrase ends on it ("networks trained").
_VERB_ENDINGS: Final = ("ed", "izes", "ises", "ifies")
# Words a label can do without: the topic phrase's fillers, and "recent" (which a topic phrase
# keeps for "in recent years", a run of words key phrases never list).
_FILLER: Final = FILLER_WORDS | {"recent"}


def key_phrases(text: str, room: int = MAX_LABEL_CHARS, skip: frozenset[str] = frozenset()) -> str:
    """The best phrases of cleaned abstract `text` within `room` characters, in text order.

    `skip` holds terms already in the label (a method's name): phrases add nothing for them.
    """
    lexicon = title_words()
    text = phrase_text(text)
    parts = list(map(_chunks_for(lexicon).__getitem__, text.split()))
    counts, opening, contribution = _features(text, [part.terms for part in parts])
    phrases = _phrases(parts, counts)
    if not phrases:
        return ""
    weights = lexicon.chances_of(
        itertools.chain.from_iterable(terms for _, terms in phrases), counts, opening, contribution
    )
    chosen = _choose(phrases, weights, room, skip)
    label = SEPARATOR.join(phrases[position][0] for position in sorted(chosen))
    return capitalised(label)


def phrase_text(text: str) -> str:
    """The text key phrases are read from (and the lexicon learned on): without asides in
    brackets, an em dash read as a comma ("Gen-Z—a generative prompting framework"), and
    sentences a lost line break glued apart again ("learning (DRL).Although" once "(DRL)" goes)."""
    return unglued(_ASIDE.sub("", text).replace("—", ", "))


def _choose(
    phrases: list[tuple[str, tuple[str, ...]]],
    weights: dict[str, float],
    room: int,
    skip: frozenset[str],
) -> list[int]:
    """Greedy: the phrase that adds the most weight for its length, until nothing fits or adds.

    Lazily: a phrase's gain only falls as others are chosen (more terms covered, a separator to
    pay), so a stale gain is an upper bound and only the best is brought up to date. The choice
    is the plain greedy's, ties to the earlier phrase included.
    """
    covered = set(skip)
    used = 0
    chosen: list[int] = []
    # The chosen phrases, lowercase and spaced (" satellite imagery "): none is listed inside
    # another.
    said: list[str] = []

    def gain(position: int) -> float:
        phrase, terms = phrases[position]
        cost = len(phrase) + (len(SEPARATOR) if chosen else 0)
        if used + cost > room:
            return -1.0  # and never again: what is used only grows
        added = 0.0
        for term in terms:
            if term not in covered:
                added += weights[term]
        if added > 0.0 and said:
            spaced = f" {phrase.lower()} "
            for other in said:
                if other in spaced or spaced in other:
                    return 0.0  # "long satellite imagery series" after "satellite imagery"
        # Over a power of its length below 1: a long phrase that adds much beats two short ones.
        return added / cost**_LENGTH_EXPONENT if added > 0.0 else 0.0

    heap = _first_gains(phrases, weights, room, covered)
    heapq.heapify(heap)
    while heap:
        stale, position, stamp = heapq.heappop(heap)
        if stamp != len(chosen):
            fresh = gain(position)
            if fresh > _MIN_GAIN:
                heapq.heappush(heap, (-fresh, position, len(chosen)))
            continue
        if -stale <= _MIN_GAIN:
            break
        chosen.append(position)
        said.append(f" {phrases[position][0].lower()} ")
        covered.update(phrases[position][1])
        used += len(phrases[position][0]) + (len(SEPARATOR) if len(chosen) > 1 else 0)
    return chosen


def _first_gains(
    phrases: list[tuple[str, tuple[str, ...]]],
    weights: dict[str, float],
    room: int,
    covered: set[str],
) -> list[tuple[float, int, int]]:
    """The greedy's heap before any choice: `gain` of each phrase with nothing chosen (no
    separator, nothing said), in one loop rather than a call per phrase."""
    heap: list[tuple[float, int, int]] = []
    for position, (phrase, terms) in enumerate(phrases):
        cost = len(phrase)
        if cost > room:
            heap.append((1.0, position, 0))  # -(-1.0): it never fits
            continue
        added = 0.0
        for term in terms:
            if term not in covered:
                added += weights[term]
        heap.append((-(added / cost**_LENGTH_EXPONENT) if added > 0.0 else -0.0, position, 0))
    return heap


def term_features(text: str) -> tuple[Counter[str], set[str], set[str]]:
    """What a term's chance depends on: its count in `text`, and the terms of the opening and
    of the contribution sentence (empty when no sentence states one)."""
    return _features(text, [tuple(analyze(piece)) for piece in text.split()])


def _features(
    text: str, piece_terms: list[tuple[str, ...]]
) -> tuple[Counter[str], set[str], set[str]]:
    """`term_features` from the terms of each whitespace-separated piece of `text`."""
    counts = Counter(itertools.chain.from_iterable(piece_terms))
    sentences = split_sentences(text, _SENTENCES)
    # Sentences are slices of the text cut after ". ", so each holds whole pieces.
    start = 0
    opening: set[str] = set()
    contribution: set[str] = set()
    for index, sentence in enumerate(sentences):
        end = start + len(sentence.split())
        if index == 0:
            opening = set(itertools.chain.from_iterable(piece_terms[start:end]))
        if states_contribution(sentence):
            contribution = set(itertools.chain.from_iterable(piece_terms[start:end]))
            break
        start = end
    return counts, opening, contribution


@dataclass(frozen=True, slots=True)
class _Chunk:
    """What one whitespace-separated chunk of the abstract is to a phrase.

    Slots rather than a NamedTuple: Python 3.11 specializes reading a slot, not a tuple field,
    and the phrase loop reads several fields of every chunk of every abstract.
    """

    opens: bool  # it closes the phrase before it: "(a", "“b"
    word: str  # without the marks around it
    last: str  # the word ending a phrase: without a possessive "'s"
    terms: tuple[str, ...]
    role: int  # _CONTENT, _JOINS ("of") or _ENDS
    closes: bool  # it closes its own phrase: "models,", "b)"
    before_verb: bool  # a lowercase word after it is a verb: "to", "we", "can"
    free_word: bool  # lowercase, so a verb after "to" is read as one
    verb: bool  # lowercase with a verb's ending: no phrase ends on it
    lettered: bool  # a term of letters ("≥", "O(2²α" have none)
    alone: bool  # titles often keep it: it may be a phrase by itself, if repeated


_CONTENT, _JOINS, _ENDS = 0, 1, 2
_CHUNK_CACHE_LIMIT: Final = 100_000


class _ChunkCache(dict[str, _Chunk]):
    """Most chunks of an abstract recur in others; each is judged once per lexicon.

    A chunk not yet judged is judged on lookup (`__missing__`), so the pieces of a text are
    looked up by a `map` in C rather than a loop in Python.
    """

    def __init__(self, lexicon: TitleWords) -> None:
        super().__init__()
        self.lexicon = lexicon

    def __missing__(self, chunk: str) -> _Chunk:
        part = self[chunk] = _chunk(chunk, self.lexicon)
        return part


_chunks: list[_ChunkCache] = []  # the one in use


def _chunk(chunk: str, lexicon: TitleWords) -> _Chunk:
    """A chunk's part in a phrase."""
    word = chunk.strip(_OPENING_MARKS + _CLOSING_MARKS)
    lower = word.lower()
    # The chunk as analyze(text) saw it, so its cache is warm: marks around a word add no terms.
    terms = tuple(analyze(chunk)) if word else ()
    if lower in _INNER:
        role = _JOINS
    elif (
        not terms
        or lower in STOPWORDS
        or lower in _FILLER
        or lower == "using"  # "X using Y" is two phrases
        or lower in lexicon.verbs  # "the model learns X": two phrases, without the verb
        or _breaks(word, terms, lexicon.breaks)
    ):
        role = _ENDS
    else:
        role = _CONTENT
    verb = word.islower() and word.endswith(_VERB_ENDINGS)
    lettered = any(len(term) > 1 and term[0].isalpha() for term in terms)
    return _Chunk(
        opens=chunk[0] in _OPENING_MARKS,
        word=word,
        # "the 4DGS model's": a phrase that ends here stops before what the model has.
        last=word[:-2] if word.endswith(_POSSESSIVE) else word,
        terms=terms,
        role=role,
        closes=chunk[-1] in _CLOSING_MARKS,
        before_verb=lower in _BEFORE_VERBS,
        free_word=word.islower(),
        verb=verb,
        lettered=lettered,
        alone=role == _CONTENT
        and lettered
        and not verb
        and lexicon.buckets.get(terms[0], UNSEEN_BUCKET) >= _LONE_WORD_BUCKET
        and terms[0] not in _VAGUE_ALONE,
    )


def _chunks_for(lexicon: TitleWords) -> _ChunkCache:
    """The chunk cache, a new one when another lexicon is in use (benchmarks swap them)."""
    if not _chunks or _chunks[0].lexicon is not lexicon:
        _chunks[:] = [_ChunkCache(lexicon)]
    elif len(_chunks[0]) >= _CHUNK_CACHE_LIMIT:
        _chunks[0].clear()  # bounded memory; the common chunks refill it at once
    return _chunks[0]


def _phrases(parts: list[_Chunk], counts: Counter[str]) -> list[tuple[str, tuple[str, ...]]]:
    """Candidate phrases with their terms, first occurrence of each spelling only."""
    # Keyed by the phrase in lowercase: a dict keeps the first spelling, in text order.
    found: dict[str, tuple[str, tuple[str, ...]]] = {}
    run: list[_Chunk] = []
    verb_next = False
    # A run is closed inline: a lone word that may not stand alone (most runs) is dropped
    # without a call; `_close` judges the rest. Same runs as closing on every break.
    for part in parts:
        if run and part.opens:
            if len(run) > 1 or run[0].alone:
                _close(run, counts, found)
            run = []
        role = part.role
        if verb_next and role == _CONTENT and part.free_word:
            role = _ENDS  # "to deceive neural networks", "can extract": the verb is no topic
        verb_next = part.before_verb
        if role == _CONTENT or (role == _JOINS and run):
            run.append(part)
            if not part.closes:
                continue
        elif not run:
            continue
        # The run ends here: on a word that ends phrases, or after one that closes its own.
        if len(run) > 1 or run[0].alone:
            _close(run, counts, found)
        run = []
    if run and (len(run) > 1 or run[0].alone):
        _close(run, counts, found)
    return list(found.values())


def _close(
    run: list[_Chunk], counts: Counter[str], found: dict[str, tuple[str, tuple[str, ...]]]
) -> None:
    """The phrase a run of chunks makes, if any, into `found` (the run is not used after)."""
    # "mixture of", "neural networks trained", "models optimizes": these go with what
    # follows, which is not in the phrase.
    while run and (run[-1].role == _JOINS or (run[-1].verb and len(run) > 1)):
        run.pop()
    length = len(run)
    if length == 1:
        only = run[0]
        if only.alone and counts[only.terms[0]] >= _LONE_WORD_COUNT:
            found.setdefault(only.last.lower(), (only.last, only.terms))
    elif 1 < length <= _MAX_PHRASE_WORDS:
        # One plain loop: for two or three words it costs less than generators or
        # comprehensions, which each set up a function call.
        words = []
        terms: tuple[str, ...] = ()
        lettered = False
        for part in run:
            words.append(part.word)
            terms += part.terms
            lettered = lettered or part.lettered
        if lettered:
            words[-1] = run[-1].last
            phrase = " ".join(words)
            found.setdefault(phrase.lower(), (phrase, terms))


def _breaks(word: str, word_terms: tuple[str, ...], breaks: frozenset[str]) -> bool:
    """Words titles do not keep, adverbs ("maliciously") and symbols ("α≥") end a phrase."""
    return (
        word_terms[0] in breaks
        or (word.endswith("ly") and word.islower())
        or not _WORD_SHAPE.fullmatch(word)
    )
