"""Title-like phrases an abstract offers for its label, each cut only at a phrase boundary.

Three kinds: the contribution clause ("we propose X" gives X), the opening sentence, and the
description after a name ("NAME, a framework for X"). Every candidate is a prefix of its clause
that ends before a boundary word (a preposition, a conjunction, a verb) or at the clause's end,
never inside parentheses or quotes, never on a function word, never across a comma: no "…", no
keyword list, no "… which resolves this by". `scorer` picks among them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from retrieval.labels.words import (
    ANAPHORA,
    AUXILIARIES,
    OBJECTS,
    RELATIVES,
    SUBORDINATORS,
    is_coined_word,
    is_verb_form,
)

# A period after these does not end a sentence.
_ABBREVIATIONS = tuple(
    prefix + word
    for word in ("e.g", "i.e", "et al", "etc", "vs", "cf", "Fig", "Figs", "Eq", "Eqs", "Sec",
                 "resp", "approx", "w.r.t", "a.k.a", "No", "Dr", "Prof")
    for prefix in (" ", "(")
)  # fmt: skip
_ABBREVIATION_ENDS = frozenset(abbreviation[-1] for abbreviation in _ABBREVIATIONS)
_LEAD_IN = re.compile(
    r"(?:(?:(?:in|within) (?:this|the present|our) (?:paper|work|study|article|note|submission)"
    r"|here|recently|undeniably|in recent years"
    r"|to (?:this end|that end|address (?:this|these|such)[^,]{0,40})|accordingly|therefore"
    r"|thus|hence|specifically|concretely|instead|in contrast(?=,)|motivated by [^,]{0,60}"
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
    r"|reveal|resolv|solv|construct|build|creat|curat|collect|releas|evaluat|compar|measur"
    r"|quantif|improv|settl|answer|bridg|unif|refin|rethink|argu|cast|train|fine-tun|adapt"
    r"|enhanc|accelerat|reduc|tighten|obtain|achiev|find|discover|observ|advocat|highlight"
    r"|pioneer|learn|benchmark|defin)[a-z]{0,4}"
    r"(?: (?:on|that|how(?: to)?|whether|to|at))? ",
    re.IGNORECASE,
)
# "we propose X and establish Y": a second contribution verb after "and" starts a new clause.
_AND_VERB = re.compile(
    r"(?:propos|introduc|present|stud|investigat|develop|analy[sz]|design|show|prove|demonstrat"
    r"|establish|provid|deriv|identif|offer|extend|giv|reveal|evaluat|achiev|find|discover"
    r"|obtain|validat|verif|apply|appl|conduct|perform|use|utiliz|empirically|theoretically"
    r"|further|then|also)[a-z]{0,4}$"
)
# Any "we <verb> X" when no contribution verb is found: "we train agents to ...".
_ANY_WE = re.compile(
    r"(?:^|(?<=[ ,]))we (?!(?:can|will|would|may|might|must|should|need|are|were|have|had|do"
    r"|did|also|then|first|here|now|call|refer|denote|believe|hope|know|expect)\b)[a-z]+"
    r"(?: (?:that|how|whether|to|on))? ",
    re.IGNORECASE,
)
# "we aim to address X": X is what the paper does.
_SECOND_VERB = re.compile(
    r"(?:address|answer|bridge|close|fill|understand|tackle|solve|study|investigate|explore"
    r"|provide|develop|build|design|improve|characteri[sz]e|identify|learn|mitigate|overcome)"
    r"[a-z]{0,3} ",
    re.IGNORECASE,
)
# "the problem of X", "the use of X": the head says little, X is what a title names.
_EMPTY_HEAD = re.compile(
    r"(?:the )?(?:challenge|problem|task|application|use|notion|question|concept|issue|study"
    r"|analysis|investigation) of ",
    re.IGNORECASE,
)
# "Despite the remarkable capabilities, LLMs face ...": the concession is not the subject.
_CONCESSION = re.compile(
    r"(?:despite|although|though|while|even though|whereas|due to|owing to|with|as|given|since"
    r"|in|for|by|among|from|over|through|after|when|unlike) [^,;]{3,120}, ",
    re.IGNORECASE,
)
# Only a free-standing aside: "(ε, δ)-private" keeps its parenthesis.
_ASIDE = re.compile(r" \([^()]{0,80}\)(?=[\s,.;:]|$)")
# Words a title does without; whole words only, so "simple-yet-efficient" stays.
FILLER_WORDS = frozenset(
    [
        "novel", "new", "simple", "yet", "effective", "general", "generic", "unified",
        "principled", "several", "various", "some", "very", "highly", "also", "existing",
        "different", "specific", "particular", "powerful", "practical", "lightweight",
        "systematic", "comprehensive", "innovative", "recently", "significantly", "effectively",
        "successfully", "important", "crucial", "fundamental", "critical", "promising",
        "remarkable", "impressive", "notable", "simple,", "novel,", "new,",
        "effective,", "efficient,", "general,",
    ]
)  # fmt: skip
_LEADING = frozenset(
    ["a", "an", "the", "our", "its", "their", "this", "these", "two", "three", "first", "and"]
)
# A phrase may stop before these words: what follows is a new phrase or clause.
_BREAKS = frozenset(
    [
        "that", "which", "where", "whereby", "who", "whose", "while", "whereas", "to", "by",
        "through", "using", "via", "with", "without", "for", "in", "on", "under", "from", "and",
        "or", "but", "as", "at", "when", "if", "because", "so", "into", "over", "across",
        "between", "against", "than", "thereby", "is", "are", "was", "were", "has", "have",
        "had", "can", "could", "may", "might", "will", "would", "should", "must", "remains",
        "remain", "leveraging", "achieving", "enabling", "allowing", "yielding", "based", "such",
        "both", "toward", "towards", "within", "beyond", "during", "given", "among", "after",
        "before", "without", "whether", "how",
    ]
)  # fmt: skip
# A label never ends on these: it would promise more than it says.
DANGLING = _BREAKS | frozenset(
    [
        "a", "an", "the", "of", "this", "these", "those", "it", "its", "their", "our", "we",
        "they", "them", "be", "been", "being", "do", "does", "not", "each", "more", "most",
        "less", "very", "also", "only", "other", "any", "all", "then", "thus", "i.e.", "e.g.",
        "either", "neither", "nor", "about", "upon", "per", "versus", "vs", "vs.", "de", "et",
        "able", "due", "al", "al.", "show", "shows", "prove", "demonstrate", "specifically",
        "often", "usually", "typically", "naturally", "jointly", "directly", "explicitly",
        "implicitly",
    ]
)  # fmt: skip
# Vowel letters that sound like a consonant: "a universal method", "a one-step sampler".
CONSONANT_SOUND = ("uni", "use", "usu", "uti", "eu", "one")
JOINERS = ("and", "or", "but")
_LY_NOUNS = frozenset(["family", "anomaly", "assembly", "supply", "monopoly", "reply", "italy"])
# A question cut before its end has lost its point: "What is the relationship between X".
_QUESTION = frozenset(["what", "how", "why", "can", "does", "do", "is", "are", "which", "when"])
# A phrase opening with these is an adverbial clause; titles may open "On", "Towards", "How".
_OPENS_CLAUSE = _BREAKS - _QUESTION - {"on", "toward", "towards", "beyond", "whether"}
_SUBORDINATE = frozenset(["that", "which", "where", "when", "whether", "who", "if", "while"])
VERBS = frozenset(
    [
        "is", "are", "was", "were", "has", "have", "had", "can", "could", "may", "might", "will",
        "would", "should", "must", "remains", "remain",
    ]
)  # fmt: skip
_MAX_WORDS = 16
_MARKS = frozenset('()[]“”"')
# A phrase that points back ("this phenomenon") needs a sentence the label does not have.
_REFERRING = ("this", "these", "those", "such", "above", "aforementioned", "it", "they", "them")
_REFERS = re.compile(rf"\b(?:{'|'.join(_REFERRING)})\b", re.I)


@dataclass(frozen=True, slots=True)
class Phrase:
    """One candidate: its words, where it comes from, and how it was cut."""

    text: str
    kind: str  # "contribution", "opening" or "description"
    sentence: int  # index of its sentence in the abstract
    cut: str  # the boundary word it stops before, "" at its clause's end


def split_sentences(text: str, limit: int = 6) -> list[str]:
    """The first sentences; a period ends one only before a capital, digit or opening mark."""
    sentences: list[str] = []
    start = 0
    stop = text.find(". ")
    while stop >= 0 and len(sentences) < limit:
        following = text[stop + 2 : stop + 3]
        if (following.isalnum() or following in "\"“'([") and not (
            # One look at the last letter first: `endswith` tries each abbreviation in turn.
            text[stop - 1] in _ABBREVIATION_ENDS and text.endswith(_ABBREVIATIONS, start, stop)
        ):
            sentences.append(text[start : stop + 1])
            start = stop + 2
        stop = text.find(". ", stop + 2)
    if len(sentences) < limit:
        sentences.append(text[start:])
    return sentences


def contribution(text: str) -> tuple[str, int]:
    """What the paper says it does ("we propose X" gives X) and its sentence; ("", -1) if none.
    Without a contribution verb, the first "we <verb> X" of the first eight sentences."""
    sentences = split_sentences(text, 8)
    for generic in (False, True):
        for index, sentence in enumerate(sentences if generic else sentences[:6]):
            lead = _LEAD_IN.match(sentence)
            rest = sentence[lead.end() :] if lead else sentence
            if generic:
                # The regex tries every position: only where "we " is there to be found.
                found = _ANY_WE.search(rest, 0, 150) if "we " in rest[:150].lower() else None
            else:
                found = _CONTRIBUTION.match(rest)
            if found is None and not generic and " we " in rest:
                at = rest.find(" we ")
                found = _CONTRIBUTION.match(rest, at + 1) if at < 150 else None
            if found:
                return _clause(rest[found.end() :], index)
    return "", -1


def _clause(chosen: str, index: int) -> tuple[str, int]:
    """The contribution clause after its verb, unless it points back ("we study this")."""
    if chosen:
        if chosen.startswith("and "):  # "we define and investigate the problem of X"
            chosen = chosen[4:].partition(" ")[2]
        second = _SECOND_VERB.match(chosen)
        chosen = chosen[second.end() :] if second else chosen
        if len(chosen) < 12 or ANAPHORA.search(chosen, 0, 40):
            return "", -1
        return chosen, index
    return "", -1


def opening(text: str) -> str:
    """The first sentence without its lead-in or a leading concession."""
    sentence = split_sentences(text, 1)[0]
    lead = _LEAD_IN.match(sentence)
    sentence = sentence[lead.end() :] if lead else sentence
    concession = _CONCESSION.match(sentence)
    return sentence[concession.end() :] if concession else sentence


def candidates(text: str, room: int = 90) -> list[Phrase]:
    """Every cut of the contribution clause and of the opening sentence; next to a
    contribution, the opening's two-word field names ("Diffusion models") are no rival."""
    found: list[Phrase] = []
    clause, index = contribution(text)
    if clause:
        found += cuts(clause, "contribution", index, room)
    if index != 0:
        shortest = 3 if found else 2
        found += [
            p for p in cuts(opening(text), "opening", 0, room) if len(p.text.split()) >= shortest
        ]
    if any(p.text.count(" ") >= 2 for p in found):
        # "Data heterogeneity" of "we study data heterogeneity in federated learning": a
        # two-word cut names a field, not a paper, when a longer phrase is there.
        found = [p for p in found if p.text.count(" ") >= 2]
    return found


