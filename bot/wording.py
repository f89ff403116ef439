"""What paperbot says in chat, in one place for the Discord bot and the terminal console.

The engine returns data (a `Reply`, an error with fields); the sentences people read are here.
`command` is how the shell names its commands: "/search" in Discord, "search" in a terminal.
"""

from __future__ import annotations

import re
import zlib
from collections.abc import Callable

from retrieval.conversation import (
    IntentKind,
    NoPaperInFocus,
    NoRecentAnswer,
    PositionOutOfRange,
    PositionRef,
)
from retrieval.conversation.chat import PaperNote, Reply, ReplyKind
from retrieval.conversation.errors import (
    NoAuthorSearch,
    NoEarlierList,
    NoMoreResults,
    NumberedFromOne,
)
from retrieval.conversation.help_topics import HelpTopic
from retrieval.conversation.intents import weighs_them
from retrieval.errors import CollectionNotFound, PaperbotError, PaperNotFound, id_format
from retrieval.models import Answer, Excerpt
from retrieval.paper_answers import QuestionType

EXAMPLE_QUESTION = "which papers attack RAG retrievers?"
# A lead sentence's source is named with at most this much of its label.
LEAD_LABEL_MAX = 60
NO_MATCH = "No paper matches that question."
_ORDINALS = ("First", "Second", "Third", "Fourth", "Fifth", "Sixth", "Seventh", "Eighth", "Ninth")


def plural(count: int, noun: str, plural_form: str | None = None) -> str:
    """'1 file', '2 files', '1 matching paper'."""
    word = noun if count == 1 else (plural_form or f"{noun}s")
    return f"{count:,} {word}"


NO_SENTENCE = "(no sentence of it matches the question)"
NOT_SAID = "(the abstract does not say)"


def matching_count(answer: Answer) -> str:
    """The footer's count, only as strong as it can defend: '31 matching papers (12 with every
    word)' when some results hold only some of the question's words."""
    total, every = answer.total, answer.total_all
    counted = plural(total, "matching paper")
    if every is None or every >= total:
        return counted
    return f"{counted} ({'none' if every == 0 else f'{every:,}'} with every word)"


def shown_range(answer: Answer) -> str:
    """The ranks an answer shows, as numbered: '4-8', or '1' for one result (not '1-1')."""
    if not answer.hits:
        return ""
    first, last = answer.hits[0].rank, answer.hits[-1].rank
    return str(first) if first == last else f"{first}-{last}"


def results_line(answer: Answer) -> str:
    """The footer's head in both shells: '4-8 of 31 matching papers (12 with every word)', the
    ranks this message shows, so a page never reads as another ("Page 1/10" over results 4-8)."""
    shown = shown_range(answer)
    return f"{shown} of {matching_count(answer)}" if shown else matching_count(answer)


def searched_in(answer: Answer) -> str:
    """' · in ICLR 2024' for an answer filtered to collections ("same but for iclr"), else ''."""
    names = answer.query.collections
    return f" · in {', '.join(names)}" if names else ""


def coverage_lines(answer: Answer, quote: Callable[[str], str]) -> list[str]:
    """Words of the question no paper mentions, and the correction offered for each misspelling:
    'No paper mentions “protein”.', '“hallucinaton” → hallucination? (no paper mentions it)'.
    Said once per question, on its first page: "more" shows the same question's next results."""
    if answer.hits and answer.hits[0].rank > 1:
        return []
    corrected = dict(answer.corrections)
    missing = [word for word in answer.unmatched if word not in corrected]
    lines = []
    if missing:
        words = " or ".join(quote(word) for word in missing)
        lines.append(f"No paper mentions {words}; these papers match the other words.")
    for typed, word in answer.corrections:
        lines.append(f"{quote(typed)} → {word}? (no paper mentions {quote(typed)})")
    if answer.absent_here:
        words = " or ".join(quote(word) for word in answer.absent_here)
        lines.append(f"No paper in the collections searched mentions {words}.")
    return lines


