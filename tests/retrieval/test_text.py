"""The analyzer: markup, compounds, stopwords, stemming, offsets and acronym definitions."""

from __future__ import annotations

import itertools
import json

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from retrieval import text as text_module
from retrieval.text import (
    ANALYZER_VERSION,
    analyze,
    analyze_word,
    clean_for_display,
    find_acronyms,
    word_spans,
    word_terms,
)
from tests.retrieval import analyzer_golden as golden

# Text with the characters the analyzer treats specially, so examples hit its branches.
_TRICKY = st.lists(
    st.sampled_from([*"aZé9 -_/.,()$\\{}*`'’~&;#%^ﬁＧ－αε\n\t", "\\textbf{", "**", "&amp;", "ab"]),
    max_size=60,
).map("".join)
_ANY_TEXT = st.one_of(st.text(max_size=200), _TRICKY)


def test_analysis_is_pinned_to_the_analyzer_version() -> None:
    # Stored indexes are rebuilt only when ANALYZER_VERSION changes, so changed terms without a
    # bump would leave old indexes answering with stale terms.
    recorded = json.loads(golden.GOLDEN.read_text(encoding="utf-8"))
    regenerate = "then run `.venv/bin/python -m tests.retrieval.analyzer_golden`"
    assert recorded["analyzer_version"] == ANALYZER_VERSION, (
        f"ANALYZER_VERSION is {ANALYZER_VERSION} but {golden.GOLDEN.name} records "
        f"{recorded['analyzer_version']}: {regenerate}"
    )
    bump = f"bump ANALYZER_VERSION (now {ANALYZER_VERSION}) in retrieval/text.py, {regenerate}"
    assert recorded["stopwords_sha256"] == golden.stopwords_digest(), (
        f"the stopword lists changed: {bump}"
    )
    for row in recorded["analyses"]:
        assert analyze(row["text"]) == row["terms"], f"analysis of {row['text']!r} changed: {bump}"
    assert [row["text"] for row in recorded["analyses"]] == list(golden.SENTENCES), regenerate


def test_latex_and_markdown_are_stripped_words_kept() -> None:
    assert analyze(r"$\textit{\textbf{Elastic Attention}}$") == ["elast", "attent"]
    assert analyze("**LIFT** and \\emph{sparse} `code` _routing_") == [
        "lift",
        "spars",
        "code",
        "rout",
    ]
    assert analyze(r"$\mathcal{O}(n)$ time") == ["time"]


def test_math_commands_do_not_glue_onto_words() -> None:
    assert analyze(r"$8\times$A800 GPUs") == ["a800", "gpus"]
    assert "times" not in analyze(r"2$\times$ faster, $a \cdot b$")


def test_greek_letters_become_names() -> None:
    assert analyze(r"$\epsilon$-greedy") == analyze("ε-greedy") == analyze("epsilon-greedy")
    assert "epsilon" in analyze("ε-greedy")


def test_bold_initials_markdown_keeps_the_word() -> None:
    assert analyze("**A**daptive **R**etrieval") == analyze("Adaptive Retrieval")


def test_nfkc_fullwidth_and_ligatures() -> None:
    assert analyze("ＧＰＴ－４") == analyze("GPT-4")
    assert analyze("ﬁne-tuning") == analyze("fine-tuning")


def test_hyphen_compounds_match_in_both_directions() -> None:
    assert analyze("pre-training") == ["pretrain", "pre", "train"]
    assert set(analyze("pretraining")) <= set(analyze("pre-training"))
    assert set(analyze("Search-R2")) == {"searchr2", "search", "r2"}
    joined = analyze("retrievalaugmented")
    assert joined[0] in analyze("retrieval-augmented")
    assert {"retriev", "augment"} <= set(analyze("retrieval-augmented"))
    assert analyze("k-means") == ["kmean", "mean"]
    assert analyze("GPT-4")[0] == analyze("gpt4")[0] == "gpt4"


def test_long_chains_only_yield_parts() -> None:
    terms = analyze("Llama-3.1-8B-Instruct")
    assert terms == ["llama", "3.1", "8b", "instruct"]


def test_slashes_split_without_joining() -> None:
    assert analyze("encoder/decoder") == ["encod", "decod"]