def cuts(clause: str, kind: str, sentence: int, room: int = 90, title: bool = True) -> list[Phrase]:
    """The prefixes of `clause` that end at a phrase boundary and fit `room` characters."""
    clause = clause.lstrip(" ,;:.")  # "We present \\modelname{}, a video tokenizer ..."
    words = compress(_head(clause) if title else clause, _MAX_WORDS + 8).split()[: _MAX_WORDS + 1]
    if not words or words[0].lower() in _OPENS_CLAUSE:
        return []  # "As large language models become ...", "By leveraging X": no title
    verb = sentence_verb(words)
    group = words[verb + 1 : verb + 4]
    if "as" in group and not any(word.startswith("emerg") for word in group):
        # "X can serve as Y", "X is often employed as Y": a title says "X as Y" (not "X has
        # emerged as Y": that is the field's history).
        del words[verb : words.index("as", verb + 1)]
        verb = sentence_verb(words)
    ends: list[tuple[int, str]] = []  # (words kept, the boundary word after them)
    before_of: list[tuple[int, str]] = []  # a last resort: "forecasting the evolution" of ...
    depth = 0
    quoted = False
    size = -1
    marked = any(mark in clause for mark in _MARKS)
    for position, word in enumerate(words):
        lower = word.lower().rstrip(",;:.")
        if position and not depth and not quoted and lower in _BREAKS:
            ends.append((position, lower))
            following = words[position + 1] if position + 1 < len(words) else ""
            if lower == "and" and _AND_VERB.match(following):
                break  # "X and establish Y": the phrase ends with X
        elif position > 1 and not depth and not quoted and lower == "of":
            before_of.append((position, lower))
        if position == verb and (verb > 1 or lower in AUXILIARIES):
            # "Sharpness predicts transfer across tasks": a one-word subject is no title.
            if lower not in _BREAKS:
                ends.append((position, lower))
            break  # "Graph transformer has been proven ...": a sentence, not a title
        size += len(word) + 1
        if position == _MAX_WORDS or size > room:
            break
        if marked and not _MARKS.isdisjoint(word):
            depth += word.count("(") + word.count("[") - word.count(")") - word.count("]")
            depth += word.count("“") - word.count("”")
            quoted ^= word.count('"') % 2 == 1
        if depth or quoted:
            continue
        if word[-1] in ",;:." or (position + 1 < len(words) and words[position + 1] in "-–—"):
            ends.append((position + 1, ""))
            break
        if position + 1 == len(words):
            ends.append((position + 1, ""))
    if not ends:
        ends = before_of[-1:]
        if not ends:
            return []
    if title:
        first = words[0].split("-", 1)[0]
        if not any(char.isupper() for char in first[1:]):
            words[0] = words[0][:1].upper() + words[0][1:]
    question = words[0].lower() in _QUESTION
    # Words that point back ("this phenomenon"): a phrase holding one needs a sentence the
    # label does not have. Every candidate is a prefix, so the first such word bounds them all.
    joined = " ".join(words)
    refers = first_reference(joined)
    refers_at = joined.count(" ", 0, refers) if refers >= 0 else len(words)
    found: list[Phrase] = []
    for end, cut in ends:
        last = words[end - 1].lower()
        if cut and last.endswith("ed") and last.isalpha() and end > 2:
            end -= 1  # "... approach built" before "on it": the participle needs its phrase
            last = words[end - 1].lower()
        if end < 2 or last in DANGLING or end > refers_at:
            continue
        if cut and (question or _adverb(last)):
            continue  # a question cut before its point; "can be adaptively" before "employed"
        if cut in VERBS and not _SUBORDINATE.isdisjoint(w.lower() for w in words[1:end]):
            continue  # "... when the lower-level problem" before "is": a clause cut in half
        text = " ".join(words[:end]).rstrip(" ,;:.!?")
        if ends_cleanly(text):
            found.append(Phrase(text, kind, sentence, cut))
    return found