# What a question about a paper asked for, as a heading.
QUESTION_HEADINGS = {
    QuestionType.DATASET: "Data sets and benchmarks",
    QuestionType.RESULT: "Main result",
    QuestionType.METHOD: "Method",
    QuestionType.PROBLEM: "Problem",
    QuestionType.LIMITATIONS: "Limitations",
    QuestionType.CODE: "Code",
    QuestionType.AUTHORS: "Authors",
    QuestionType.VENUE: "Venue",
    QuestionType.SUMMARY: "Summary",
    QuestionType.OTHER: "From the abstract",
}
COMPARE_ROWS = ("Proposes", "Evaluated on", "Result")


def about_lines(note: PaperNote, excerpt: Callable[[Excerpt], str]) -> list[str]:
    """What one paper's abstract says to a question: its answering sentences or a statement."""
    about = note.about
    if about is None:
        return [excerpt(note.sentence)] if note.sentence is not None else [NO_SENTENCE]
    return (
        ([about.preface] if about.preface else [])
        + [excerpt(sentence) for sentence in about.sentences]
        + ([about.statement] if about.statement else [])
    )


NO_VERDICT = (
    "The abstracts give no verdict between them: each reports its own results, in its own "
    "setting. Their results are side by side below."
)


def verdict_line(reply: Reply) -> str | None:
    """For "which one is better?" after a comparison, the line that says why there is no
    verdict (a newcomer took the same table shown again for a non-answer)."""
    return NO_VERDICT if weighs_them(reply.intent.message) else None


def compare_rows(note: PaperNote) -> list[tuple[str, Excerpt | None]]:
    """A compared paper's rows, in `COMPARE_ROWS` order (None: the abstract does not say)."""
    sides = note.aspects
    if sides is None:
        return [(COMPARE_ROWS[0], note.sentence)]
    return list(zip(COMPARE_ROWS, (sides.proposes, sides.evaluated_on, sides.result), strict=True))


# Small talk gets a line that fits what was said, picked by a stable hash of the message (so
# the same message always gets the same line, and tests stay deterministic).
FAREWELLS = ("Bye! Come back when you need a paper.", "See you! Happy reading.")
_ACKNOWLEDGED = re.compile(
    r"(?:ok(?:ay)?|k|kk|cool|nice|great|good|alright|all right|got it|i see|sure|fine|neat"
    r"|perfect|awesome|right|makes sense|understood|noted|wow|interesting|hmm+|oh|ah"
    # "yes" or "no" with no question pending (a pending "Did you mean" takes "yes" first).
    r"|yes|yeah|yep|yup|no|nope|nah|no thanks)"
    r"(?:[ ,]+(?:cool|thanks|then|nice|great|got it|i see))*",
    re.IGNORECASE,
)
_HOW_ARE_YOU = re.compile(
    r"\b(?:how (?:are|r) (?:you|u|ya)|how'?s it going|how are things|how do you do|what'?s up"
    r"|wh?at'?s new|sup|how have you been|you ok|how'?s your day)\b",
    re.IGNORECASE,
)
# Laughter and reactions ("lol nice", "haha", "😂"): answered lightly, never "that's beyond me".
_REACTION = re.compile(r"\b(?:lol|lmao|rofl|ha(?:ha)+|he(?:he)+|xd)\b|[😂🤣😄😆😅]", re.IGNORECASE)
REACTIONS = (
    "😄 Glad you're enjoying it. Anything else to look up?",
    "Ha! Say “more” for the next results, or ask something new.",
)
# Praise and complaints about the bot itself: thanked, or asked for another try.
_PRAISE = re.compile(
    r"\b(?:(?:you(?:'re| are)|ur|u r) (?:(?:so|really|pretty|very) )?(?:great|awesome|amazing"
    r"|the best|helpful|smart|brilliant|cool|good|fantastic|a lifesaver)|good (?:bot|job|work)"
    r"|great (?:bot|job|work)|nice (?:bot|job|work)|well done|love (?:it|this|you)|best bot)\b",
    re.IGNORECASE,
)
_COMPLAINT = re.compile(
    r"\b(?:(?:you(?:'re| are)|ur|u r|this is|that'?s|that was) (?:(?:so|really|pretty|very) )?"
    r"(?:useless|dumb|stupid|bad|terrible|awful|wrong|garbage|rubbish|not helpful|unhelpful)"
    r"|bad bot|this sucks|you suck|doesn'?t work|not what i (?:asked|wanted|meant))\b",
    re.IGNORECASE,
)
PRAISE = (
    "Thank you! 😊 What else can I find for you?",
    "Glad to help! Ask me about any topic whenever you like.",
)
COMPLAINTS = (
    "Sorry about that. Try the question in other words, or say “help” to see what I can do.",
    "Sorry! Tell me what you were looking for in other words, or name a paper id.",
)
ACKNOWLEDGEMENTS = (
    "👍 Ask away whenever you're ready.",
    "Sure. What should I look up next?",
    "Okay! Say “more” for the next results, or ask something new.",
)
HOW_ARE_YOU = (
    "Doing well, thanks! Ready to dig through some papers. What are you looking for?",
    "All good here, just indexing abstracts. What topic should I search?",
    "I'm great, thanks for asking! Which papers can I find for you?",
)
CHIT_CHAT = (
    f"I'm a paper finder, so that's beyond me. Try: “{EXAMPLE_QUESTION}”",
    "I only know research abstracts, I'm afraid. Ask me about a topic, e.g. “diffusion models "
    "for video”.",
    "Noted! I'm better at papers than at chat: try “graph neural networks oversmoothing”.",
)