def test_numbers_and_alphanumerics() -> None:
    assert analyze("o3 gpt4 r2 2026 3.5% 100 (1) x") == [
        "o3",
        "gpt4",
        "r2",
        "2026",
        "3.5",
        "100",
    ]
    assert analyze("GPT-3.5") == ["gpt3.5", "gpt", "3.5"]


def test_acronym_plurals_fold() -> None:
    assert analyze("LLMs GNNs") == analyze("LLM GNN") == ["llm", "gnn"]


def test_possessives_and_contractions() -> None:
    assert analyze("the model's output") == analyze("the model output")
    assert analyze("don’t") == []


def test_question_scaffolding_is_dropped() -> None:
    assert analyze("which papers attack RAG retrievers?") == ["attack", "rag", "retriev"]
    assert analyze("Is there any work on sparse attention?") == ["spars", "attent"]
    assert analyze("anything on diffusion? show me papers about it") == ["diffus"]
    assert analyze("In this paper, we propose a novel method") == ["novel", "method"]


def test_content_words_are_kept() -> None:
    for word in ("attack", "model", "method", "approach", "study", "few", "search", "self"):
        assert analyze_word(word) is not None, word


def test_analyze_word_agrees_with_analyze() -> None:
    for word in ("Retrievers", "LLMs", "attention", "ε", "2024", "GPT-4", "pre-training"):
        assert analyze(word)[0] == analyze_word(word)
    for word in ("the", "papers", "?", "", "x"):
        assert analyze_word(word) is None
        assert analyze(word) == []


@given(st.from_regex(r"[A-Za-z][a-z]{1,12}", fullmatch=True))
def test_analyze_word_is_analyze_for_plain_words(word: str) -> None:
    terms = analyze(word)
    assert terms == ([] if analyze_word(word) is None else [analyze_word(word)])


def test_word_spans_point_at_words() -> None:
    text = r"Retrieval-Augmented Generation (RAG) is \textbf{the} $\alpha$ baseline."
    spans = word_spans(text)
    assert [(text[s:e], term) for s, e, term in spans] == [
        ("Retrieval-Augmented", "retrievalaug"),
        ("Generation", "generat"),
        ("RAG", "rag"),
        ("is", None),
        ("the", None),
        ("alpha", "alpha"),
        ("baseline", "baselin"),
    ]


def test_word_terms_give_every_term_of_a_compound() -> None:
    (start, end, terms), *_ = word_terms("pre-training data")
    assert (start, end) == (0, 12)
    assert terms == ("pretrain", "pre", "train")


@given(_ANY_TEXT)
def test_word_spans_are_ordered_nonempty_substrings(text: str) -> None:
    previous_end = 0
    for start, end, term in word_spans(text):
        assert previous_end <= start < end <= len(text)
        assert text[start:end].strip()
        assert term is None or term
        previous_end = end


@given(_ANY_TEXT)
def test_never_raises(text: str) -> None:
    analyze(text)
    analyze_word(text)
    word_spans(text)
    find_acronyms(text)
    assert "\n" not in clean_for_display(text)


@given(_ANY_TEXT)
@example("0._0\n0_")  # emphasis across a line break: cleaning joined "0." and "0" into "0.0"
def test_cleaning_keeps_the_terms(text: str) -> None:
    assert analyze(clean_for_display(text)) == analyze(text)


def test_clean_for_display() -> None:
    assert clean_for_display("$\\textit{\\textbf{Elastic  Attention}}$ in\n $O(n^2)$") == (
        "Elastic Attention in O(n^2)"
    )
    assert clean_for_display(r"a $8\times$ speedup with $\epsilon$") == "a 8× speedup with ε"
    assert clean_for_display("see [here](https://x.io) --- fast") == (
        "see here (https://x.io) — fast"
    )
    assert clean_for_display(r"by Smith et al.~\citep{smith2020}.") == "by Smith et al. ."