_EXPLETIVE = ("there", "we", "i", "you", "one")


def sentence_verb(words: list[str]) -> int:
    """Where the first finite verb makes `words` a sentence ("Knowledge distillation aims to
    ..."), or len(words): not in a question, nor after a relative or subordinate word ("a model
    that can ...", "... where the agent has ..."), nor after a pronoun ("It is ...": no noun
    phrase to keep)."""
    first = words[0].lower().rstrip(",;:.") if words else ""
    if first and first not in _QUESTION and first not in _REFERRING and first not in _EXPLETIVE:
        for position in range(1, len(words)):
            lower = words[position].lower().rstrip(",;:.")
            if lower in RELATIVES or lower in SUBORDINATORS:
                break
            if is_verb_form(lower):
                return position
    return len(words)


def first_reference(text: str) -> int:
    """Where `_REFERS` first matches, or -1: in ASCII text by `str.find` for each word, which
    is several times faster than the regex engine trying every position."""
    if not text.isascii():
        found = _REFERS.search(text)
        return found.start() if found else -1
    lowered = text.lower()
    first = -1
    for word in _REFERRING:
        at = lowered.find(word)
        while at >= 0 and (first < 0 or at < first):
            end = at + len(word)
            if (at == 0 or not _word_character(lowered[at - 1])) and (
                end == len(lowered) or not _word_character(lowered[end])
            ):
                first = at
                break
            at = lowered.find(word, at + 1)
    return first


