"""The chat service: a message and its conversation's memory in, a structured reply out.

Every shell (Discord mentions and DMs, `/ask`, the terminal console) calls `ChatService.handle`
so they understand messages the same way; they only word and render the `Reply`. Memory is
kept in the store (per user and channel, per DM, and per sent answer message, so a reply to an
older answer resolves against that answer) and is never used once it is older than the idle
limit, except through an explicit reply to the message that showed it.
"""

from __future__ import annotations

import asyncio
import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from enum import Enum

from retrieval import text as analysis
from retrieval.answering import corrected_question
from retrieval.api import ChatEngine, ConversationMemory
from retrieval.conversation import patterns
from retrieval.conversation.classifier import shipped_model
from retrieval.conversation.entities import pointed_at
from retrieval.conversation.errors import (
    ConversationError,
    NoAuthorSearch,
    NoEarlierList,
    NoMoreResults,
    NoPaperInFocus,
    NoRecentAnswer,
    PositionOutOfRange,
)
from retrieval.conversation.intents import (
    SURE_HELP,
    as_search,
    fold,
    parse_message,
    weighs_them,
)
from retrieval.conversation.memory import (
    ConversationState,
    PageRequest,
    compared_in,
    focus_on,
    next_page,
    next_state,
    resolve_refs,
)
from retrieval.conversation.model import ALL, FocusRef, Intent, IntentKind, PositionRef
from retrieval.conversation.question_or_search import Context, asks_about_the_paper
from retrieval.errors import CollectionNotFound, PaperbotError
from retrieval.links import code_links
from retrieval.models import Answer, Excerpt, Paper
from retrieval.paper_answers import (
    AboutPaper,
    Aspects,
    QuestionType,
    about_the_paper,
    answer_about,
    asks_for_its_code,
    asks_for_papers,
    aspects,
    is_question,
    names_a_kind_of_answer,
    names_the_paper,
    points_at_the_paper,
    question_type,
)

# A search the classifier is unsure of does not replace the list the user may still point into.
UNSURE_SEARCH = 0.5
_WORD = re.compile(r"[\w'-]+")
# Nouns that say "papers about", never a topic or chat word of their own.
_PAPER_NOUNS = frozenset({"paper", "papers", "work", "works", "articles", "abstracts", "studies"})
# Chit-chat the classifier is this sure of is never searched, whatever words it holds.
SURE_CHIT_CHAT = 0.95
# A question with no paper to be about is help when the classifier gave help at least this much.
MAYBE_HELP = 0.3
# "#12" after 6 shown fetches the results up to it, up to this number.
MAX_REACH = 50

Clock = Callable[[], float]


class ReplyKind(Enum):
    GREETING = "greeting"
    THANKS = "thanks"
    SMALL_TALK = "small_talk"
    HELP = "help"
    ANSWER = "answer"  # a ranked page: a search, "more", or similar papers
    PAPERS = "papers"  # one or more papers shown in full ("icml2026-13", "the second one")
    PAPER_QUESTION = "paper_question"  # the best sentences of papers for a question about them
    COMPARE = "compare"  # papers side by side, each with its best sentence
    PROBLEM = "problem"  # a reference or id that could not be resolved: `error` says why


@dataclass(frozen=True, slots=True)
class PaperNote:
    """A paper with what the reply says about it: the answer to a question about it (`about`),
    its proposal, data and result for a comparison (`aspects`), or its best sentence."""

    paper: Paper
    sentence: Excerpt | None = None
    about: AboutPaper | None = None
    aspects: Aspects | None = None


@dataclass(frozen=True)
class Reply:
    kind: ReplyKind
    intent: Intent
    answer: Answer | None = None
    papers: tuple[PaperNote, ...] = ()
    error: PaperbotError | None = None
    # A loaded-collection miss ("ICML 2019"): answered over everything, and the shell says so.
    unknown_collection: str | None = None
    # (typed, searched instead) for misspelt words no paper uses: the answer is the corrected
    # search, said once; "more" pages the corrected query, so it is not said again.
    corrected: tuple[tuple[str, str], ...] = ()
    state: ConversationState | None = field(default=None, repr=False)

    @property
    def paper_ids(self) -> tuple[str, ...]:
        """What this reply showed, in order: what "the second one" will mean next."""
        if self.answer is not None:
            return tuple(hit.paper.id for hit in self.answer.hits)
        return tuple(note.paper.id for note in self.papers)