def _pick(lines: tuple[str, ...], message: str) -> str:
    return lines[zlib.crc32(message.lower().encode()) % len(lines)]


def small_talk(reply: Reply, *, console: bool = False) -> str:
    """Greetings, thanks, chit-chat, goodbyes; `console` for the terminal, where there is no
    message to reply to: follow-ups are typed at the prompt."""
    message = reply.intent.message
    if reply.intent.farewell:
        return _pick(FAREWELLS, message)
    if reply.kind is ReplyKind.GREETING:
        return f"Hi! Ask me about papers, e.g. “{EXAMPLE_QUESTION}”"
    if reply.kind is ReplyKind.THANKS:
        if console:
            return "Glad it helped! Type “the second one” or “more like it” to follow up."
        return "Glad it helped! Reply to an answer with “the second one” or “more like it”."
    words = message.strip(" .!?😀🙂👍").lower()
    if _ACKNOWLEDGED.fullmatch(words):
        return _pick(ACKNOWLEDGEMENTS, message)
    if _HOW_ARE_YOU.search(words):
        return _pick(HOW_ARE_YOU, message)
    if _COMPLAINT.search(words):
        return _pick(COMPLAINTS, message)
    if _PRAISE.search(words):
        return _pick(PRAISE, message)
    if _REACTION.search(message):
        return _pick(REACTIONS, message)
    return _pick(CHIT_CHAT, message)


def similar_heading(answer: Answer) -> str:
    """'Papers like icml2026-13 (Eyes-on-Me: a modular attack):' above a list of similar papers
    (the engine's question for it). Only the first letter is raised: str.capitalize() would
    lower-case the label."""
    question = answer.question
    return f"{question[:1].upper()}{question[1:]}:"


def lead_source(answer: Answer) -> str | None:
    """'From #3 (label)' when the lead sentence is not the top result's, else None: a quote
    above the list reads as the first result's unless it says otherwise."""
    if answer.lead_paper_id is None or not answer.hits:
        return None
    if answer.hits[0].paper.id == answer.lead_paper_id:
        return None
    for hit in answer.hits:
        if hit.paper.id == answer.lead_paper_id:
            label = hit.paper.display_title
            label = label if len(label) <= LEAD_LABEL_MAX else label[: LEAD_LABEL_MAX - 1] + "…"
            return f"From #{hit.rank} ({label})"
    return f"From {answer.lead_paper_id}"


def corrected_line(corrected: tuple[tuple[str, str], ...], quote: Callable[[str], str]) -> str:
    """'Searched for “generation” instead of “genration”, which no paper mentions.'"""
    pairs = " and ".join(f"{quote(word)} instead of {quote(typed)}" for typed, word in corrected)
    which = "which no paper mentions" if len(corrected) == 1 else "words no paper mentions"
    return f"Searched for {pairs}, {which}."