def _word_character(char: str) -> bool:
    return char.isalnum() or char == "_"


def _adverb(word: str) -> bool:
    """'adaptively' before a cut ends nothing; 'overfits quickly.' at a clause end does."""
    return word.endswith("ly") and word.islower() and word not in _LY_NOUNS


def ends_cleanly(phrase: str) -> bool:
    """Whether a label may end with this phrase's last word."""
    before, _, last = phrase.rpartition(" ")
    lower = last.lower()
    return (
        lower not in DANGLING
        and lower not in OBJECTS  # "... that enables us"
        and not is_verb_form(lower)  # "... that learns"
        and before.rpartition(" ")[2].lower() not in RELATIVES  # "... that generalize"
        and last[-1:] not in "-–—/&+(["
        and len(phrase) > 2
    )


def _head(clause: str) -> str:
    """The clause without an empty head ("the problem of X" -> "X") and leading articles."""
    words = clause.split(" ", 3)
    while len(words) > 1 and words[0].lower() in _LEADING:
        clause = clause.split(" ", 1)[1]
        words = clause.split(" ", 3)
    head = _EMPTY_HEAD.match(clause)
    if head and head.end() < len(clause) - 20:
        clause = clause[head.end() :]
    return clause


def _aside(match: re.Match[str]) -> str:
    """'(LLMs)', '(e.g., ...)' go; a coined name such as '(X-Prompt)' stays."""
    inner = match.group()[2:-1]
    keep = " " not in inner and is_coined_word(inner) and not inner.rstrip("s").isupper()
    return match.group() if keep else ""


