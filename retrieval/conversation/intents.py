"""`parse_message`: one chat message -> one Intent (what to do), before anything is searched.

What a message asks for is decided by a classifier fitted on data (`classifier.py`, judged on
a held-out set: docs/conversation.md); what it points at is read by rules that are about
form, not language: paper ids in any spelling, positions ("#5", "the second one", "1 vs 2",
"the first two"), the paper in focus ("it"), and collections ("iclr", "icml 24"). An intent
that needs a paper but names none points at the paper in focus. Every regex here is linear, so
any text returns an Intent quickly and never raises.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from dataclasses import replace

from retrieval.acronyms import FILLER_WORDS
from retrieval.collection_names import (
    NamedCollection,
    find_collection_names,
    find_venue_years,
    resolve_collection,
)
from retrieval.conversation import patterns
from retrieval.conversation.classifier import shipped_model
from retrieval.conversation.entities import (
    named_collections,
    pointed_at,
    question_words,
    unloaded_venue,
    venue_named,
    year_as_place,
    year_collections,
)
from retrieval.conversation.model import (
    FocusRef,
    IdRef,
    Intent,
    IntentKind,
    PositionRef,
    Ref,
    ZeroRef,
)
from retrieval.conversation.refs import whole_refs
from retrieval.conversation.typos import chat_words_fixed, venues_fixed
from retrieval.ids import find_paper_keys
from retrieval.paper_answers import QuestionType, names_a_kind_of_answer, question_type
from retrieval.stopwords import ENGLISH as STOPWORDS
from retrieval.text_classifier import TextClassifier

# Control and invisible characters become spaces; typographic apostrophes become "'".
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\u200b-\u200f\u2028\u2029\u2060\ufeff]")
_APOSTROPHES = str.maketrans({"’": "'", "‘": "'", "`": "'", "´": "'"})
_QUOTES = str.maketrans({"“": '"', "”": '"', "„": '"', "«": '"', "»": '"'})
_OUTER_LEFT = re.compile(r"^[^\w#?'\"]+")
_OUTER_RIGHT = re.compile(r"[^\w'\")]+$")
# Query syntax that must reach retrieval/query.py untouched: quotes, in:..., -term.
_PROTECTED = re.compile(r'"[^"]*"|(?<!\S)in:\S*|(?<!\S)-\S+')
# Words a definition term is never made of: "what are the best papers on RLHF" is a search.
_NOT_A_TERM = patterns.words(
    "paper papers on about for in of with best latest new recent some any good top the a an "
    "there you your this that it these those"
)


# The longest list one message asks for ("top 50" shows 10): what a Discord message holds well.
MAX_LIST = 10
# "top 3", "first 2": as many papers as one page shows are opened, not listed again.
OPENED_AT_ONCE = 3


def normalize(text: str) -> str:
    """NFKC, control characters as spaces, one apostrophe, whitespace collapsed."""
    text = unicodedata.normalize("NFKC", text)
    return " ".join(_CONTROL.sub(" ", text).translate(_APOSTROPHES).split())


def fold(text: str) -> str:
    """A short message for whole-message rules: lowercase, no outer punctuation or politeness."""
    folded = _OUTER_RIGHT.sub("", _OUTER_LEFT.sub("", text.lower()))
    folded = patterns.OUTER_FILLER.sub("", folded)
    folded = patterns.TRAILING_FILLER.sub("", folded)
    return _OUTER_RIGHT.sub("", folded)


def weighs_them(message: str) -> bool:
    """Whether a message is a short question weighing the papers just compared ("which one is
    better?", "which of them performs best"): the chat asks their results, and the reply says
    the abstracts give no verdict."""
    return patterns.WHICH_OF_THEM.pattern.fullmatch(fold(message)) is not None


def parse_message(
    text: str, collections: Sequence[NamedCollection], model: TextClassifier | None = None
) -> Intent:
    """What `text` asks for. Never raises; an empty message is HELP."""
    clean = normalize(text)
    if not clean or set(clean) <= set("?!. "):
        return Intent(IntentKind.HELP, message=clean)
    slugs = frozenset(collection.slug for collection in collections)
    if len(clean) > patterns.MAX_CHAT_CHARS:  # a pasted abstract or a long query: search it
        # Its "but not" is prose, not an exclusion: nothing is taken out of a pasted abstract.
        return replace(_search(clean, collections, exclusions=False), message=clean)
    clean = venues_fixed(chat_words_fixed(clean))
    model = model or shipped_model()
    probabilities = model.probabilities(clean)
    label = max(probabilities, key=probabilities.__getitem__)
    taken_back = patterns.CORRECTION_LEAD.match(clean)
    if taken_back is not None and 0 < taken_back.end() < len(clean):
        # "never mind, I meant graphs": what follows is the message, read on its own.
        clean = clean[taken_back.end() :]
        probabilities = model.probabilities(clean)
        label = max(probabilities, key=probabilities.__getitem__)
    lead = patterns.CHIT_CHAT_LEAD.match(clean)
    if lead is not None and lead.end() < len(clean):
        # "ok cool, anything on mamba?", "thanks! and what about neurips": the reaction in
        # front is not the message, and never a search word.
        rest = clean[lead.end() :]
        if label not in _CHIT_CHAT:
            clean = rest
        else:
            rest_probabilities = model.probabilities(rest)
            rest_label = max(rest_probabilities, key=rest_probabilities.__getitem__)
            # Only a request the model is sure of: "thanks, super useful" stays thanks.
            if rest_label not in _CHIT_CHAT and rest_probabilities[rest_label] >= 0.5:
                clean, probabilities, label = rest, rest_probabilities, rest_label
    if set(clean) <= _APPROVING:
        # "👍", "🔥🔥", "🙏": a reaction to the last answer is thanks, never off-topic chat.
        return Intent(IntentKind.THANKS, message=clean, confidence=probabilities[label])
    if patterns.FAREWELL.pattern.fullmatch(fold(clean)):
        # A goodbye is chit-chat whatever else the model reads in it ("thanks, bye").
        kind = _SIMPLE_KINDS.get(label, IntentKind.SMALL_TALK)
        if kind not in (IntentKind.GREETING, IntentKind.THANKS, IntentKind.SMALL_TALK):
            kind = IntentKind.SMALL_TALK
        return Intent(kind, message=clean, confidence=probabilities[label], farewell=True)
    folded = fold(clean)
    if patterns.BACK.pattern.fullmatch(folded):
        return Intent(IntentKind.BACK, message=clean)
    length = patterns.LIST_LENGTH.pattern.fullmatch(folded)
    if length is not None and not (length["top"] and int(length["top"]) <= OPENED_AT_ONCE):
        # "show me 10 results" is a longer list, not the tenth paper.
        number = int(length["top"] or length["count"] or length["next"])
        more = length["next"] is not None or length["more"] is not None
        return Intent(
            IntentKind.MORE,
            message=clean,
            count=max(1, min(number, MAX_LIST)),
            from_top=not more,
        )
    # A message that is nothing but references ("icml2026-13", "#3", "it", "the second one")
    # shows them, unless the model reads it as a comparison or "papers like" ("1 vs 2").
    shown = whole_refs(patterns.SHOW_VERB.sub("", folded), slugs)
    if shown is not None and label not in ("compare", "similar"):
        return Intent(IntentKind.PAPER, refs=shown, message=clean)
    # A message that is nothing but loaded collections ("iclr", "NeurIPS", "ICML 2026") is the
    # last question there; with no question to rerun, ChatService searches it.
    only = _only_collections(clean, collections)
    if only is not None:
        return Intent(
            IntentKind.REFINE, collection=only, message=clean, confidence=probabilities[label]
        )
    confidence = probabilities[label]
    if label == "help" and find_paper_keys(clean, slugs):
        # A message that names a paper by id is about that paper, never about the bot:
        # "can you summarize icml2026-38 for me".
        label = "question"
    elif label == "help" and confidence < SURE_HELP and named_collections(clean, collections):
        # "can u do neurips": a loaded collection named in a request the model is unsure
        # of is where to look, not a question about the bot ("which conferences do you have?"
        # names none).
        label = "refine"
    intent = _understood(label, clean, collections, model)
    return replace(
        intent, message=clean, confidence=confidence, help_probability=probabilities["help"]
    )


# Help the classifier is this sure of is about the bot: never re-read as a question about the
# paper in focus (ChatService), nor as a refine when it names a collection.
SURE_HELP = 0.9

# Emoji that approve of an answer, with the joiners and skin tones they are typed with.
_APPROVING = frozenset("👍👌🙏🔥💯✨🎉🙌👏❤💖😊😄😀😁🤩🥳✅⭐🌟💪🤝👀🫡 \ufe0f\u200d🏻🏼🏽🏾🏿!")

# Questions with one fact per paper: asked of several papers, they are not a comparison.
_FACT_TYPES = frozenset({QuestionType.CODE, QuestionType.AUTHORS, QuestionType.VENUE})
_CHIT_CHAT = frozenset({"greeting", "thanks", "small_talk"})

_SIMPLE_KINDS = {
    "greeting": IntentKind.GREETING,
    "thanks": IntentKind.THANKS,
    "small_talk": IntentKind.SMALL_TALK,
    "help": IntentKind.HELP,
    "more": IntentKind.MORE,
}


def _understood(
    label: str, clean: str, collections: Sequence[NamedCollection], model: TextClassifier
) -> Intent:
    """The Intent for the classifier's `label`, with what the message points at."""
    if label in _SIMPLE_KINDS:
        return Intent(_SIMPLE_KINDS[label])
    slugs = frozenset(collection.slug for collection in collections)
    # The ids' own venue words ("iclr 2024-5") are not a venue question.
    unnamed = _without(clean, [(start, end) for start, end, _ in find_paper_keys(clean, slugs)])
    if (
        label == "compare"
        and names_a_kind_of_answer(unnamed)
        and question_type(unnamed) in _FACT_TYPES
    ):
        # "which of these have code?" asks each paper one thing; nothing is weighed.
        label = "question"
    if label == "refine":
        searched = _search(clean, collections)
        if searched.collection is None:
            # "2026 papers only": a year alone names every loaded collection of that year.
            by_year = year_collections(searched.query, collections)
            if by_year is not None:
                year_filter, spans = by_year
                searched = replace(
                    searched, collection=year_filter, query=_without(searched.query, spans)
                )
        if searched.collection is None:
            # "same but for iclr" with no ICLR loaded: say so rather than search the words.
            missing = searched.unknown_collection or venue_named(clean)
            if missing and not _topic_words(searched.query, model):
                return Intent(IntentKind.REFINE, unknown_collection=missing)
            return searched
        # "gnn papers from neurips but not about molecules" names a topic of its own: a new
        # search in that collection. "same but for iclr, not about molecules" names none: the
        # last topic again, with only the exclusions as its `query`.
        if _topic_words(searched.query, model):
            return _new_topic(searched, model)
        return _refined(searched)
    if label == "search":
        return _as_search(clean, collections, model)
    if label == "question":
        # Bare numbers in a question are quantities ("at 4 bit"), not positions, except one
        # that opens the message before a comma or colon ("2, does it have code?").
        refs = pointed_at(clean, slugs, loose=False)
        leading = _LEADING_POSITION.match(clean)
        asked = clean
        if leading and all(isinstance(ref, FocusRef) for ref in refs):
            number = int(leading["num"])
            refs = (PositionRef(number - 1) if number else ZeroRef(), *refs)
            asked = clean[leading.end() :]
        elif all(isinstance(ref, FocusRef) for ref in refs):
            # "does 2 have code?", "code for 3?": a number where the paper would stand.
            subject = _NUMBER_AS_PAPER.search(clean)
            group = "num" if subject and subject["num"] else "end"
            # "is it trained for 10?": with "it" there, a final number is a quantity.
            quantity = group == "end" and _PRONOUN.search(clean) is not None
            if subject is not None and int(subject[group]) > 0 and not quantity:
                refs = (PositionRef(int(subject[group]) - 1),)
                asked = _without(clean, [subject.span(group)])
        refs = _anaphora_resolved(refs)
        return Intent(
            IntentKind.QUESTION_ABOUT_PAPER,
            query=question_words(asked, slugs),
            refs=refs or (FocusRef(),),
            implicit_focus=not refs,
            wants_code=patterns.WANTS_CODE.search(clean) is not None,
            question_type=question_type(clean).value,
        )
    refs = pointed_at(clean, slugs, loose=True)
    if label == "open":
        if not refs:
            # "hmm and the 2026 list?": a number that points at no result.
            return _as_search(clean, collections, model)
        return Intent(IntentKind.PAPER, refs=refs)
    if label == "similar":
        # "similar to #4 but only iclr": papers like #4, in ICLR.
        within = _search(clean, collections).collection
        if any(isinstance(ref, IdRef) and ref.key.startswith(f"{within}-") for ref in refs):
            within = None  # "similar to icml2026 6": the id's own collection, not a filter
        return Intent(IntentKind.SIMILAR, refs=refs[:1] or (FocusRef(),), collection=within)
    if label == "compare":
        if len(refs) < 2:
            # "compare seven and nine", "two vs three": numbers where the papers would stand.
            refs = pointed_at(clean, slugs, loose=True, spelled=True)
        if not refs:
            return _search(clean, collections)  # "compare transformers and RNNs"
        if len(refs) == 1 and not isinstance(refs[0], FocusRef) and _single(refs[0]):
            refs = (FocusRef(), *refs)  # "compare it with the third"
        return Intent(IntentKind.COMPARE, refs=refs)
    return _search(clean, collections)  # a label this code does not know: search it


# Chat filler taken out of a searched message (never a topic word; acronyms.FILLER_WORDS).
_FILLER_ALTERNATIVES = "|".join(sorted(FILLER_WORDS, key=len, reverse=True))
_FILLER = re.compile(r"(?<![\w\-'\"])(?:" + _FILLER_ALTERNATIVES + r")(?![\w\-'\"])", re.IGNORECASE)


# "got anything on ...", "you got any papers on ...": asking, not a topic word.
_GOT_ANY = re.compile(
    r"^\W*(?:(?:have |do )?(?:you |u |ya )?got)\s+(?=(?:any|anything|something|stuff|papers?)\b)",
    re.IGNORECASE,
)
_LEADING_POSITION = re.compile(r"^#?\s?(?P<num>\d{1,2})\s?[,:;)]\s", re.IGNORECASE)
_PRONOUN = re.compile(r"\b(?:it|its|they|their|them|this|these)\b", re.IGNORECASE)
# A bare number as a question's subject ("does 2 have code?") or after a final "for" ("code
# for 3?"); elsewhere a number in a question is a quantity ("at 4 bit", "a batch of 32").
_NUMBER_AS_PAPER = re.compile(
    r"\b(?:does|did|do|is|has|was)\s#?(?P<num>\d{1,2})\s(?:have|has|use|uses|release|provide"
    r"|include|report|need|beat|outperform|work|compare|mention|show|evaluate|test|train)\b"
    r"|\bfor\s#?(?P<end>\d{1,2})\s?\??$",
    re.IGNORECASE,
)


def _anaphora_resolved(refs: tuple[Ref, ...]) -> tuple[Ref, ...]:
    """A question's "it" after a paper it names is that paper: "the second one, does it have
    code?" asks about #2 alone, while "is it better than #2?" keeps both."""
    if FocusRef() in refs and refs.index(FocusRef()) > 0:
        return tuple(ref for ref in refs if not isinstance(ref, FocusRef))
    return refs


def _only_collections(clean: str, collections: Sequence[NamedCollection]) -> str | None:
    """The collection filter of a message that names loaded collections and nothing else."""
    named = named_collections(clean, collections)
    if named is None or any(c.isalnum() for c in _without(clean, sorted(named[1]))):
        return None
    return named[0]


def search_in_words(text: str, collections: Sequence[NamedCollection]) -> Intent:
    """`text` read as a search the way chat reads one: a collection named in words ("which ICML
    2026 papers ...") becomes the filter and leaves the query; "but not about X" becomes -X."""
    return _search(normalize(text), collections)


def _single(ref: Ref) -> bool:
    return not isinstance(ref, PositionRef) or ref.count == 1


def _search(
    clean: str, collections: Sequence[NamedCollection], *, exclusions: bool = True
) -> Intent:
    """SEARCH: a leading greeting and a collection named in words are taken out of the query;
    with `exclusions`, "but not about X" becomes -X."""
    text = patterns.LEADING_GREETING.sub("", clean, count=1)
    collection: str | None = None
    unknown: str | None = None
    cuts: list[tuple[int, int]] = []
    phrases = find_venue_years(text)
    protected = _protected(text) if phrases or collections else []
    for start, end, surface, venue in phrases:
        if any(p_start < end and start < p_end for p_start, p_end in protected):
            continue
        loaded = resolve_collection(surface, collections)
        if loaded is not None:
            collection = collection or loaded.slug
        elif venue in patterns.KNOWN_VENUES:
            unknown = unknown or surface
        else:
            continue
        cuts.append(_cut(text, start, end))
    if collection is None and collections:
        for start, end, loaded in find_collection_names(text, collections):
            if any(c_start < end and start < c_end for c_start, c_end in cuts + protected):
                continue
            before = patterns.COLLECTION_BEFORE.search(text, max(0, start - 16), start)
            if before or patterns.COLLECTION_NOUN_AFTER.match(text, end):
                collection = loaded.slug
                cuts.append(_cut(text, start, end))
                break
    if collection is None:
        named = named_collections(text, collections, protected or _protected(text))
        if named is not None:
            venue_cuts = [_cut(text, start, end) for start, end in named[1]]
            rest = _without(text, sorted(cuts + venue_cuts))
            if any(c.isalnum() for c in rest):  # "ICML" alone is a search for it
                collection = named[0]
                cuts += venue_cuts
                unknown = None
    if collection is None and unknown is None:
        by_year = year_as_place(text, collections, protected or _protected(text))
        if by_year is not None:
            collection = by_year[0]
            cuts.append(_cut(text, *by_year[1]))
    if collection is None and unknown is None:
        # "neurips papers on federated learning" with no NeurIPS loaded: said, not searched.
        missing = unloaded_venue(text, protected or _protected(text))
        if missing is not None:
            start, end, unknown = missing
            cuts.append(_cut(text, start, end))
    query = _without(text, sorted(cuts))
    if exclusions:
        query = _excluding(query)
    query = _GOT_ANY.sub("", query, count=1)
    plain = _FILLER.sub(" ", query)
    if any(c.isalnum() for c in plain):  # "pls", "ok so", "lol" around a search are filler
        query = " ".join(plain.split()).strip(" ,;:")
    defines: str | None = None
    definition = patterns.DEFINITION.pattern.fullmatch(query.rstrip(" ?!."))
    if definition is not None:
        term = definition.group("term") or definition.group("term2")
        if not set(term.lower().split()) & _NOT_A_TERM:
            defines = term
            query = term
    return Intent(
        IntentKind.SEARCH,
        query=query,
        collection=collection,
        unknown_collection=unknown,
        defines=defines,
    )


def _cut(text: str, start: int, end: int) -> tuple[int, int]:
    """A collection phrase's span widened by the words that only say where ("in", "'s")."""
    before = patterns.COLLECTION_BEFORE.search(text, max(0, start - 16), start)
    after = patterns.COLLECTION_AFTER.match(text, end)
    return (before.start() if before else start, after.end() if after else end)


def _protected(text: str) -> list[tuple[int, int]]:
    """Spans of query syntax (quotes, in:, -term) that no chat rule may take words from."""
    return [match.span() for match in _PROTECTED.finditer(text.translate(_QUOTES))]


def _without(text: str, cuts: list[tuple[int, int]]) -> str:
    pieces: list[str] = []
    position = 0
    for start, end in cuts:
        pieces.append(text[position:start])
        position = max(position, end)
    pieces.append(text[position:])
    joined = " ".join(" ".join(pieces).split())
    return joined.strip(" ,;:").strip()


# "but not about molecules", "excluding vision", "except for RL": words the user wants left out,
# searched as the query syntax's -word (retrieval/query.py) instead of as topic words.
_EXCLUSION = re.compile(
    r"(?:,\s*)?(?<![\w\-])(?:(?:but|and) not|not (?:about|on|involving|using)|excluding"
    r"|except(?: for)?|other than)(?: (?:about|on|with|using|involving|the|any))*"
    r" (?P<what>[^\s,;.!?\-\"][^\s,;.!?\"]*"
    r"(?: (?!(?:but|in|from|at|for|with|that|which|who|where|when|to|using)\b)[^\s,;.!?\"]+)"
    r"{0,4})",
    re.IGNORECASE,
)
# "molecules or proteins": two exclusions; "vision models": one phrase.
_ALTERNATIVES = re.compile(r"\s+(?:or|and|nor)\s+", re.IGNORECASE)
# How a refine starts ("same but", "same query but"): not searched when it names a topic.
# ("what about", "now" are stop words: ranking ignores them anyway.)
_REFINE_LEAD = re.compile(
    r"^(?:(?:ok|okay|and|so|now|then)[, ]+)*(?:the )?same(?: (?:query|search|thing|question))?"
    r"(?:,? but)?(?![\w-])",
    re.IGNORECASE,
)
# Words a refine is made of besides its collection: "same but for iclr", "what about those in
# neurips", "now only icml 24". Anything else is a topic of its own.
_REFINE_WORDS = patterns.words(
    "same but for what about how now only just instead also again the a an thing things one ones "
    "wait meant mean sorry oops actually oh hmm no rather i make switch change to "
    "paper papers result results search query those these them that this it question do "
    "please pls show me find give list any there with and or of on in at from by to too as "
    "ok okay so then well let's lets try check look switch like more stuff "
    "conference venue collection proceedings"
)


def _excluding(query: str) -> str:
    """`query` with exclusions in words written as the query syntax's: "but not about molecules
    or proteins" -> -molecules -proteins, "excluding vision models" -> -"vision models"."""
    if not query or _EXCLUSION.search(query) is None:
        return query
    protected = _protected(query)

    def minus(match: re.Match[str]) -> str:
        if any(start < match.end() and match.start() < end for start, end in protected):
            return match.group(0)
        excluded = []
        for part in _ALTERNATIVES.split(match.group("what")):
            words = part.split()
            while words and words[0].lower() in STOPWORDS:
                words.pop(0)
            while words and words[-1].lower() in STOPWORDS:
                words.pop()
            if len(words) == 1:
                excluded.append(f"-{words[0]}")
            elif words:
                excluded.append(f'-"{" ".join(words)}"')
        return " " + " ".join(excluded) if excluded else match.group(0)

    return " ".join(_EXCLUSION.sub(minus, query).split())


def as_search(text: str, collections: Sequence[NamedCollection]) -> Intent:
    """`text` read as a search, as the parser reads a message its classifier calls one."""
    return _as_search(normalize(text), collections, shipped_model())


def _as_search(clean: str, collections: Sequence[NamedCollection], model: TextClassifier) -> Intent:
    """`clean` searched, except that a collection and no topic ("iclr 2024 papers", "and the
    2026 list?") is the last topic there."""
    searched = _search(clean, collections)
    if searched.collection and not _topic_words(searched.query, model):
        return _refined(searched)
    return _new_topic(searched, model) if searched.collection else searched


def _refined(searched: Intent) -> Intent:
    """The last topic again in `searched`'s collection, with only its exclusions as `query`."""
    exclusions = " ".join(word for word in searched.query.split() if word.startswith("-"))
    return replace(searched, kind=IntentKind.REFINE, query=exclusions)


def _new_topic(searched: Intent, model: TextClassifier) -> Intent:
    """A search in a collection said as a refine ("same query but neurips, about diffusion"):
    the refine's lead words are not searched."""
    topic = _REFINE_LEAD.sub("", searched.query, count=1).strip(" ,;:")
    return replace(searched, query=topic) if _topic_words(topic, model) else searched


def _topic_words(query: str, model: TextClassifier) -> list[str]:
    """The words of a refine's query that name a topic: not refine words, exclusions, numbers
    (a year alone names no topic) or words the fitted model reads as refining rather than
    searching ("restrict", "narrow": the training data decides, not a list)."""
    return [
        word
        for word in re.findall(r"[\w\-']+", query.lower())
        if not word.startswith("-")
        and not word.isdigit()
        and word not in _REFINE_WORDS
        and word not in STOPWORDS
        and model.leaning(word, "refine", "search") <= 0.0
    ]
