"""Rendering stays inside Discord's limits for any abstract and any question (hypothesis)."""

from __future__ import annotations

import asyncio
import re
from typing import Any

import discord
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.discord_shell import render
from bot.discord_shell.queries import QueryKeys, QueryRef
from bot.discord_shell.views import answer_view, paper_view
from bot.text import bold_balanced, clip, escape, readable, render_excerpt, split_escaped
from retrieval.models import Answer, EngineStats, Excerpt, Hit, Paper, ParsedQuery, Span
from retrieval.nodes import ClusterStats, NodeRow, NodeStatus
from tests.bot.limits import component_problems, embed_problems
from tests.bot.test_chat_console import _answer
from tests.budgets import examples

NASTY = "*_~`|>#-[]()<>@:\\\n\t \u200b\u200c\u200d\u2060\ufeff\u202e\u00adé😀中\u0301"
nasty_text = st.text(alphabet=st.sampled_from(NASTY) | st.characters(), max_size=300).map(
    lambda s: s
) | st.sampled_from(
    ["@everyone", "@here", "<@&123>", "<@456>", "||spoiler||", "```code```", "**bold**", "\\"]
)
long_text = st.lists(nasty_text, max_size=40).map("".join)
huge_text = st.lists(nasty_text, min_size=20, max_size=200).map(lambda parts: "".join(parts) * 3)

spans = st.lists(st.builds(Span, long_text, st.booleans()), max_size=30).map(
    lambda items: Excerpt(tuple(items))
)
urls = st.lists(
    st.sampled_from(
        [
            "https://github.com/a/b",
            "http://example.org/x_y",
            "javascript:alert(1)",
            "not a url",
            "https://" + "a" * 600 + ".com",
            "https://ok.example/" + "p" * 100,
        ]
    )
    | st.text(max_size=30),
    max_size=8,
)
papers = st.builds(
    Paper,
    id=st.from_regex(r"[a-z0-9]{1,24}-[0-9]{1,5}", fullmatch=True),
    collection=long_text.filter(bool) | st.just("ICML 2026"),
    position=st.integers(0, 10_000),
    external_id=st.just("x"),
    abstract=huge_text | long_text,
    label=long_text,
    title=st.none() | long_text,
    urls=urls.map(tuple),
    authors=st.lists(long_text, max_size=5).map(tuple),
    also_in=st.lists(long_text, max_size=3).map(tuple),
)


@st.composite
def answers(draw: st.DrawFn) -> Answer:
    hit_papers = draw(st.lists(papers, max_size=10))
    hits = tuple(
        Hit(paper=p, score=1.0, rank=i + 1, excerpt=draw(spans)) for i, p in enumerate(hit_papers)
    )
    return Answer(
        question=draw(huge_text | long_text),
        query=ParsedQuery(text="q"),
        hits=hits,
        total=draw(st.integers(len(hits), 10_000)),
        took_ms=draw(st.floats(0, 1e6)),
        lead=draw(st.none() | spans),
        lead_paper_id=draw(st.none() | st.text(max_size=40)),
        suggestion=draw(st.none() | long_text),
        notice=draw(st.none() | long_text),
    )


INVISIBLE = re.compile("[\u200c\u200d\u2060\ufeff\u202e\u00ad]")


def texts_of(embed: dict[str, Any]) -> list[str]:
    out = [embed.get("title") or "", embed.get("description") or ""]
    for field in embed.get("fields") or []:
        out += [field["name"], field["value"]]
    return out


def assert_safe(text: str) -> None:
    assert "@everyone" not in text and "@here" not in text
    assert not re.search(r"(?<!\\)<[@#]", text)
    assert not INVISIBLE.search(text)
    assert "\u200b" not in text.replace("@\u200b", "")
    assert bold_balanced(text), text


@given(long_text | huge_text, st.integers(1, 5000))
def test_clip_fits_and_is_escaped(text: str, limit: int) -> None:
    clipped = clip(text, limit)
    assert len(clipped) <= limit
    assert_safe(clipped)


@given(spans, st.integers(0, 2000))
def test_excerpts_fit_and_keep_bold_pairs(excerpt: Excerpt, limit: int) -> None:
    rendered = render_excerpt(excerpt, limit)
    assert len(rendered) <= limit
    assert_safe(rendered)


def test_matched_words_are_bold_after_escaping() -> None:
    excerpt = Excerpt((Span("We study "), Span("MoE*", True), Span(" "), Span("routing", True)))
    assert render_excerpt(excerpt, 200) == "We study **MoE\\*** **routing**"


@given(huge_text, st.integers(100, 4096))
def test_split_chunks_fit_and_lose_only_whitespace(text: str, limit: int) -> None:
    chunks = split_escaped(text, limit)
    assert all(len(chunk) <= limit for chunk in chunks)
    for chunk in chunks:
        assert_safe(chunk)


@settings(max_examples=examples(20))
@given(answers(), st.sampled_from(["Answer", "Search", "Similar"]), st.booleans())
def test_answer_embeds_fit(answer: Answer, heading: str, lead: bool) -> None:
    embed = render.answer_embed(answer, heading=heading, show_lead=lead)
    data = embed.to_dict()
    assert embed_problems([data]) == []  # type: ignore[list-item]
    for text in texts_of(data):  # type: ignore[arg-type]
        assert_safe(text)


