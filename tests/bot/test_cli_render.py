"""What the terminal shows: highlighted lines wrap by what is visible, the paper view reads
like text (no LaTeX), and the console's own wording."""

from __future__ import annotations

import re
import textwrap
from dataclasses import replace

from bot.discord_shell.chat_render import notes_embed
from bot.terminal import console
from bot.terminal.chat_console import render_reply
from bot.text import readable
from retrieval.conversation import IntentKind
from retrieval.conversation.chat import PaperNote, Reply, ReplyKind
from retrieval.conversation.model import Intent
from retrieval.models import Answer, Excerpt, Hit, Paper, ParsedQuery, Span
from retrieval.paper_answers import AboutPaper, Aspects, QuestionType

ANSI = re.compile(r"\x1b\[[0-9;]*m")
WORDS = "retrieval augmented generation poisons the corpus so that adversarial passages win " * 4


def _paper(**fields: str) -> Paper:
    values = {"abstract": WORDS, "label": "Eyes-on-Me: RAG attacks", **fields}
    return Paper("icml2026-38", "ICML 2026", 38, "38", values["abstract"], values["label"])


def _answer(question: str = "q") -> Answer:
    spans = []
    for index, word in enumerate(WORDS.split()):
        spans.append(Span(word, match=index % 3 == 0))
        spans.append(Span(" "))
    hit = Hit(paper=_paper(), score=3.0, rank=1, excerpt=Excerpt(tuple(spans)))
    return Answer(question, ParsedQuery(text="q"), (hit,), 1, 1.0)


def test_highlighted_lines_break_where_plain_ones_do() -> None:
    coloured = console.render_answer(_answer(), colour=True).splitlines()
    body = [ANSI.sub("", line) for line in coloured[1:] if line.startswith("    ")]
    assert (
        body
        == textwrap.fill(
            " ".join(WORDS.split()), width=100, initial_indent="    ", subsequent_indent="    "
        ).splitlines()
    )
    assert len(body) > 1 and len(body[0]) > 90  # filled to the edge, not broken early
    for line in coloured[1:-1]:  # every line closes its own colour
        assert line.count(console.BOLD_YELLOW) == line.count(console.RESET)


def test_the_paper_view_reduces_latex_to_text() -> None:
    abstract = (
        r"We release code at \url{https://github.com/x/y}; a dataset $D$ of \emph{many} papers."
    )
    shown = console.render_paper(_paper(abstract=abstract))
    assert "We release code at https://github.com/x/y; a dataset D of many papers." in shown
    assert "\\" not in shown and "$" not in shown


def test_the_paper_view_and_json_name_the_authors_when_known() -> None:
    known = replace(_paper(), authors=("Ada", "Bo"))
    assert console.render_paper(known).splitlines()[1] == "Ada, Bo"
    assert console.paper_json(known)["authors"] == ["Ada", "Bo"]
    assert "Ada" not in console.render_paper(_paper())
    assert console.paper_json(_paper())["authors"] == []


def test_a_code_question_never_answers_with_the_paper_page() -> None:
    forum = "https://openreview.net/forum?id=MfiK69Ga6p"
    without = replace(_paper(), urls=(forum,))
    code = "https://github.com/x/y"
    with_code = replace(_paper(abstract=f"Code: {code}."), urls=(forum, code))
    intent = Intent(IntentKind.QUESTION_ABOUT_PAPER, wants_code=True)
    for paper, expected in ((without, "No code or project link"), (with_code, f"Code: {code}")):
        reply = Reply(ReplyKind.PAPER_QUESTION, intent, papers=(PaperNote(paper),))
        text = render_reply(reply, colour=False)
        assert expected in text and forum not in text
        [field] = notes_embed(reply).fields  # Discord's chat reply says the same
        assert forum not in str(field.value)
        assert (code in str(field.value)) == (paper is with_code)