def problem(error: PaperbotError, reply: Reply | None = None) -> str:
    """One line for a question that cannot be answered as asked."""
    if isinstance(error, NoRecentAnswer) and _about_a_paper(reply):
        return (
            "Which paper? Ask for papers first and open one (“the first one”), or name one: "
            "“what's the main result of icml2026-7?”"
        )
    if isinstance(error, NoRecentAnswer) and reply and reply.intent.kind is IntentKind.COMPARE:
        return (
            "Compare which papers? Ask for papers first, then “compare 1 and 2”, or name them: "
            "“compare icml2026-3 and icml2026-9”."
        )
    if isinstance(error, NoRecentAnswer):
        what = _referent(reply)
        lead = f"{what} of what?" if what else "I have no recent answer to point into."
        if error.stale:
            return f"{lead} My last answer here is too old; ask a question first."
        return f"{lead} Ask a question first."
    if isinstance(error, PositionOutOfRange) and error.reach is not None:
        return (
            f"A number opens results up to #{error.reach} of a list; #{error.wanted} is further. "
            "Say “more” to page on, or narrow the question."
        )
    if isinstance(error, PositionOutOfRange) and not error.exhausted:
        return (
            f"Only results {error.first}-{error.available} have been shown; pick one of those, "
            "or say “more”."
        )
    if isinstance(error, PositionOutOfRange):
        return (
            f"There {'was' if error.available == 1 else 'were'} only "
            f"{plural(error.available, 'result')}; pick a number from {error.first} "
            f"to {error.available}."
        )
    if isinstance(error, NoMoreResults):
        return (
            f"That was all: {plural(error.total, 'result')}"
            f"{', every one shown' if error.total > 1 else ''}. "
            "Ask something new, or “similar 1” for papers like one of them."
        )
    if isinstance(error, NumberedFromOne):
        return "Results are numbered from 1; try #1."
    if isinstance(error, NoAuthorSearch):
        return (
            f"I can't search by author yet (“{error.name}”): I find papers by what their "
            "abstracts say. Ask for the topic they work on; an opened paper shows its authors "
            "when its list has them."
        )
    if isinstance(error, NoEarlierList):
        return "There is no earlier list in this conversation to go back to."
    if isinstance(error, NoPaperInFocus):
        return "Which one? Say “the first one”, a number, or a paper id."
    if isinstance(error, PaperNotFound):
        if error.ids_range:
            return f"No paper has the id `{error.paper_id}`. {error.ids_range}"
        close = ", ".join(f"`{paper_id}`" for paper_id in error.closest)
        hint = f" Closest: {close}." if close else ""
        if not close and error.example:
            hint = f" {id_format(error.example)}"
        return f"No paper has the id `{error.paper_id}`.{hint}"
    if isinstance(error, CollectionNotFound):
        return str(error)
    return str(error)


def no_match_lines(
    suggestion: str | None,
    *,
    example: str,
    within: tuple[str, ...] = (),
    unknown: tuple[str, ...] = (),
) -> list[str]:
    """What to say when nothing matched, once: the words no paper mentions (`unknown`, quoted
    by the shell) or the sentence naming the collections searched, a did-you-mean, one example.

    `suggestion` and `example` arrive formatted for the shell (bold and code in Discord).
    """
    if unknown and not within:
        lines = [f"No paper mentions {' or '.join(unknown)}."]
    else:
        lines = [f"No paper in {', '.join(within)} matches that question." if within else NO_MATCH]
    if suggestion:
        lines.append(f"Did you mean {suggestion}?")
    lines.append(f"Or try an example: {example}")
    return lines


def unknown_collection(name: str) -> str:
    return f"No collection called “{name}” is loaded, so this answer covers all papers."


def _about_a_paper(reply: Reply | None) -> bool:
    return reply is not None and reply.intent.kind is IntentKind.QUESTION_ABOUT_PAPER


def _referent(reply: Reply | None) -> str | None:
    """'Second' for "the second one": the word the user's reference used, if positional."""
    if reply is None or reply.intent.kind is IntentKind.MORE:
        return "More" if reply is not None else None
    for ref in reply.intent.refs:
        if isinstance(ref, PositionRef) and ref.count == 1 and 0 <= ref.index < len(_ORDINALS):
            return _ORDINALS[ref.index]
    return None