@given(papers)
def test_paper_messages_fit_and_attach_what_does_not(paper: Paper) -> None:
    rendered = render.paper_message(paper)
    dicts = [e.to_dict() for e in rendered.embeds]
    assert 1 <= len(dicts) <= 10
    assert embed_problems(dicts) == []  # type: ignore[arg-type]
    for data in dicts:
        for text in texts_of(data):  # type: ignore[arg-type]
            assert_safe(text)
    if rendered.attachment is not None:
        assert readable(paper.abstract)[:50].split()[0] in rendered.attachment[1].decode()


def components_of(view: discord.ui.View) -> list[dict[str, Any]]:
    return view.to_components()  # type: ignore[return-value]


@settings(max_examples=examples(20))
@given(answers(), papers)
def test_views_fit_the_component_limits(answer: Answer, paper_: Paper) -> None:
    async def build() -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
        ask = answer_view(answer, QueryRef("ask", answer.question), QueryKeys())
        paper = paper_view(paper_)
        return (components_of(ask) if ask else []), components_of(paper)

    ask_rows, paper_rows = asyncio.run(build())
    assert component_problems(ask_rows) == []
    assert component_problems(paper_rows) == []


@given(st.text(max_size=300), st.text(max_size=300))
def test_autocomplete_choice_names_fit(paper_id: str, label: str) -> None:
    name = render.choice_name(paper_id[:100] or "x", label)
    assert 1 <= len(name) <= 100


def test_escape_examples() -> None:
    assert escape("@everyone") == "@\u200beveryone"
    assert escape("<@&123>") == "\\<@&123>"
    assert escape("||s||") == "\\|\\|s\\|\\|"
    assert escape("a\u200bb\u202ec") == "abc"
    assert escape("# head\n- item\n1. one") == "\\# head\n\\- item\n1\\. one"


def test_validator_catches_what_discord_rejects() -> None:
    too_big = discord.Embed(title="t" * 300, description="d" * 5000)
    assert len(embed_problems([too_big.to_dict()])) == 2  # type: ignore[list-item]
    many = [discord.Embed(description="d" * 4000).to_dict() for _ in range(2)]
    assert embed_problems(many) == ["embeds total 8000 > 6000"]  # type: ignore[arg-type]


def test_matched_words_inside_a_link_or_code_are_not_marked() -> None:
    spans = (
        Span("Code at https://"),
        Span("github", True),
        Span(".com/imethanlee/"),
        Span("AliMark", True),
        Span(" for "),
        Span("AliMark", True),
        Span(" and `"),
        Span("AliMark", True),
        Span("` https://x.org/a_b"),
    )
    text = render_excerpt(Excerpt(spans), 500)
    assert "https://github.com/imethanlee/AliMark" in text
    assert " for **AliMark** and " in text
    assert "AliMark\\`" in text and "**AliMark**\\`" not in text
    assert text.endswith("https://x.org/a_b")  # a plain URL is not escaped either
    assert text.count("**") == 2


URL_PARTS = st.text(alphabet="abcXYZ019-._~/?=&%", min_size=1, max_size=20)


@given(
    st.lists(st.tuples(URL_PARTS, st.booleans()), min_size=1, max_size=8),
    st.text(alphabet="ab *_~|#>\n", max_size=40),
)
def test_a_link_survives_any_marks(parts: list[tuple[str, bool]], before: str) -> None:
    url = "https://" + "".join(part for part, _ in parts)
    spans = (Span(before + " https://"), *(Span(p, match) for p, match in parts), Span(" end"))
    shown = render_excerpt(Excerpt(spans), 2000)
    assert url in shown
    assert bold_balanced(shown)


def test_console_marks_stay_outside_links() -> None:
    from bot.terminal.console import excerpt_text

    spans = (Span("see https://"), Span("github", True), Span(".com/x "), Span("github", True))
    assert excerpt_text(Excerpt(spans), colour=False) == "see https://github.com/x [github]"


@given(
    st.lists(
        st.tuples(st.text(min_size=1, max_size=300), st.integers(0, 10**12), st.booleans()),
        min_size=1,
        max_size=40,
    ),
    st.integers(0, 10**12),
)
def test_stats_cluster_fields_stay_within_discords_limits(
    nodes: list[tuple[str, int, bool]], generation: int
) -> None:
    statuses = tuple(
        NodeStatus(
            NodeRow(f"{host}:{i}", host, 2**40 + i, ",".join(["1234"] * 30), gen, 0, 0, 10**9),
            stale,
            i == 0,
        )
        for i, (host, gen, stale) in enumerate(nodes)
    )
    cluster = ClusterStats(statuses, generation)
    stats = EngineStats(1, 1, 1, 1, 1, 1, 1, None, None)
    embed = render.stats_embed(stats, None, (cluster, render.Here(10**9, 10_000)))
    assert embed_problems([embed.to_dict()]) == []
    shown = embed.to_dict()["fields"][-1]["value"].splitlines()
    hidden = len(nodes) - render.CLUSTER_NODES_SHOWN
    assert len(shown) == 1 + min(len(nodes), render.CLUSTER_NODES_SHOWN) + (hidden > 0)
    if hidden > 0:
        assert shown[-1].startswith(f"and {hidden:,} more process")


def test_a_lead_from_another_result_names_it_in_discord() -> None:
    described = render.answer_embed(_answer(3)).description or ""
    assert "> **From #3 (Paper 3 label):** the best sentence" in described
    assert "From #" not in (render.answer_embed(_answer(1)).description or "")
