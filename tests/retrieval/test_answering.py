"""The lead quote and the ranked list never disagree silently."""

from __future__ import annotations

from retrieval.answering import LEAD_MARGIN, _lead_position
from retrieval.engine import Engine
from retrieval.models import Excerpt, Span

QUOTE = Excerpt((Span("a sentence"),))


def test_the_top_paper_leads_unless_another_is_clearly_better() -> None:
    assert _lead_position([(2.0, QUOTE), (2.0 * LEAD_MARGIN - 0.01, QUOTE)]) == 0
    assert _lead_position([(2.0, QUOTE), (2.0 * LEAD_MARGIN, QUOTE)]) == 1
    assert _lead_position([(0.0, QUOTE), (0.5, QUOTE), (0.7, QUOTE)]) == 2
    assert _lead_position([(0.0, QUOTE), (0.0, QUOTE)]) is None


async def test_the_quoted_paper_is_shown_first(seed_engine: Engine) -> None:
    questions = [
        "cheaper bayesian deep nets by factorizing the weight posterior into low-rank matrices",
        "which papers attack RAG retrievers?",
        "mixture of experts routing",
        "watermarking paraphrasing attacks",
        "diffusion models memorization",
    ]
    for question in questions:
        answer = await seed_engine.ask(question, limit=5)
        assert answer.lead is not None
        assert answer.lead_paper_id == answer.hits[0].paper.id, question
        # Every other paper keeps its rank order after the quoted one.
        rest = [hit.rank for hit in answer.hits[1:]]
        assert rest == sorted(rest), question