@dataclass(frozen=True, slots=True)
class Conversation:
    """Who is talking where: `scope` is "dm:<user>" or "<channel>:<user>"."""

    user_id: int
    scope: str

    @classmethod
    def of(cls, user_id: int, channel_id: int | None) -> Conversation:
        scope = f"dm:{user_id}" if channel_id is None else f"{channel_id}:{user_id}"
        return cls(user_id, scope)


@dataclass(slots=True)
class _Turn:
    """A conversation's lock and how many of its messages hold or wait for it."""

    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    waiting: int = 0


class ChatService:
    def __init__(
        self,
        engine: ChatEngine,
        memory: ConversationMemory,
        *,
        idle_seconds: float,
        page_size: int,
        clock: Clock = time.time,
    ) -> None:
        self._engine = engine
        self._memory_store = memory
        self._idle = idle_seconds
        self._page_size = page_size
        self._clock = clock
        # One message at a time per conversation, in arrival order: "the first one" typed while
        # the question before it is still being answered waits for that answer's list.
        self._turns: dict[str, _Turn] = {}

    async def handle(self, text: str, who: Conversation, *, reply_to: int | None = None) -> Reply:
        """Understand `text` and answer it. A reply to one of the bot's messages resolves
        positions and "it" against that message's answer. Raises PaperbotError only for what
        the engine refuses (a bad query); reference problems come back as PROBLEM replies.
        Messages of one conversation are answered one after another, in the order they came."""
        turn = self._turns.setdefault(who.scope, _Turn())
        turn.waiting += 1
        try:
            async with turn.lock:
                return await self._handle(text, who, reply_to)
        finally:
            turn.waiting -= 1
            if turn.waiting == 0:
                del self._turns[who.scope]  # nobody waiting: no lock is kept per idle user

    async def is_follow_up(self, text: str, who: Conversation | None = None) -> bool:
        """True if `text` reads as a step in the conversation that runs no new search (open a
        result, page, ask about a paper, compare, chit-chat): shells may spare it their question
        quota. A guess; `handle` still decides. With `who`, a question that names no paper
        ("routing?") is a new search when `who` has no paper open, as `handle` will read it."""
        intent = parse_message(text, await self._engine.loaded_collections())
        if not text.strip() or intent.kind in _NEW_SEARCHES:
            return False
        if (
            who is not None
            and intent.kind is IntentKind.QUESTION_ABOUT_PAPER
            and intent.implicit_focus
        ):
            state, max_idle = await self._memory(who, None)
            return await self._open_paper(state, max_idle) is not None
        return True

    async def _handle(self, text: str, who: Conversation, reply_to: int | None) -> Reply:
        intent = parse_message(text, await self._engine.loaded_collections())
        state, max_idle = await self._memory(who, reply_to)
        intent = await self._in_context(intent, state, max_idle)
        try:
            reply = await self._answer(intent, state, max_idle)
        except (NoRecentAnswer, NoPaperInFocus) as error:
            if (
                intent.kind is IntentKind.QUESTION_ABOUT_PAPER
                and intent.help_probability >= MAYBE_HELP
                and all(isinstance(ref, FocusRef) for ref in intent.refs)
                and question_type(intent.message) is not QuestionType.SUMMARY
            ):
                # "how does this work?" with no paper open can only be about the bot; "can you
                # summarize it?" asks which paper.
                return await self._answer(replace(intent, kind=IntentKind.HELP), state, max_idle)
            if _asks_about_a_paper(intent):
                # "what's the main result?" with nothing open: which paper, not a search for
                # the words "main result".
                return Reply(ReplyKind.PROBLEM, intent, error=error)
            if intent.implicit_focus and intent.message:
                # A question that names no paper, with none in focus ("what is the weather in
                # paris"), is not about a paper: search it rather than ask "which one?". The
                # intent stays what the classifier read, as for "which one is faster?" below.
                reply = await self._search(replace(intent, query=intent.message), state)
            elif isinstance(error, NoPaperInFocus):
                return Reply(ReplyKind.PROBLEM, intent, error=error)
            elif intent.kind in _SEARCHABLE and intent.message:
                # "which one is faster?" with nothing to point into is a question to search;
                # "iclr" with no question to rerun is a search for what was typed, there.
                searched = replace(intent, query=intent.message)
                if intent.kind is IntentKind.REFINE:
                    searched = replace(searched, kind=IntentKind.SEARCH)
                reply = await self._search(searched, state)
            else:
                return Reply(ReplyKind.PROBLEM, intent, error=error)
        except ConversationError as error:
            return Reply(ReplyKind.PROBLEM, intent, error=error)
        except PaperbotError as error:
            if intent.kind in (IntentKind.SEARCH, IntentKind.MORE):
                raise
            return Reply(ReplyKind.PROBLEM, intent, error=error)
        if reply.state is not None:
            await self._memory_store.save(who.scope, who.user_id, reply.state)
        return reply

    async def _in_context(
        self, intent: Intent, state: ConversationState | None, max_idle: float
    ) -> Intent:
        """A question right after a paper was opened is about that paper when its words are
        the paper's ("does SEABO need reward labels?") or it asks for no topic of its own
        ("where can I get the code"); otherwise it stays what the classifier said. "yes" right
        after a "Did you mean …?" searches the suggestion."""
        if (
            state is not None
            and state.suggested
            and state.is_fresh(self._clock(), max_idle)
            and intent.kind in (IntentKind.SMALL_TALK, IntentKind.THANKS, IntentKind.GREETING)
            and patterns.YES.pattern.fullmatch(fold(intent.message))
        ):
            return Intent(IntentKind.SEARCH, query=state.suggested, message=state.suggested)
        if (
            intent.kind is IntentKind.SIMILAR
            and intent.refs == (FocusRef(),)
            and state is not None
            and state.focus is None
            and state.similar_to
            and state.is_fresh(self._clock(), max_idle)
        ):
            # "more like it" right after "papers like X", with nothing opened since: "it" is
            # the list's paper, and the papers like it go on from where the list stopped.
            return replace(intent, kind=IntentKind.MORE, refs=())
        if (
            state is not None
            and state.compared
            and state.focus is None
            and state.is_fresh(self._clock(), max_idle)
        ):
            weighed = self._between_compared(intent)
            if weighed is not None:
                return weighed
        if (
            intent.kind is IntentKind.PAPER
            and intent.refs == (FocusRef(),)
            and state is not None
            and state.focus is None
            and not state.compared
            and state.paper_ids
            and state.is_fresh(self._clock(), max_idle)
        ):
            # "open it" right after a list, nothing opened yet: its first paper, which the
            # reply shows by title; "which one?" stopped a newcomer who meant the top result.
            return replace(intent, refs=(PositionRef(state.offset),))
        if (
            intent.kind is IntentKind.PAPER
            and question_type(intent.message) is QuestionType.SUMMARY
            and (is_question(intent.message) or "about" not in intent.message.lower())
        ):
            # "what is it about?", "tl;dr of 2": a short summary, not the whole abstract.
            return replace(
                intent,
                kind=IntentKind.QUESTION_ABOUT_PAPER,
                query=intent.message,
                question_type=QuestionType.SUMMARY.value,
            )
        if (
            intent.kind is IntentKind.QUESTION_ABOUT_PAPER
            and intent.question_type == QuestionType.SUMMARY.value
            and intent.refs == (FocusRef(),)
        ):
            # "summarize 2", "tl;dr of the first": a bare number asking for a summary is a
            # position, not a quantity.
            slugs = frozenset(info.slug for info in await self._engine.loaded_collections())
            refs = pointed_at(intent.message, slugs, loose=True)
            if refs:
                return replace(intent, refs=refs)
        if (
            intent.kind is IntentKind.HELP
            and intent.confidence < SURE_HELP
            and question_type(intent.message) is QuestionType.SUMMARY
            and patterns.FOCUS_IN_TEXT.search(intent.message)
        ):
            # "can you summarize it?" asks for a paper's summary ("can you summarize papers?"
            # asks what the bot does): with none open, "which paper?", not the guide.
            return replace(
                intent,
                kind=IntentKind.QUESTION_ABOUT_PAPER,
                query=intent.message,
                refs=(FocusRef(),),
                implicit_focus=True,
                question_type=QuestionType.SUMMARY.value,
            )
        if intent.kind in (IntentKind.SEARCH, IntentKind.QUESTION_ABOUT_PAPER):
            return await self._question_or_search(intent, state, max_idle)
        # "how do I see the abstract?" is about the bot, not the paper, when the classifier is
        # sure; "how does swamp work?" names the paper in focus, so it asks about that.
        sure_help = intent.kind is IntentKind.HELP and intent.confidence >= SURE_HELP
        # "what's STGR" after opening the paper that coined it is a question, not chit-chat.
        if intent.kind not in (IntentKind.HELP, IntentKind.SMALL_TALK) or intent.farewell:
            return intent
        paper = await self._open_paper(state, max_idle)
        if paper is None or not is_question(intent.message) or asks_for_papers(intent.message):
            return intent
        must_name = sure_help or intent.kind is IntentKind.SMALL_TALK
        if (
            must_name
            and not names_the_paper(intent.message, f"{paper.title or ''} {paper.abstract}")
            # "where can I get the code" with a paper open asks for its code, not the bot's.
            and not (sure_help and asks_for_its_code(intent.message))
        ):
            return intent
        # "what's their main argument about empirical ML research": "their" is the paper's,
        # even when its words are not the abstract's; a sure help question still must name it.
        if not about_the_paper(intent.message, paper.abstract) and (
            sure_help or not points_at_the_paper(intent.message)
        ):
            return intent
        return _about_focus(intent)

    async def _question_or_search(
        self, intent: Intent, state: ConversationState | None, max_idle: float
    ) -> Intent:
        """A search, or a question naming no paper, read again with what the user has in
        front of them (the fitted model of retrieval/conversation/question_or_search.py): a
        question about the open paper, or a search for other papers."""
        if any(not isinstance(ref, FocusRef) for ref in intent.refs):
            return intent
        paper = await self._open_paper(state, max_idle)
        if (
            paper is not None
            and is_question(intent.message)
            and _THE_PAPER.search(intent.message)
            and about_the_paper(intent.message, f"{paper.title or ''} {paper.abstract}")
        ):
            # "was the gradient feature learning paper at neurips 2023?", "who wrote the latent
            # space guidance paper": one paper named by its topic, the open one, even when the
            # question names a venue.
            return replace(_about_focus(intent), collection=None)
        if intent.collection:
            return intent
        if asks_for_papers(intent.message):
            # "anything on expert routing?" searches whatever the open paper says; "how do
            # they find the ticket" stays the question the parser read.
            return intent
        if (
            intent.kind is IntentKind.QUESTION_ABOUT_PAPER
            and _NAMES_THE_BOT.search(intent.message)
            and (paper is None or "bot" not in analysis.analyze(paper.abstract))
        ):
            # "how does the bot pick the top sentence?": a question about paperbot, unless
            # the open paper is itself about bots.
            return replace(intent, kind=IntentKind.HELP, refs=())
        fresh = state is not None and state.is_fresh(self._clock(), max_idle)
        context = Context(
            open_paper=f"{paper.title or ''} {paper.abstract}" if paper is not None else None,
            listed=fresh and state is not None and bool(state.paper_ids),
        )
        probabilities = shipped_model().probabilities(intent.message)
        asks = asks_about_the_paper(intent.message, probabilities, context)
        if (
            intent.kind is IntentKind.SEARCH
            and asks
            and paper is not None
            # "mapvr github", "synthetic or real datasets for it": no question mark, but words
            # asking for a kind of answer only a paper gives.
            and (is_question(intent.message) or names_a_kind_of_answer(intent.message))
            # A search becomes a question only when it also reads as one about the open paper:
            # its topic words are the paper's, or it points at it. The model alone turned
            # "what about protein folding" after a paper on distillation into a question.
            and (
                about_the_paper(intent.message, paper.abstract)
                or points_at_the_paper(intent.message)
            )
        ):
            return _about_focus(intent)
        if intent.kind is IntentKind.QUESTION_ABOUT_PAPER and not asks:
            collections = await self._engine.loaded_collections()
            return replace(as_search(intent.message, collections), message=intent.message)
        return intent

    async def _open_paper(self, state: ConversationState | None, max_idle: float) -> Paper | None:
        """The paper in focus, while the conversation is fresh."""
        if state is None or state.focus is None or not state.is_fresh(self._clock(), max_idle):
            return None
        try:
            return await self._engine.paper(state.focus)
        except PaperbotError:
            return None

    async def _topic_after_all(
        self, intent: Intent, state: ConversationState | None
    ) -> Reply | None:
        """ "reward hacking", "weather forecasting", "Zorblax papers": read as chit-chat, but a
        bare run of two to five topic words (or one to five beside "papers") with no function
        word, chat word or clause break, that papers hold together, is a search. "nice weather
        today" is not (no paper holds all three), nor "ok these are better" or "toy linear
        regression, shocker" (a function word, a comma)."""
        message = intent.message.rstrip(" ?")
        words = _WORD.findall(message)
        # "Zorblax papers": a word the classifier has never seen, said to be a topic.
        topic = [word for word in words if word.lower() not in _PAPER_NOUNS]
        least = 1 if len(topic) < len(words) else 2
        if (
            intent.confidence >= SURE_CHIT_CHAT
            or not least <= len(topic) <= 5
            or any(mark in message for mark in ",;:!")
            or len(set(analysis.analyze(" ".join(topic)))) < len(topic)
        ):
            return None
        searched = replace(intent, kind=IntentKind.SEARCH, query=intent.message)
        reply = await self._search(searched, state)
        answer = reply.answer
        # One topic word is held when any paper is (the count of all words is for two or more).
        counted = answer is not None and (answer.total_all is not None or len(topic) == 1)
        if answer is None or not counted or not _holds_every_word(answer):
            return None
        return reply

    @staticmethod
    def _between_compared(intent: Intent) -> Intent | None:
        """Right after a comparison, "which one has code?" asks the compared papers (not the
        whole list), "which one is better?" and "what's the difference between them?" compare
        them again (not the whole list), and "which is better?" asks their results instead of
        searching "better"."""
        if intent.kind is IntentKind.QUESTION_ABOUT_PAPER and intent.refs == (PositionRef(0, ALL),):
            return replace(intent, refs=(FocusRef(),))
        if intent.kind is IntentKind.COMPARE and intent.refs == (PositionRef(0, ALL),):
            return replace(intent, refs=(FocusRef(),))
        chat_kinds = (IntentKind.SEARCH, IntentKind.HELP, IntentKind.SMALL_TALK)
        if intent.kind not in chat_kinds or intent.collection:
            return None
        if not weighs_them(intent.message):
            return None
        asked = question_type(intent.message)
        return _about_focus(intent, QuestionType.RESULT if asked is QuestionType.OTHER else asked)

    async def remember_sent(self, message_id: int, who: Conversation, reply: Reply) -> None:
        """Record which answer a sent message showed, so replies to it resolve against it."""
        if reply.state is not None and reply.paper_ids:
            await self._memory_store.save(
                who.scope, who.user_id, reply.state, message_id=message_id
            )

    async def _memory(
        self, who: Conversation, reply_to: int | None
    ) -> tuple[ConversationState | None, float]:
        if reply_to is not None:
            replied = await self._memory_store.load(who.scope, message_id=reply_to)
            if replied is not None:
                # An explicit reply names its answer: age does not make it ambiguous.
                return replied, float("inf")
        return await self._memory_store.load(who.scope), self._idle

    async def _answer(
        self, intent: Intent, state: ConversationState | None, max_idle: float
    ) -> Reply:
        kind = intent.kind
        now = self._clock()
        if kind is IntentKind.SMALL_TALK and not intent.farewell:
            topic = await self._topic_after_all(intent, state)
            if topic is not None:
                return topic
        if kind in _SIMPLE:
            return Reply(_SIMPLE[kind], intent)
        if kind is IntentKind.MORE:
            return await self._next_page(intent, state, now, max_idle)
        if kind is IntentKind.BACK:
            return await self._back(intent, state, now, max_idle)
        if kind is IntentKind.REFINE:
            if intent.collection is None and intent.unknown_collection:
                loaded = await self._engine.loaded_collections()
                raise CollectionNotFound(
                    intent.unknown_collection, [collection.name for collection in loaded]
                )
            if (
                state is not None
                and state.similar_to is not None
                and state.is_fresh(now, max_idle)
                and intent.collection
            ):
                # "neurips '23 only" after papers like X: papers like X in NeurIPS 2023.
                answer = await self._engine.similar(
                    state.similar_to, limit=self._page_size, collection=intent.collection
                )
                return self._answered(
                    intent, answer, state, None, 0, intent.collection, similar_to=state.similar_to
                )
            if state is None or not state.query or not state.is_fresh(now, max_idle):
                raise NoRecentAnswer(stale=state is not None and bool(state.query))
            # The last topic again, in the new collection, with the refine's own exclusions
            # ("same but for iclr, not about molecules": intent.query is "-molecules").
            query = f"{state.query} {intent.query}".strip()
            answer = await self._engine.ask(
                query, limit=self._page_size, collection=intent.collection
            )
            return self._answered(intent, answer, state, query, 0, intent.collection)
        if kind is IntentKind.SEARCH:
            by = patterns.BY_AUTHOR.pattern.fullmatch(fold(intent.message))
            if by is not None:
                raise NoAuthorSearch(by["name"] or by["name2"])
            return await self._search(intent, state)
        ids, state = await self._resolve(intent, state, now, max_idle)
        if kind is IntentKind.SIMILAR:
            answer = await self._engine.similar(
                ids[0], limit=self._page_size, collection=intent.collection
            )
            return self._answered(
                intent, answer, state, None, 0, intent.collection, similar_to=ids[0]
            )
        papers = [await self._engine.paper(paper_id) for paper_id in ids]
        notes = tuple(self._note(intent, paper) for paper in papers)
        reply_kind = {
            IntentKind.PAPER: ReplyKind.PAPERS,
            IntentKind.QUESTION_ABOUT_PAPER: ReplyKind.PAPER_QUESTION,
            IntentKind.COMPARE: ReplyKind.COMPARE,
        }[kind]
        if len(papers) == 1 and kind is not IntentKind.COMPARE:
            new_state = focus_on(state, papers[0].id, now)
        else:
            # Several papers shown ("the first two", a compare, a question to each): "it" and
            # "they" now mean all of them, as after a comparison, rather than "which one?".
            new_state = compared_in(state, [paper.id for paper in papers], now)
        return Reply(reply_kind, intent, papers=notes, state=new_state)

    def _note(self, intent: Intent, paper: Paper) -> PaperNote:
        if intent.kind is IntentKind.QUESTION_ABOUT_PAPER:
            kind = QuestionType(intent.question_type) if intent.question_type else None
            about = answer_about(
                paper.abstract,
                intent.query,
                kind=kind,
                collection=paper.collection,
                urls=code_links(paper.urls, paper.abstract),
                title=paper.title or "",
                authors=paper.authors,
            )
            return PaperNote(paper, about.sentences[0] if about.sentences else None, about=about)
        if intent.kind is IntentKind.COMPARE:
            sides = aspects(paper.abstract)
            return PaperNote(paper, sides.proposes or sides.result, aspects=sides)
        return PaperNote(paper)

    async def _resolve(
        self, intent: Intent, state: ConversationState | None, now: float, max_idle: float
    ) -> tuple[list[str], ConversationState | None]:
        """Paper ids for the intent's references; a number past what was shown ("#9" after six)
        fetches the results up to it first, as if the user had said "more"."""
        try:
            return resolve_refs(intent.refs, state, now, max_idle), state
        except PositionOutOfRange as error:
            if state is None or error.wanted <= error.available:
                raise
            if state.query is None and state.similar_to is None:
                raise
            page = next_page(state, now, max_idle)
            # "#60" is fetched only as far as MAX_REACH: enough to tell a list of 13 ("there
            # were only 13") from a long one ("only 1-3 have been shown").
            reach = min(error.wanted, MAX_REACH)
            if reach <= page.offset:  # more than MAX_REACH already shown by "more"
                raise PositionOutOfRange(
                    wanted=error.wanted, available=error.available, reach=MAX_REACH
                ) from None
            answer = await self._page(page, reach - page.offset)
            ids = [hit.paper.id for hit in answer.hits]
            longer = (
                next_state(
                    state,
                    answer_ids=ids,
                    query=state.query,
                    offset=page.offset,
                    collection=state.collection,
                    now=now,
                    focus=state.focus,
                    similar_to=state.similar_to,
                )
                if ids
                else state
            )
            # Only the number asked for is shown: "more" still goes on after the listed ones.
            listed = len(state.paper_ids) if state.listed is None else state.listed
            longer = replace(longer, listed=listed if listed < len(longer.paper_ids) else None)
            try:
                return resolve_refs(intent.refs, longer, now, max_idle), longer
            except PositionOutOfRange as short:
                # Past MAX_REACH in a list that goes on: say how far a number reaches;
                # otherwise the list ended before the number: say how long it is.
                goes_on = len(ids) >= reach - page.offset
                raise PositionOutOfRange(
                    wanted=short.wanted,
                    available=error.available if goes_on else short.available,
                    first=short.first,
                    exhausted=not goes_on,
                    reach=MAX_REACH if goes_on else None,
                ) from None

    async def _page(self, page: PageRequest, limit: int) -> Answer:
        if page.similar_to is not None:
            return await self._engine.similar(
                page.similar_to, limit=limit, offset=page.offset, collection=page.collection
            )
        return await self._engine.ask(
            page.query, limit=limit, offset=page.offset, collection=page.collection
        )

    async def _next_page(
        self, intent: Intent, state: ConversationState | None, now: float, max_idle: float
    ) -> Reply:
        page = next_page(state, now, max_idle)
        if intent.from_top:  # "show me 10 results": the same list, longer, from #1
            page = replace(page, offset=0)
        answer = await self._page(page, intent.count or self._page_size)
        if not answer.hits and 0 < answer.total <= page.offset:
            raise NoMoreResults(total=answer.total)
        return self._answered(
            intent,
            answer,
            state,
            page.query or None,
            page.offset,
            page.collection,
            similar_to=page.similar_to,
            # The next page changes what "#5" can mean, not which paper "it" is.
            focus=state.focus if state is not None else None,
        )

    async def _back(
        self, intent: Intent, state: ConversationState | None, now: float, max_idle: float
    ) -> Reply:
        """The list shown before the current one, again from its first number ("go back" twice
        returns to where it started), or, from a paper opened from the only list, that list."""
        if state is None or not state.is_fresh(now, max_idle):
            raise NoRecentAnswer(stale=state is not None)
        earlier = state.previous
        if earlier is None and state.focus is not None:
            earlier = state  # from a paper opened from the only list: that list again
        if earlier is None or (earlier.query is None and earlier.similar_to is None):
            raise NoEarlierList()
        page = PageRequest(
            earlier.query or "", earlier.offset, earlier.collection, earlier.similar_to
        )
        answer = await self._page(page, max(len(earlier.paper_ids), 1))
        return self._answered(
            intent,
            answer,
            state,
            earlier.query,
            earlier.offset,
            earlier.collection,
            similar_to=earlier.similar_to,
        )

    async def _search(self, intent: Intent, state: ConversationState | None) -> Reply:
        query = intent.query or intent.message
        answer = await self._engine.ask(query, limit=self._page_size, collection=intent.collection)
        corrected: tuple[tuple[str, str], ...] = ()
        if answer.corrections and answer.hits:
            # "diffusion genration": no paper uses the typed word, so the corrected question is
            # the one answered (one more ranking, only for misspelt questions).
            fixed = corrected_question(query, answer.corrections)
            if fixed != query:
                again = await self._engine.ask(
                    fixed, limit=self._page_size, collection=intent.collection
                )
                if again.hits:
                    answer, corrected = again, answer.corrections
        reply = self._answered(intent, answer, state, answer.question, 0, intent.collection)
        reply = replace(reply, corrected=corrected)
        if answer.empty and answer.suggestion:
            # Nothing matched; "yes" to the "Did you mean …?" searches the suggestion.
            kept = state or ConversationState()
            reply = replace(
                reply, state=replace(kept, suggested=answer.suggestion, updated_at=self._clock())
            )
        if (
            intent.confidence < UNSURE_SEARCH
            and state is not None
            and state.paper_ids
            and not _holds_every_word(answer)
        ):
            # A search the classifier doubts whose words no paper holds together ("great job
            # bot") keeps what "the second one" means; "mamba", doubted but found, is the list.
            reply = replace(reply, state=state)
        return replace(reply, unknown_collection=intent.unknown_collection)

    def _answered(
        self,
        intent: Intent,
        answer: Answer,
        state: ConversationState | None,
        query: str | None,
        offset: int,
        collection: str | None,
        *,
        similar_to: str | None = None,
        focus: str | None = None,
    ) -> Reply:
        ids = [hit.paper.id for hit in answer.hits]
        new_state = (
            next_state(
                state,
                answer_ids=ids,
                query=query,
                offset=offset,
                collection=collection,
                now=self._clock(),
                focus=focus,
                similar_to=similar_to,
            )
            if ids
            else state
        )
        return Reply(ReplyKind.ANSWER, intent, answer=answer, state=new_state)