# The follow-ups a conversation understands, for both shells' guides (the console's `help` and
# Discord's `/help`, which chat "how do I use this?" shows): examples, then what they do.
FOLLOW_UPS: tuple[tuple[tuple[str, ...], str], ...] = (
    (("the second one", "#5", "2"), "that paper in full (numbers as shown, across pages)"),
    (("more", "5 more", "top 10"), "the next results, or more at once"),
    (("similar 2", "more like it"), "papers like that one"),
    (("go back",), "the list shown before this one"),
    (("compare 1 3", "1 vs 2"), "papers side by side: what each proposes, data, result"),
    (
        ("what's the main result?", "which datasets?", "does it have code?"),
        "a question about the paper in focus (data sets, method, problem, limitations, code, "
        "authors, venue)",
    ),
    (("same but for iclr",), "the last question in another collection"),
)


# What a help request about one feature is told first, per shell; the full guide follows.
_TOPIC_DISCORD: dict[HelpTopic, str] = {
    HelpTopic.EXPORT: "**Exports**: `/saved export:` your reading list as BibTeX, CSV or "
    "Markdown; `/shortlist export` this server's shared list.",
    HelpTopic.WATCH: "**Watches**: `/watch query:` announces new papers that match, by DM "
    "(or in a channel with `channel:`); `/watches` lists them, `/unwatch` stops one.",
    HelpTopic.SAVE: "**Saving**: press **Save** under a paper or `/save id`; `/saved` shows "
    "your list; `/shortlist add` shares a paper with this server.",
    HelpTopic.FILTER: "**Collections**: name one in words (“neurips papers on …”, “icml 24”) "
    "or add `in:icml2026` to a search; after an answer, “same but for iclr”. "
    "`/collections` lists what is loaded.",
    HelpTopic.COMPARE: "**Compare**: after an answer, “compare 1 and 3” or “1 vs 2” puts the "
    "papers side by side: what each proposes, on what data, with what result.",
    HelpTopic.SIMILAR: "**Similar papers**: “similar 2”, “more like it” or `/similar id`.",
    HelpTopic.MORE: "**More results**: say “more” (or press **Next**), “5 more” or “show me "
    "10 results”; numbers continue across pages, so “#5” works after “more”; “go back” shows "
    "the list before.",
    HelpTopic.QUESTIONS: "**Questions about a paper**: after opening one, ask “any code?”, "
    "“which datasets?”, “what's the main result?”; or name it: “does 2 have code?”.",
    HelpTopic.PRIVACY: "**Privacy**: `/privacy` says what is kept and for how long; "
    "`/forget-me` deletes everything kept about you.",
}
_TOPIC_CONSOLE: dict[HelpTopic, str] = {
    **_TOPIC_DISCORD,
    HelpTopic.EXPORT: "Exports: `paperbot export papers --collection icml2026 --format bibtex "
    "-o papers.bib` (jsonl, csv, md, bibtex); `paperbot export saved USER_ID` for a reading "
    "list saved in Discord.",
    HelpTopic.WATCH: "Watches: `paperbot watch add QUERY` prints new matching papers after "
    "each `paperbot ingest`; `paperbot watch list`, `paperbot watch remove`.",
    HelpTopic.SAVE: "Saving papers is a Discord feature (the Save button, /save); here, "
    "`paperbot export papers` writes papers to a file.",
    HelpTopic.FILTER: "Collections: name one in words (“neurips papers on …”, “icml 24”) or "
    "add in:icml2026 to a question; after an answer, “same but for iclr”. `collections` "
    "lists what is loaded.",
    HelpTopic.PRIVACY: "Privacy: this console keeps its conversation in the local database "
    "only; in Discord, /privacy says what is kept and /forget-me deletes it.",
}


def help_topic_line(topic: HelpTopic | None, *, console: bool) -> str | None:
    """The answer to a help request about one feature, in the shell's own commands."""
    if topic is None:
        return None
    if console:  # a terminal shows no Markdown bold
        return _TOPIC_CONSOLE[topic].replace("**", "")
    return _TOPIC_DISCORD[topic]