def test_a_project_page_is_not_called_code() -> None:
    page = "https://embodied-generalist.github.io/"
    repo = "https://github.com/x/y"
    paper = replace(_paper(abstract=f"Project page: {page}. Code: {repo}."), urls=(page, repo))
    intent = Intent(IntentKind.QUESTION_ABOUT_PAPER, wants_code=True)
    reply = Reply(ReplyKind.PAPER_QUESTION, intent, papers=(PaperNote(paper),))
    lines = render_reply(reply, colour=False).splitlines()
    assert f"    Code: {repo}" in lines and f"    Project page: {page}" in lines
    [field] = notes_embed(reply).fields
    assert str(field.value).splitlines() == [f"Code: {repo}", f"Project page: {page}"]


def test_what_the_abstract_does_not_mention_comes_before_the_closest_sentence() -> None:
    closest = Excerpt((Span("We poison the corpus."),))
    about = AboutPaper(
        QuestionType.RESULT, (closest,), preface="The abstract does not mention llama."
    )
    note = PaperNote(_paper(), about=about)
    reply = Reply(ReplyKind.PAPER_QUESTION, Intent(IntentKind.QUESTION_ABOUT_PAPER), papers=(note,))
    text = render_reply(reply, colour=False)
    assert text.index("does not mention llama") < text.index("We poison the corpus.")
    [field] = notes_embed(reply).fields  # Discord's reply says the same, in the same order
    assert str(field.value).splitlines()[0] == "The abstract does not mention llama."


def test_which_is_better_after_a_comparison_says_there_is_no_verdict() -> None:
    said = Excerpt((Span("We poison the corpus."),))
    sides = Aspects(said, None, said)
    notes = (
        PaperNote(_paper(), aspects=sides),
        PaperNote(replace(_paper(), id="icml2026-2"), aspects=sides),
    )
    for message, verdict in (("which one is better?", True), ("compare 1 and 2", False)):
        intent = Intent(IntentKind.COMPARE, message=message)
        reply = Reply(ReplyKind.COMPARE, intent, papers=notes)
        text = render_reply(reply, colour=False)
        assert text.startswith("The abstracts give no verdict") is verdict
        description = str(notes_embed(reply).description)
        assert description.startswith("The abstracts give no verdict") is verdict


def test_a_long_abstract_is_reduced_to_its_end() -> None:
    abstract = (r"The $\alpha$ term. " * 800) + r"Code: \url{https://example.org/end}"
    shown = readable(abstract)
    assert shown.endswith("Code: https://example.org/end")
    assert shown.count("The α term.") == 800


def _reply(
    kind: ReplyKind, answer: Answer | None = None, intent: IntentKind | None = None
) -> Reply:
    return Reply(kind, Intent(intent or IntentKind.SMALL_TALK), answer=answer)


def test_thanks_in_the_console_has_no_discord_wording() -> None:
    text = render_reply(_reply(ReplyKind.THANKS), colour=False)
    assert text.startswith("Glad it helped!")
    assert "Reply to an answer" not in text and "Type “the second one”" in text


def test_similar_keeps_the_labels_capitals() -> None:
    answer = _answer("papers like icml2026-38 (AliMark: watermarks for LLMs)")
    text = render_reply(_reply(ReplyKind.ANSWER, answer, IntentKind.SIMILAR), colour=False)
    assert text.splitlines()[0] == "Papers like icml2026-38 (AliMark: watermarks for LLMs):"


def test_help_about_one_feature_starts_with_that_feature() -> None:
    asked = Reply(ReplyKind.HELP, Intent(IntentKind.HELP, message="how do i export these?"))
    text = render_reply(asked, colour=False)
    assert text.startswith("Exports: `paperbot export papers")
    assert "Ask a question in plain words" in text
    general = render_reply(
        Reply(ReplyKind.HELP, Intent(IntentKind.HELP, message="what can you do")), colour=False
    )
    assert general.startswith("Ask a question in plain words")


def test_nothing_found_in_a_filter_names_the_collections_searched() -> None:
    filtered = ParsedQuery(text="mamba", collections=("NeurIPS 2023",))
    empty = Answer("neurips papers on mamba", filtered, (), 0, 1.0)
    assert console.render_answer(empty).splitlines()[0] == (
        "No paper in NeurIPS 2023 matches that question."
    )
    everywhere = Answer("mamba", ParsedQuery(text="mamba"), (), 0, 1.0)
    assert console.render_answer(everywhere).splitlines()[0] == "No paper matches that question."