def compress(phrase: str, most: int = 60) -> str:
    """The phrase without asides in parentheses and filler words ("a novel" -> "a"), at most
    about `most` words of it (a later word changes only the word before it)."""
    if "(" in phrase:
        phrase = _ASIDE.sub(_aside, phrase)
    kept: list[str] = []
    dropped = False
    article = -1  # an article a dropped filler word followed: "a novel approach"
    for word in phrase[:200].split():
        if len(kept) > most:
            break
        lower = word.lower()
        # "General AI Assistants" is a name: a capitalised filler goes only as the first word.
        filler = word in FILLER_WORDS or (not kept and lower in FILLER_WORDS)
        if filler or (dropped and lower in JOINERS):
            if filler and kept and kept[-1] in JOINERS:
                kept.pop()  # "a cheap and simple way" -> "a cheap way"
            if kept and kept[-1].lower() in ("a", "an"):
                article = len(kept) - 1
            dropped = lower not in JOINERS
            continue
        if article >= 0 and article == len(kept) - 1:
            vowel = lower[:1] in "aeiou" and not lower.startswith(CONSONANT_SOUND)
            kept[article] = kept[article][0] + ("n" if vowel else "")  # "an approach"
        article = -1
        dropped = False
        kept.append(word)
    return " ".join(kept)
