"""Question about the open paper, or a search: the fitted model over the dialogue state."""

from __future__ import annotations

import math

from hypothesis import given, settings
from hypothesis import strategies as st

from retrieval.conversation.classifier import shipped_model as intent_model
from retrieval.conversation.question_or_search import (
    FEATURES,
    Context,
    asks_about_the_paper,
    features,
    shipped_model,
)

MARL = (
    "Mean-field games for imitation learning. We learn equilibria of many-agent games from "
    "expert demonstrations and evaluate on crowd navigation."
)
GRAPHS = (
    "Oversquashing in graph neural networks. We rewire graphs by curvature and evaluate on "
    "the TUDataset benchmarks and on long-range graph benchmarks."
)


def _asks(message: str, context: Context) -> bool:
    return asks_about_the_paper(message, intent_model().probabilities(message), context)


def test_the_shipped_model_reads_and_names_only_known_features() -> None:
    model = shipped_model()
    assert set(model.names) <= set(FEATURES)
    assert 0 < model.threshold < 1


def test_a_new_topic_with_answer_words_is_a_search_even_with_a_paper_open() -> None:
    opened = Context(open_paper=MARL, listed=True)
    assert not _asks(
        "open source protein folding benchmarks", Context(open_paper=GRAPHS, listed=True)
    )
    assert not _asks("semi-supervised learning when the labelled dataset is tiny or biased", opened)
    # Nothing open, nothing listed: a topic is searched, never "which paper?".
    assert not _asks(
        "semi-supervised learning when the labelled dataset is tiny or biased", Context(None, False)
    )


def test_a_question_about_the_open_paper_stays_a_question() -> None:
    opened = Context(open_paper=GRAPHS, listed=True)
    assert _asks("what graph datasets do they run on?", opened)
    assert _asks("does it have code?", opened)
    assert _asks("how do they rewire the graph", opened)


@settings(max_examples=40, deadline=None)
@given(st.text(max_size=60), st.booleans(), st.booleans())
def test_features_are_finite_and_complete_for_any_message(
    message: str, opened: bool, listed: bool
) -> None:
    context = Context(open_paper=GRAPHS if opened else None, listed=listed)
    row = features(message, intent_model().probabilities(message), context)
    assert len(row) == len(FEATURES)
    assert all(math.isfinite(value) for value in row)


def test_the_same_reading_is_a_question_or_a_search_by_what_is_open() -> None:
    # The classifier leaning to "question" (as it did for topics holding "dataset"): with the
    # paper open that uses the words it is about that paper; with nothing open it is a search;
    # a paper on something else sits between.
    leaning = {"question": 0.8, "search": 0.2, "help": 0.0}
    message = "curvature rewiring on the tudataset benchmarks"
    assert asks_about_the_paper(message, leaning, Context(open_paper=GRAPHS, listed=True))
    assert not asks_about_the_paper(message, leaning, Context(open_paper=None, listed=False))
    chances = [
        shipped_model().probability([features(message, leaning, context)], FEATURES)[0]
        for context in (
            Context(open_paper=GRAPHS, listed=True),
            Context(open_paper=MARL, listed=True),
            Context(open_paper=None, listed=True),
        )
    ]
    assert chances[0] > chances[1] > chances[2]