def _holds_every_word(answer: Answer) -> bool:
    """Some paper holds every word of the question (and no word went unmatched)."""
    together = answer.total if answer.total_all is None else answer.total_all
    return bool(answer.hits) and together > 0 and not answer.unmatched


def _about_focus(intent: Intent, kind: QuestionType | None = None) -> Intent:
    """`intent` as a question about the paper in focus, of `kind` (unset: as its words ask)."""
    kind = kind or question_type(intent.message)
    return replace(
        intent,
        kind=IntentKind.QUESTION_ABOUT_PAPER,
        query=intent.message,
        refs=(FocusRef(),),
        question_type=kind.value,
        wants_code=kind is QuestionType.CODE,
    )


def _asks_about_a_paper(intent: Intent) -> bool:
    """A question of a kind only a paper answers (its result, data, method, code, authors, a
    summary ...), as opposed to one that may be a topic ("what is the weather in paris")."""
    return intent.kind is IntentKind.QUESTION_ABOUT_PAPER and (
        names_a_kind_of_answer(intent.message)
        or question_type(intent.message) is QuestionType.SUMMARY
    )


_SEARCHABLE = (IntentKind.QUESTION_ABOUT_PAPER, IntentKind.REFINE)
# One paper named by its topic: "the ... paper" (singular, definite), not "papers", nor a
# search for the best one ("the best paper on rag", "the most cited paper").
_THE_PAPER = re.compile(
    r"\bthe\s+(?!(?:best|top|most|latest|newest|first|seminal|original|main|key)\b)"
    r"[^.?!]{2,80}?\bpaper\b(?!s)",
    re.IGNORECASE,
)
_NAMES_THE_BOT = re.compile(r"\b(?:paper ?bot|(?:the|this|ur|your) bot)\b", re.IGNORECASE)
# What ranks the corpus anew: a shell's question quota is spent on these.
_NEW_SEARCHES = frozenset({IntentKind.SEARCH, IntentKind.REFINE, IntentKind.SIMILAR})

_SIMPLE = {
    IntentKind.GREETING: ReplyKind.GREETING,
    IntentKind.THANKS: ReplyKind.THANKS,
    IntentKind.SMALL_TALK: ReplyKind.SMALL_TALK,
    IntentKind.HELP: ReplyKind.HELP,
}
