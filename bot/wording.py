"""What paperbot says in chat, in one place for the Discord bot and the terminal console.

The engine returns data (a `Reply`, an error with fields); the sentences people read are here.
`command` is how the shell names its commands: "/search" in Discord, "search" in a terminal.
"""

from __future__ import annotations

from collections.abc import Callable

from retrieval.conversation import (
    IntentKind,
    NoPaperInFocus,
    NoRecentAnswer,
    PositionOutOfRange,
    PositionRef,
)
from retrieval.conversation.chat import Reply, ReplyKind
from retrieval.errors import CollectionNotFound, PaperbotError, PaperNotFound
from retrieval.models import Answer

EXAMPLE_QUESTION = "which papers attack RAG retrievers?"
NO_MATCH = "No paper matches that question."
_ORDINALS = ("First", "Second", "Third", "Fourth", "Fifth", "Sixth", "Seventh", "Eighth", "Ninth")


def plural(count: int, noun: str, plural_form: str | None = None) -> str:
    """'1 file', '2 files', '1 matching paper'."""
    word = noun if count == 1 else (plural_form or f"{noun}s")
    return f"{count:,} {word}"


def matching_count(answer: Answer) -> str:
    """The footer's count, only as strong as it can defend: '12 papers matching every word ·
    also 19 matching some' when some results hold only some of the question's words."""
    total, every = answer.total, answer.total_all
    if every is None or every >= total:
        return plural(total, "matching paper")
    if every == 0:
        return f"{plural(total, 'paper')} matching some words (none matches all)"
    return f"{plural(every, 'paper')} matching every word · also {total - every:,} matching some"


def coverage_lines(answer: Answer, quote: Callable[[str], str]) -> list[str]:
    """Words of the question no paper mentions, and the correction offered for each misspelling:
    'No paper mentions “protein”.', '“hallucinaton” → hallucination? (no paper mentions it)'."""
    corrected = dict(answer.corrections)
    missing = [word for word in answer.unmatched if word not in corrected]
    lines = []
    if missing:
        words = " or ".join(quote(word) for word in missing)
        lines.append(f"No paper mentions {words}; these papers match the other words.")
    for typed, word in answer.corrections:
        lines.append(f"{quote(typed)} → {word}? (no paper mentions {quote(typed)})")
    return lines


def small_talk(reply: Reply) -> str:
    if reply.kind is ReplyKind.GREETING:
        return f"Hi! Ask me about papers, e.g. “{EXAMPLE_QUESTION}”"
    if reply.kind is ReplyKind.THANKS:
        return "Glad it helped! Reply to an answer with “the second one” or “more like it”."
    return f"I'm a paper finder. Try: “{EXAMPLE_QUESTION}”"


def problem(error: PaperbotError, reply: Reply | None = None) -> str:
    """One line for a question that cannot be answered as asked."""
    if isinstance(error, NoRecentAnswer):
        what = _referent(reply)
        lead = f"{what} of what?" if what else "I have no recent answer to point into."
        if error.stale:
            return f"{lead} My last answer here is too old; ask a question first."
        return f"{lead} Ask a question first."
    if isinstance(error, PositionOutOfRange):
        return (
            f"There {'was' if error.available == 1 else 'were'} only "
            f"{plural(error.available, 'result')}; pick a number from 1 to {error.available}."
        )
    if isinstance(error, NoPaperInFocus):
        return "Which one? Say “the first one”, a number, or a paper id."
    if isinstance(error, PaperNotFound):
        close = ", ".join(f"`{paper_id}`" for paper_id in error.closest)
        hint = f" Closest: {close}." if close else ""
        return f"No paper has the id `{error.paper_id}`.{hint}"
    if isinstance(error, CollectionNotFound):
        return str(error)
    return str(error)


def no_match_lines(suggestion: str | None, *, example: str) -> list[str]:
    """What to say when nothing matched, once: the sentence, a did-you-mean, one example.

    `suggestion` and `example` arrive formatted for the shell (bold and code in Discord).
    """
    lines = [NO_MATCH]
    if suggestion:
        lines.append(f"Did you mean {suggestion}?")
    lines.append(f"Or try an example: {example}")
    return lines


def unknown_collection(name: str) -> str:
    return f"No collection called “{name}” is loaded, so this answer covers all papers."


def _referent(reply: Reply | None) -> str | None:
    """'Second' for "the second one": the word the user's reference used, if positional."""
    if reply is None or reply.intent.kind is IntentKind.MORE:
        return "More" if reply is not None else None
    for ref in reply.intent.refs:
        if isinstance(ref, PositionRef) and ref.count == 1 and 0 <= ref.index < len(_ORDINALS):
            return _ORDINALS[ref.index]
    return None