def long_texts(size: int) -> list[str]:
    """Shapes of `size` characters a quadratic pass or a backtracking regex would choke on
    (benchmarks/linear_time.py times them at 100,000)."""
    return [
        "a" * size,
        "-" * size,
        "a-" * (size // 2),
        "1." * (size // 2),
        "$" * size,
        "_a" * (size // 2),
        "*a " * (size // 3),
        "\\" * size,
        "(AB) " * (size // 5),
        "word " * (size // 5),
    ]


def scan(text: str) -> None:
    """What ingest runs over an abstract's text."""
    analyze(text)
    word_spans(text)
    find_acronyms(text)


def test_long_inputs_give_well_formed_terms_and_spans() -> None:
    for text in long_texts(100_000):
        assert all(term and not any(ch.isspace() for ch in term) for term in analyze(text))
        spans = word_spans(text)
        assert all(0 <= start < end <= len(text) for start, end, _ in spans), text[:10]
        assert all(a[1] <= b[0] for a, b in itertools.pairwise(spans)), text[:10]
        assert all(long_form in text for _, long_form in find_acronyms(text)), text[:10]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("a sparse Mixture of Experts (MoE) layer", ("MoE", "Mixture of Experts")),
        ("a sparse mixture-of-experts (MoE) layer", ("MoE", "mixture-of-experts")),
        (
            "we study retrieval-augmented generation (RAG).",
            ("RAG", "retrieval-augmented generation"),
        ),
        ("Recent large language models (LLMs) can", ("LLM", "large language models")),
        (
            "tuned with reinforcement learning from human feedback (RLHF)",
            ("RLHF", "reinforcement learning from human feedback"),
        ),
        (
            "we use RAG (retrieval-augmented generation) here",
            ("RAG", "retrieval-augmented generation"),
        ),
        ("low-rank adaptation (LoRA) is", ("LoRA", "low-rank adaptation")),
        ("decoding-time realignment (DeRa)", ("DeRa", "decoding-time realignment")),
        ("an incremental first-order oracle (IFO)", ("IFO", "incremental first-order oracle")),
        ("with $\\textbf{Vision Transformers}$ (ViTs)", ("ViT", "Vision Transformers")),
        (
            "multi-modal large language models (MLLMs)",
            ("MLLM", "multi-modal large language models"),
        ),
        # A capital set inside a closed compound, the last word of a longer long form.
        ("we train variational autoencoders (VAEs) on", ("VAE", "variational autoencoders")),
        ("sparse autoencoders (SAEs) find features", ("SAE", "sparse autoencoders")),
        ("with Orthogonal Finetuning (OFT)", ("OFT", "Orthogonal Finetuning")),
    ],
)
def test_acronym_definitions(text: str, expected: tuple[str, str]) -> None:
    assert find_acronyms(text) == [expected]


@pytest.mark.parametrize(
    "text",
    [
        "as shown before (see Fig. 2)",
        "prior work (2023) found",
        "strong models (e.g. GPT-4)",
        "BERT (Devlin et al., 2019) is",
        "prompts (DiffusionDB, ChatGPT, COCO)",
        "large language models trained on text (LLMs)",
        "code at EvTexture (https://github.com/x/EvTexture)",
        "a Transformer (TF) block",
        "the model (ours) wins",
        "accuracy (ACC)",
        "an autoencoder (AE)",
        "the mean squared (MSE)",
    ],
)
def test_not_acronym_definitions(text: str) -> None:
    assert find_acronyms(text) == []


def test_acronyms_are_in_text_order_and_unique() -> None:
    text = "Mixture of Experts (MoE) and reinforcement learning (RL). Mixture of Experts (MoE)."
    assert find_acronyms(text) == [("MoE", "Mixture of Experts"), ("RL", "reinforcement learning")]


_ACRONYM_FIRST_PIECES = [*"aZ9 -_()é\n\t", "MoE", "RLHF", "ABCDEFGHIJK", "ABCDEFGHIJKL", " ("]
_ACRONYM_FIRST_TEXT = st.one_of(
    st.lists(st.sampled_from(_ACRONYM_FIRST_PIECES), max_size=80).map("".join),
    _ANY_TEXT,
)


@given(_ACRONYM_FIRST_TEXT)
def test_acronym_first_matches_are_the_patterns_own(text: str) -> None:
    """The anchored search finds exactly what scanning every character finds."""
    collapsed = text_module._SPACES.sub(" ", text)
    expected = [(m.span(), m.groups()) for m in text_module._ACRONYM_FIRST.finditer(collapsed)]
    got = [(m.span(), m.groups()) for m in text_module._acronym_first_matches(collapsed)]
    assert got == expected


@given(st.lists(st.sampled_from(["Mixture", "of", "Experts", "(MoE)", "(", ")", "M", "-"])))
def test_acronym_long_forms_come_from_the_text(words: list[str]) -> None:
    text = " ".join(words)
    for acronym, long_form in find_acronyms(text):
        assert long_form in text
        assert 2 <= len(acronym) <= 10
