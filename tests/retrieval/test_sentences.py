"""Sentence splitting around abbreviations, numbers, URLs, math and parentheses."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from retrieval.sentences import split_sentences


def sentences(text: str) -> list[str]:
    return [text[start:end] for start, end in split_sentences(text)]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("We propose X. It works.", ["We propose X.", "It works."]),
        ("Use e.g. GPT-4 here. Done.", ["Use e.g. GPT-4 here.", "Done."]),
        ("That is, i.e. Transformers. Done.", ["That is, i.e. Transformers.", "Done."]),
        ("Smith et al. (2023) show it. Next.", ["Smith et al. (2023) show it.", "Next."]),
        ("As in Fig. 3 and Eq. 2 we see. Next.", ["As in Fig. 3 and Eq. 2 we see.", "Next."]),
        ("Ours vs. Theirs is close. Next.", ["Ours vs. Theirs is close.", "Next."]),
        ("Gains of 3.5% and 0.95 AUC. Next.", ["Gains of 3.5% and 0.95 AUC.", "Next."]),
        ("We use v1.2.3 now. Next.", ["We use v1.2.3 now.", "Next."]),
        ("Code: https://x.github.io/. Next one.", ["Code: https://x.github.io/.", "Next one."]),
        ("Let $x. Y$ hold. Next.", ["Let $x. Y$ hold.", "Next."]),
        ("By J. R. Smith and U.S. Army. Next.", ["By J. R. Smith and U.S. Army.", "Next."]),
        ("We extend method X. It works.", ["We extend method X.", "It works."]),
        ("Is it (really?) True? Yes! Ok.", ["Is it (really?) True?", "Yes!", "Ok."]),
        ("Text, images, etc. We go.", ["Text, images, etc.", "We go."]),
        ("Text, images, etc. and more.", ["Text, images, etc. and more."]),
        ('He said "stop." Then left.', ['He said "stop."', "Then left."]),
        ("First line\n\nsecond paragraph", ["First line", "second paragraph"]),
        ("  padded.   Next  ", ["padded.", "Next"]),
        ("", []),
        ("   ", []),
    ],
)
def test_tricky_cases(text: str, expected: list[str]) -> None:
    assert sentences(text) == expected


@given(st.text(alphabet=st.sampled_from(list('aB1 .?!()$\n"e.g')), max_size=120))
def test_spans_are_ordered_disjoint_and_cover_all_non_space(text: str) -> None:
    spans = split_sentences(text)
    covered = [False] * len(text)
    previous = 0
    for start, end in spans:
        assert previous <= start < end <= len(text)
        assert not text[start].isspace() and not text[end - 1].isspace()
        for index in range(start, end):
            covered[index] = True
        previous = end
    assert all(covered[i] or text[i].isspace() for i in range(len(text)))


@given(st.text(max_size=300))
def test_any_text(text: str) -> None:
    for start, end in split_sentences(text):
        assert text[start:end].strip()


# Shapes that made the splitter rescan; benchmarks/linear_time.py times them.
LONG_INPUTS = [
    "." * 100_000,
    ". " * 50_000,
    "A. " * 33_000,
    "$" * 100_000,
    "(?" * 50_000,
    "e.g. " * 20_000,
]


@pytest.mark.parametrize("text", LONG_INPUTS, ids=lambda text: f"{text[:4]!r}x{len(text)}")
def test_long_inputs_split_into_ordered_non_empty_sentences(text: str) -> None:
    previous = 0
    for start, end in split_sentences(text):
        assert previous <= start < end <= len(text)
        assert text[start:end].strip()
        previous = end


def test_a_stop_with_no_space_after_it_ends_a_sentence_between_words() -> None:
    text = "It keeps the retention policy.To our knowledge, it is first.See e.g.The list."
    assert [text[a:b] for a, b in split_sentences(text)] == [
        "It keeps the retention policy.",
        "To our knowledge, it is first.",
        "See e.g.The list.",  # "e.g." is an abbreviation, glued or not
    ]
    url = "Code at https://github.com/a/Repo.Main is here."
    assert len(split_sentences(url)) == 1
