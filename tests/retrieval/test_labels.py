"""Labels and code URLs for title-less abstracts: seed lists, markup, hostile text."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from retrieval.labels import (
    LABELER_VERSION,
    MAX_LABEL_CHARS,
    candidates,
    derive_label,
    extract_urls,
    markup,
    opens_with_punctuation,
    words,
)
from retrieval.labels.markup import clean
from retrieval.labels.names import best_name
from retrieval.labels.phrases import candidates as _phrase_candidates
from retrieval.labels.text import capitalised, fit

SEEDS = Path(__file__).resolve().parents[2] / "seeds"


def _paragraphs(path: Path) -> list[str]:
    """Abstracts of one paper-list file: header line, then blank-line separated paragraphs."""
    text = path.read_text(encoding="utf-8").replace("\r\n", "\n")
    _header, _, body = text.partition("\n")
    return [" ".join(part.split()) for part in re.split(r"\n[ \t]*\n", body) if part.strip()]


SEED_ABSTRACTS = [
    (f"{path.name[:3]}-{number}", abstract)
    for path in sorted(SEEDS.glob("*.txt"))
    for number, abstract in enumerate(_paragraphs(path), start=1)
]

# Expected name -> a phrase found only in that paper's abstract.
NAMED_SEEDS = {
    "Elastic Attention": "varying sparsity sensitivities",
    "DRIFT": "operationalizes the theoretical insight",
    "LHSD": "Local Intrinsic Dimension (LID)",
    "DMLRank": "generalized average ranking scores",
    "DTS": "length-accuracy anti-correlation",
    "TextResNet": "Semantic Entanglement",
    "WET": "loyalty dilemma",
    "Eyes-on-Me": "Attention Attractors",
    "ROSA2": "single-axis problem",
    "RouterInterp": "Superposed Specialisation Hypothesis",
    "Hyper-ICL": "hyperbolic anchor distillation",
    "EmbodiedAct": "execute-then-response",
    "ctfIDu+": "counterfactual realizabilty",
    "LIFT": "Long-context understanding remains challenging",
    "SxS": "silence tax",
    "Search-R2": "multi-scale credit assignment",
    "ALIGN": "Indirect reciprocity",
    "S-Adam": "gradient chattering",
    "CARE": "variable-size recommendation sets",
    "CyberGym-E2E": "PoC generation",
    "Decrypto": "theory of mind (ToM)",
    "CHaRS": "barycentric projection",
    "STAR": "Generalized Hebbian Algorithm",
    "EEFP": "Early-exit neural networks",
    "AnalogVerifier": "Analog circuits constitute",
    "Open-o3-Video": "evidence-centered reasoning",
    "Q-ALIGN DT": "return-to-go (RTG)",
    "AliMark": "sentence-level watermarking methods",
}


def _seed(marker: str) -> str:
    matches = [abstract for _, abstract in SEED_ABSTRACTS if marker in abstract]
    assert len(matches) == 1, f"{marker!r} should pick exactly one seed abstract"
    return matches[0]


def test_the_seed_lists_hold_38_abstracts() -> None:
    assert len(SEED_ABSTRACTS) == 38


@pytest.mark.parametrize(("where", "abstract"), SEED_ABSTRACTS, ids=[w for w, _ in SEED_ABSTRACTS])
def test_every_seed_label_is_short_clean_and_non_empty(where: str, abstract: str) -> None:
    label = derive_label(abstract)
    assert label.strip(), where
    # a title, not a keyword list, a cut-off sentence or a dangling phrase
    assert not label.endswith("…"), label
    assert label.count(", ") < 2, label
    assert label.rsplit(" ", 1)[-1].lower() not in {"this", "which", "by", "of", "the", "a"}
    assert len(label) <= MAX_LABEL_CHARS, label
    assert not re.search(r"[\\$*`{}]|https?://", label), label
    assert label == " ".join(label.split()), label


@pytest.mark.parametrize(("name", "marker"), NAMED_SEEDS.items(), ids=list(NAMED_SEEDS))
def test_a_named_seed_is_labelled_with_its_name(name: str, marker: str) -> None:
    assert name in derive_label(_seed(marker))


@pytest.mark.parametrize(
    ("marker", "label"),
    [
        # "NAME (Expansion)"
        (
            "operationalizes the theoretical insight",
            "DRIFT: Decoupled Rollouts and Importance-Weighted Fine-Tuning",
        ),
        # "Expansion (NAME)"
        ("Local Intrinsic Dimension (LID)", "LHSD: Local Hessian Spectral Dimension"),
        ("gradient chattering", "S-Adam: Singularity-aware Adam"),
        # **bold** initials and a name defined in the last sentences
        ("length-accuracy anti-correlation", "DTS: Decoding Tree Sketching"),
        ("barycentric projection", "CHaRS: Concept Heterogeneity-aware Representation Steering"),
        # \textbf{\emph{...}} around a name that goes on after its acronym
        ("silence tax", "SxS: Side-by-Side Interleaved Reasoning"),
        ("Indirect reciprocity", "ALIGN: Agentic LInguistic Gossip Network"),
    ],
)
def test_a_defined_name_comes_with_its_expansion(marker: str, label: str) -> None:
    # What the method is for may follow when there is room.
    assert re.fullmatch(re.escape(label) + r"(?:(?:, | – ).+)?", derive_label(_seed(marker)))


def test_latex_markup_is_stripped_without_losing_words() -> None:
    label = derive_label(_seed("varying sparsity sensitivities"))
    assert label.startswith("Elastic Attention")


@pytest.mark.parametrize(
    ("abstract", "label"),
    [
        (
            r"Graphs are hard. We propose \emph{Foo-Net}, a `simple` *fast* __model__ for graphs "
            r"with $\alpha$-sparsity.",
            "Foo-Net: a fast model for graphs with α-sparsity",
        ),
        (
            r"We propose \textsc{Moo}$^2$: \textbf{M}ulti-\textbf{O}bjective "
            r"\textbf{O}ptimisation.",
            "Moo²: Multi-Objective Optimisation",
        ),
        # cut at the clause's comma, never a list or an ellipsis
        ("We study the map $\\rho_t$ of flows, see Fig.~1.", "Map ρ_t of flows"),
    ],
)
def test_markup_is_reduced_to_its_words(abstract: str, label: str) -> None:
    assert derive_label(abstract) == label


def test_an_appositive_describes_the_name() -> None:
    assert derive_label(_seed("theory of mind (ToM)")) == (
        "Decrypto: a game-based benchmark for multi-agent reasoning"
    )


def test_an_unnamed_abstract_gets_a_topic_phrase_from_its_contribution() -> None:
    bandits = derive_label(_seed("linear contextual bandits under rare parameter updates"))
    assert bandits == "Linear contextual bandits under rare parameter updates"


def test_a_component_named_in_passing_is_not_the_label() -> None:
    label = derive_label(_seed("Denoising Masked AutoEncoder (DMAE)"))
    assert not label.startswith("DMAE")
    texts = [phrase.text for phrase in _phrase_candidates(clean(_seed("(DMAE)")))]
    assert "Cognitive-aware counterfactual reasoning framework" in texts


@pytest.mark.parametrize(
    ("abstract", "name"),
    [
        ("Graphs are hard. We propose a method named FooNet for graph matching.", "FooNet"),
        (
            "Graphs are hard. In this work we present a solver, dubbed Quux-3, that scales.",
            "Quux-3",
        ),
        ("This paper introduces **LIFT**, a framework for long inputs.", "LIFT"),
        ("We introduce BarBench, a benchmark of 500 tasks for agents.", "BarBench"),
        (
            "We propose Sparse Token Routing (STR), which routes tokens.",
            "Sparse Token Routing (STR)",
        ),
        ("We propose ZAP (Zero-shot Adaptive Pruning) to prune models.", "ZAP: Zero-shot Adaptive"),
        (r"We propose $\textit{\textbf{Calm Decoding}}$, which decodes calmly.", "Calm Decoding"),
    ],
)
def test_naming_patterns(abstract: str, name: str) -> None:
    assert derive_label(abstract).startswith(name)


# Abstracts written for these tests (not from the seeds or the conference lists), one per way
# an abstract introduces its name.
@pytest.mark.parametrize(
    ("abstract", "label"),
    [
        # "NAME, a ..." outside the authors' sentences, and the name recurs
        (
            "Sparse attention helps. These ideas are the foundations of GraphQuill, a first-order "
            "algorithm that routes tokens through sparse graphs. GraphQuill is fast.",
            "GraphQuill: a first-order algorithm that routes tokens through sparse graphs",
        ),
        # "referred to as NAME - Expansion -" in a sentence without "we"
        (
            "Calibration is hard. We revisit temperature scaling. The resulting approach, referred "
            "to as TideNorm - Temperature Identity Normalization - acts as a bridge.",
            "TideNorm: Temperature Identity Normalization",
        ),
        # "we ... and introduce **NAME**: **E**xpansion" (markdown initials)
        (
            "Planning is slow. In this paper, we close this gap and introduce **MOTH**: "
            "**M**ulti-**O**bjective **T**ree **H**arvesting. MOTH scales.",
            "MOTH: Multi-Objective Tree Harvesting",
        ),
        # "a <description> method (NAME)": the acronym does not spell the words before it
        (
            "We propose a novel curvature-guided sampling method (CuGS) to draw samples from "
            "multimodal densities. CuGS mixes fast.",
            "CuGS: curvature-guided sampling method",
        ),
        # "an Expansion (NAME) technique": the type word after the acronym
        (
            "We introduce an Adaptive Quantile Scaling (AdaQS) technique for low-bit training.",
            "AdaQS: Adaptive Quantile Scaling",
        ),
        # a coined word with its own acronym: the word is the name
        (
            "We introduce Gene2Text (G2T), a method that writes gene expression profiles as "
            "sentences.",
            "Gene2Text: a method that writes gene expression profiles as sentences",
        ),
        # "dubbed NAME" with digits and a hyphen
        (
            "We propose a solver, dubbed Kite-2Go, for sparse linear systems on GPUs.",
            "Kite-2Go: a solver for sparse linear systems on GPUs",
        ),
        # \textsc{} and \texttt{} macros around the name; mixed case
        (
            r"We present \textsc{Harbor}, a benchmark of 300 docking tasks for molecular agents.",
            "Harbor: a benchmark of 300 docking tasks for molecular agents",
        ),
        (
            r"Our method, \texttt{eXpRT}, prunes experts in mixture models. Across tasks, eXpRT "
            "keeps accuracy.",
            "eXpRT",
        ),
        # the name only in the code link
        (
            "Forecasting storms needs fast models. We train a neural operator on radar data and "
            "show it beats numerical baselines. Code: https://github.com/lab/StormCast.",
            "StormCast: Forecasting storms needs fast models",
        ),
        # a plain capitalised name, used again later
        (
            "Protein design is slow. We introduce Marlin, the first family of equivariant "
            "protein language models. Marlin is trained on 10M sequences and Marlin transfers.",
            "Marlin: the first family of equivariant protein language models",
        ),
    ],
)
def test_introduced_names(abstract: str, label: str) -> None:
    assert derive_label(abstract) == label


def test_a_name_that_extends_its_code_link_keeps_its_own_spelling() -> None:
    # The link names the base model; the abstract introduces its hyphenated extension.
    abstract = (
        "Reading charts needs layout. This paper proposes chart-OWLET, a vision-language model "
        "for reading bar charts. We evaluate chart-OWLET on four suites. Code: "
        "https://github.com/lab/OWLET."
    )
    assert derive_label(abstract).startswith("chart-OWLET: a vision-language model")


def test_a_name_the_code_link_extends_takes_the_link_spelling_only_if_the_abstract_has_it() -> None:
    used = (
        "We propose Stepback, which takes k ascent steps before each update. Stepback-SAM "
        "sharpens minima. Code: https://github.com/lab/Stepback-SAM."
    )
    assert derive_label(used) == "Stepback-SAM"
    # "Stepback-ICML2024" is the repository, not the method.
    unused = (
        "We propose Stepback, which takes k ascent steps before each update. Code: "
        "https://github.com/lab/Stepback-ICML2024."
    )
    assert derive_label(unused) == "Stepback"


@pytest.mark.parametrize(
    ("abstract", "name"),
    [
        ('We propose a family of probes called "Shadow Readout." It reads hidden states.',
         "Shadow Readout"),
        ("We propose a method, dubbed 'Fold-and-Merge’, that recovers the layer sizes of a net.",
         "Fold-and-Merge"),
    ],
)  # fmt: skip
def test_a_quoted_name_after_a_naming_word(abstract: str, name: str) -> None:
    assert derive_label(abstract).startswith(name)


def test_our_long_form_with_its_acronym_names_the_method() -> None:
    abstract = (
        "Forecasts of chaotic flows drift. Our Stable Orbit Matching (SOM-2) objective keeps "
        "rollouts on the attractor and cuts error by half."
    )
    assert derive_label(abstract).startswith("SOM-2: Stable Orbit Matching")


def test_a_coined_word_after_the_proposed_names_the_method_only_if_used_again() -> None:
    used = (
        "Rating images needs calibration. The proposed Q-Rate aligns scores with human "
        "opinions, and Q-Rate transfers to video."
    )
    assert derive_label(used).startswith("Q-Rate")
    once = "Rating images needs calibration. The proposed Q-Rate aligns scores with opinions."
    assert not derive_label(once).startswith("Q-Rate")
    acronym = "Privacy leaks matter. The proposed MI test flags leaks, and MI is cheap to run."
    assert not derive_label(acronym).startswith("MI")


def test_quotes_around_a_plain_clause_are_not_a_name() -> None:
    abstract = 'We propose "to learn from mistakes" as a training signal for small agents.'
    assert not derive_label(abstract).startswith("to learn")


@pytest.mark.parametrize(
    ("abstract", "label"),
    [
        # the article stays, the filler words after it go
        (
            "We present Quillon, a novel, simple yet powerful sampler for discrete diffusion "
            "models with few steps.",
            "Quillon: a sampler for discrete diffusion models with few steps",
        ),
        # "a" becomes "an" when the kept word opens with a vowel
        (
            "We propose Ferrule, a new efficient optimizer that halves memory of Adam states.",
            "Ferrule: an efficient optimizer that halves memory of Adam states",
        ),
    ],
)
def test_descriptions_after_a_name_drop_filler_words(abstract: str, label: str) -> None:
    assert derive_label(abstract) == label


def test_the_introduced_name_beats_datasets_and_baselines_it_uses() -> None:
    abstract = (
        "Experiments on CIFAR-10 and ImageNet compare against ResNet-50 and ViT-B. We propose "
        "PrismNorm, a normalization layer that keeps per-channel statistics in a low-rank form. "
        "On CIFAR-10, PrismNorm beats BatchNorm."
    )
    assert derive_label(abstract).startswith("PrismNorm: a normalization layer")


def test_an_empty_macro_leaves_no_leading_punctuation() -> None:
    abstract = (
        r"Video models are expensive to train. We present \modelname{}, a video tokenizer "
        r"designed to generate concise tokens for long clips. \modelname{} halves the tokens."
    )
    label = derive_label(abstract)
    assert label == "Video tokenizer designed to generate concise tokens for long clips"


def test_a_field_acronym_used_twice_is_not_a_name() -> None:
    abstract = (
        "Physics-informed neural networks (PINNs) are hard to train. We study why PINNs fail on "
        "stiff equations and show that a curriculum over stiffness fixes training."
    )
    label = derive_label(abstract)
    assert not label.startswith("PINNs")
    # the noun phrase, not the sentence "... are hard to train"
    assert label == "Physics-informed neural networks"


@pytest.mark.parametrize(
    ("abstract", "label"),
    [
        # the contribution after an opening clause, filler words dropped
        (
            "Large models are costly to serve. Building on this observation, we propose to prune "
            "attention heads with a learned gate that is trained jointly with the model.",
            "Prune attention heads with a learned gate that is trained jointly with the model",
        ),
        # a short contribution leaves room for the problem the abstract opens with
        (
            "Retrieval for code is brittle under renaming. In this work, we study identifier "
            "noise.",
            "Retrieval for code",  # the subject, not the sentence "... is brittle ..."
        ),
        # asides in parentheses give way to content words
        (
            "We show that sharpness (the largest Hessian eigenvalue) predicts transfer across "
            "tasks.",
            "Sharpness predicts transfer across tasks",
        ),
        # hedges and praise ("recently", "crucial", "remarkable") give way to content words
        (
            "We study the crucial role of recently proposed warmup schedules in the remarkable "
            "stability of sparse mixture training.",
            "Role of proposed warmup schedules in the stability of sparse mixture training",
        ),
        # an empty head ("the problem of", "the use of") gives way to what it is about
        (
            "We revisit the problem of ranking candidate proofs with a verifier trained on "
            "partial derivations.",
            "Ranking candidate proofs with a verifier trained on partial derivations",
        ),
        (
            "This paper studies the use of innovative checksum codes for detecting silent "
            "corruption in sharded training.",
            "Checksum codes for detecting silent corruption in sharded training",
        ),
    ],
)
def test_topic_phrases_state_what_the_paper_does(abstract: str, label: str) -> None:
    assert derive_label(abstract) == label


def test_the_labeler_has_a_version() -> None:
    assert isinstance(LABELER_VERSION, int)
    assert LABELER_VERSION >= 2


def test_a_long_label_is_cut_on_a_word_boundary_with_an_ellipsis() -> None:
    label = fit("We study " + "remarkably " * 30 + "long topics.")
    assert len(label) <= MAX_LABEL_CHARS
    assert label.endswith("…")
    assert label[:-1].split(" ")[-1] == "remarkably"


def test_a_title_wins_and_is_cleaned_and_trimmed() -> None:
    abstract = _seed("operationalizes the theoretical insight")
    assert derive_label(abstract, r"\textbf{Drift}:  Fast  Rollouts") == "Drift: Fast Rollouts"
    long_title = "Learning " + "very " * 40 + "long titles"
    label = derive_label(abstract, long_title)
    assert len(label) <= MAX_LABEL_CHARS
    assert label.endswith("very…")
    assert derive_label(abstract, "  $**$ ").startswith("DRIFT")


@pytest.mark.parametrize(
    "junk", ["", "   ", "\x00\x01\x02", "$$ ** {} ``", "\ud800\udfff", "ÿ" * 3]
)
def test_empty_or_junk_text_still_gets_a_label(junk: str) -> None:
    label = derive_label(junk)
    assert label.strip()
    assert len(label) <= MAX_LABEL_CHARS


# Shapes that made a regex backtrack or a loop rescan; benchmarks/linear_time.py times them.
HOSTILE_TEXTS = [
    "we propose " + "A" * 200_000,
    "we propose " + "Aa " * 50_000 + "(",
    "We introduce " + "(" * 100_000,
    "we propose " + "A-" * 100_000,
    "called " * 50_000,
    ", a " * 50_000 + "framework",
    "\\textbf{" * 50_000,
    "we propose X" + ". We propose Y" * 20_000,
    "https://" + "a" * 200_000,
]


@pytest.mark.parametrize("hostile", HOSTILE_TEXTS, ids=lambda text: f"{text[:16]!r}x{len(text)}")
def test_hostile_input_gives_a_short_label_and_urls_from_the_text(hostile: str) -> None:
    assert all(url in hostile for url in extract_urls(hostile))
    label = derive_label(hostile)
    assert label.strip()
    assert len(label) <= MAX_LABEL_CHARS


@given(st.text(max_size=3000))
def test_any_text_gets_a_short_non_empty_label(text: str) -> None:
    label = derive_label(text)
    assert label.strip()
    assert not opens_with_punctuation(label), label
    assert len(label) <= MAX_LABEL_CHARS
    assert label == " ".join(label.split())
    assert isinstance(extract_urls(text), tuple)


# Pieces that exercise the name and markup patterns, glued in any order.
_PIECES = st.sampled_from(
    [
        "we propose ", "We introduce ", "This paper presents ", "called ", "named ", "our method, ",
        "Foo", "BAR", "Ba-Z", "(", ")", " (FB)", ", a ", "framework", " ", ". ", ",", ":", "-",
        "\\textbf{", "}", "$", "**", "`", "https://github.com/x/y", ").", "e.g. ", "\n\n", "é",
    ]
)  # fmt: skip


@given(st.lists(_PIECES, max_size=80).map("".join), st.one_of(st.none(), st.text(max_size=200)))
def test_pattern_soup_gets_a_short_non_empty_label(text: str, title: str | None) -> None:
    label = derive_label(text, title)
    assert label.strip()
    assert len(label) <= MAX_LABEL_CHARS
    assert not re.search(r"[\\$*`{}]", label)
    assert not opens_with_punctuation(label), label


def test_urls_lose_trailing_punctuation() -> None:
    text = (
        "Code: https://github.com/a/b. Project (https://a.github.io/p/), data at "
        "https://example.org/data, and docs at https://x.org/y)."
    )
    assert extract_urls(text) == (
        "https://github.com/a/b",
        "https://a.github.io/p/",
        "https://example.org/data",
        "https://x.org/y",
    )


def test_a_url_ends_before_markdown_bold() -> None:
    text = "Code: https://github.com/OPTML-Group/Unlearn-Saliency.**WARNING**: harmful images."
    assert extract_urls(text) == ("https://github.com/OPTML-Group/Unlearn-Saliency",)


def test_urls_are_deduplicated_in_order() -> None:
    text = (
        "See [https://github.com/gmum/eenn](https://github.com/gmum/eenn) and "
        r"\url{https://github.com/psmiz/STAR}; again https://github.com/gmum/eenn/."
    )
    assert extract_urls(text) == ("https://github.com/gmum/eenn", "https://github.com/psmiz/STAR")


def test_a_bare_code_host_gets_a_scheme() -> None:
    assert extract_urls("Code: github.com/org/repo.") == ("https://github.com/org/repo",)


def test_no_urls_means_an_empty_tuple() -> None:
    assert extract_urls("We use 1/2 of the data and/or labels.") == ()
    assert extract_urls("") == ()


def test_seed_urls() -> None:
    assert extract_urls(_seed("operationalizes the theoretical insight")) == (
        "https://github.com/2020-qqtcg/DRIFT",
    )
    assert extract_urls(_seed("physics simulators can serve")) == ("https://sim2reason.github.io/",)


@pytest.mark.parametrize(
    ("abstract", "name"),
    [
        # a naming word glued to the name by a lost line break
        ("Parsers stall on long inputs. This paper proposes an approach calledStreamParse, "
         "which reads each token once. StreamParse halves latency.", "StreamParse"),
        # a lowercase word, a hyphen and capitals, after "the proposed", used again
        ("Sensor drift breaks monitors. This paper aims to build a robust detector. The "
         "proposed quadric-SDX detector runs online, and Quadric-SDX is provably robust.",
         "Quadric-SDX"),
        # a title-case phrase set off by commas right after the type noun
        ("Curvature is costly to estimate. We propose a compact framework, Gradient Echo "
         "Sampling, for estimating curvature from noisy updates.", "Gradient Echo Sampling"),
        # six words between the verb and the type noun
        ("We introduce a fast and exact graph partition method, Spectral Knot Splitting (SKS), "
         "for cutting sparse graphs.", "Spectral Knot Splitting (SKS)"),
        # "our NAME model": a coined name the abstract uses again
        ("Retrieval over long books is slow. We build a tree of summaries. At inference time, "
         "our LOOMIS model retrieves from this tree, and LOOMIS beats flat retrieval.",
         "LOOMIS"),
    ],
)  # fmt: skip
def test_names_in_odd_places(abstract: str, name: str) -> None:
    assert derive_label(abstract).startswith(name)


@pytest.mark.parametrize(
    "abstract",
    [
        # once only: a variant, not the name
        "Sensor drift breaks monitors. This paper aims to build a robust detector. The proposed "
        "quadric-SDX detector runs online.",
        # three capitals after "our" are as often a field term
        "Few-shot recognition is brittle. We search fine-tuning choices, and our NAS method "
        "beats hand-tuned ones; NAS also transfers to new backbones.",
    ],
)
def test_weak_names_in_those_places_are_not_taken(abstract: str) -> None:
    label = derive_label(abstract)
    assert not label.lower().startswith(("quadric-sdx", "nas"))


def test_the_article_follows_the_sound_not_the_letter() -> None:
    abstract = "We present Kestrel, a novel universal sampler for discrete flows."
    assert derive_label(abstract) == "Kestrel: a universal sampler for discrete flows"


def test_a_joiner_left_by_a_dropped_filler_word_goes_too() -> None:
    abstract = "We present Wrenfold, a novel and scalable solver for sparse least squares."
    assert derive_label(abstract) == "Wrenfold: a scalable solver for sparse least squares"


_NOUN_PIECES = st.sampled_from(
    ["method", "ology", "tool", "kit", "box", "data", " ", "set", "s", "plug", "-", "in",
     "watermark", "ing", "test", "bed", "defence", "optimizer", "framework", "x", "model"]
)  # fmt: skip


@given(st.lists(_NOUN_PIECES, max_size=6).map("".join))
def test_type_nouns_grouped_by_letter_match_as_the_flat_alternation(text: str) -> None:
    flat = re.compile("(?:" + "|".join(words._TYPE_NOUNS) + ")s?")
    grouped = re.compile(words.TYPES)
    flat_match, grouped_match = flat.match(text), grouped.match(text)
    assert (flat_match and flat_match.span()) == (grouped_match and grouped_match.span())


def test_the_ascii_markup_shortcut_agrees_with_the_full_hint() -> None:
    for char in map(chr, range(128)):
        assert markup._marked(f"plain {char} text") == bool(markup._MARKUP_HINT.search(char)), repr(
            char
        )


def test_capitals_set_inside_words_spell_the_acronym() -> None:
    abstract = (
        "Priors for flows are hand-made. We introduce an acoustic Sparse fLow mAtching Prior "
        "(SLAP) that learns the prior from data."
    )
    assert derive_label(abstract).startswith("SLAP: Sparse fLow mAtching Prior")


def test_title_case_field_terms_in_capitals_are_not_read_that_way() -> None:
    abstract = (
        "Models drift at deployment. We study online Test Time Adaptation (TTA) under label "
        "shift and show that resetting the statistics suffices."
    )
    assert not derive_label(abstract).startswith("TTA")


@pytest.mark.parametrize(
    ("link", "name"),
    [("Backstep-SAM", "Backstep-SAM"), ("Backstep-ICML2024", "Backstep")],
)
def test_a_code_link_adds_a_part_the_abstract_names(link: str, name: str) -> None:
    abstract = (
        "Sharpness-aware minimization (SAM) takes one ascent step. We propose Backstep, which "
        f"takes several steps back before descending. Code: https://github.com/lab/{link}."
    )
    label = derive_label(abstract)
    assert label.startswith(name)
    assert not label.startswith(name + "-")


def test_a_field_word_in_lowercase_capitals_is_not_a_name() -> None:
    abstract = (
        "Decoding images from brain scans needs hours of data per person. We present shared "
        "decoders that read fMRI across subjects. Each fMRI scan is aligned to a shared space, "
        "and fMRI from one hour of scanning suffices."
    )
    label = derive_label(abstract)
    assert not label.startswith("fMRI")
    assert label == "Shared decoders that read fMRI across subjects"


def test_a_coined_word_set_in_bold_names_the_method_when_nothing_else_does() -> None:
    abstract = (
        "Ensembles are costly at inference. In this work, we improve calibration using an "
        "alternative *Fork-Ensemble* method. Splitting tasks into subtasks builds a tree-like "
        "Fork-Ensemble architecture. Across tasks, Fork-Ensemble, without extra cost, beats a "
        "single model."
    )
    assert derive_label(abstract).startswith("Fork-Ensemble")


@pytest.mark.parametrize(
    "abstract",
    [
        # an adjectival compound in bold is not a name
        "Networks generalise when fitting data. We study why **SGD-optimized** nets do, and "
        "show that SGD-optimized nets find flat minima; SGD-optimized nets transfer.",
        # an introduced name wins over a baseline set in bold
        "We propose Quarry, a sampler for discrete flows. It beats the **Fork-Net** baseline, "
        "and Fork-Net needs twice the steps.",
    ],
)
def test_bold_words_do_not_displace_better_evidence(abstract: str) -> None:
    label = derive_label(abstract)
    assert not label.startswith(("SGD-optimized", "Fork-Net"))


def test_a_dash_after_the_name_opens_its_long_form() -> None:
    abstract = (
        "Sparse retrieval is slow. We present TANGO – Token Aligned Neural Graph Operator, a "
        "retriever for long documents."
    )
    assert derive_label(abstract).startswith("TANGO: Token Aligned Neural Graph Operator")


# Abstracts written for these tests: which of an acronym and its long form leads the label.
@pytest.mark.parametrize(
    ("abstract", "label"),
    [
        # three plain capitals, one per title-case word: the long form is the name
        (
            "Replay buffers grow without bound. We propose Sliding Kernel Replay (SKR), which "
            "keeps a fixed budget of anchors. SKR halves forgetting.",
            "Sliding Kernel Replay (SKR)",
        ),
        # two capitals, two words
        (
            "Calibration drifts under shift. We introduce Quantile Tempering (QT), a method that "
            "rescales logits per quantile. QT is cheap.",
            "Quantile Tempering (QT), a method that rescales logits per quantile",
        ),
        # an acronym said as a word keeps the lead
        (
            "Graph samplers are biased. We propose Random Edge Walks (REW), a sampler that "
            "corrects the bias. REW is unbiased.",
            "REW: Random Edge Walks, a sampler that corrects the bias",
        ),
        # initials set in bold make the acronym the name
        (
            "Decoders repeat themselves. We propose **P**runed **B**eam **S**earch (PBS), a "
            "decoder that drops duplicate beams. PBS is fast.",
            "PBS: Pruned Beam Search, a decoder that drops duplicate beams",
        ),
        # four capitals, or capitals that do not start each word: the acronym leads
        (
            "Tokens are wasted. We propose Sparse Token Merging Unit (STMU), a layer that merges "
            "tokens. STMU is fast.",
            "STMU: Sparse Token Merging Unit, a layer that merges tokens",
        ),
        (
            "Proteins fold slowly. We propose Folding by Diffusion (FoD), a model that samples "
            "structures. FoD is fast.",
            "FoD: Folding by Diffusion, a model that samples structures",
        ),
        # initials with their case, small words included: the long form is the name
        (
            "Views disagree. We propose Mixing of Views (MoV), a method that averages view "
            "features. MoV is simple.",
            "Mixing of Views (MoV), a method that averages view features",
        ),
        (
            "Pruning needs retraining. We introduce Loss-free Token Pruning (LfTP), a method that "
            "drops tokens without training. LfTP is fast.",
            "Loss-free Token Pruning (LfTP), a method that drops tokens without training",
        ),
        (
            "Agents forget. We present Probe and Patch (PnP), a recipe that repairs policies. "
            "PnP helps.",
            "Probe and Patch (PnP), a recipe that repairs policies",
        ),
        # a capital letter for a small word, or a syllable: the acronym leads
        (
            "Graphs are sparse. We propose Graph Lifting Networks (GraLN), a model that lifts "
            "graphs. GraLN is fast.",
            "GraLN: Graph Lifting Networks, a model that lifts graphs",
        ),
    ],
)
def test_a_short_acronym_of_a_title_case_name_follows_it(abstract: str, label: str) -> None:
    assert derive_label(abstract) == label


def test_a_benchmark_the_whole_field_uses_is_never_the_name() -> None:
    # "namely HumanEval, HumanEval+" reads like "NAME, Expansion" after a naming word.
    abstract = (
        "Code models lag behind chat models. In this paper, we present Refine-Coder, an approach "
        "that adapts instruction evolution to code. Through experiments on three benchmarks, "
        "namely HumanEval, HumanEval+, and MBPP, our models beat open models, and on HumanEval "
        "they match closed ones."
    )
    assert derive_label(abstract).startswith("Refine-Coder: an approach")


@pytest.mark.parametrize(
    ("abstract", "name"),
    [
        (
            "Explaining clustering is hard. We introduce a Monte Carlo Tree Search (MCTS)-based "
            "search method for finding subgraphs, which we call GraphProbe. GraphProbe beats "
            "baselines.",
            "GraphProbe",
        ),
        (
            "Robots ignore gestures. We propose a vector-quantization (VQ) based fusion model, "
            "GestFuse, for embodied questions. GestFuse improves accuracy.",
            "GestFuse",
        ),
    ],
)
def test_an_acronym_that_qualifies_a_noun_is_a_part(abstract: str, name: str) -> None:
    # "(MCTS)-based", "(VQ) based fusion model": what the method is built from, not its name.
    assert derive_label(abstract).startswith(name + ":")


@pytest.mark.parametrize(
    ("abstract", "label"),
    [
        # "by introducing" opens the contribution like "we introduce"
        (
            "Meta-learned solvers treat all tasks alike. We address this gap by introducing a "
            "novel curvature-aware task picker (CATP) for meta-learning of solvers. CATP cuts "
            "the error.",
            "CATP: curvature-aware task picker",
        ),
        # "by formulating" a problem introduces no name
        (
            "Graph models forget. We tackle this by formulating a Neural Routing Search (NRS) "
            "problem over layers, and we call the result GraphKeep. GraphKeep forgets less.",
            "GraphKeep",
        ),
    ],
)
def test_a_name_introduced_by_a_gerund_after_by(abstract: str, label: str) -> None:
    assert derive_label(abstract).startswith(label)


def test_a_name_that_extends_another_wins_over_it() -> None:
    # "R-DEF" builds on the background method "DEF", which is also named and used again.
    abstract = (
        "A popular calibration method called Deep Evidence Fusion (DEF), which predicts "
        "uncertainty in one pass, is widely used. We argue DEF keeps needless settings. We "
        "therefore propose the R-DEF (Relaxed-DEF) method, which drops them. R-DEF is better "
        "calibrated."
    )
    assert derive_label(abstract).startswith("R-DEF:")


def test_what_the_authors_formulate_is_not_their_name() -> None:
    # "we formulate X as a problem" models a task; the code link names the method.
    abstract = (
        "Many tasks conflict when trained together. Specifically, we formulate JTG as a pruning "
        "problem over encoder branches. Code is at https://github.com/lab/PruneGroup."
    )
    assert derive_label(abstract).startswith("PruneGroup:")


def test_an_acronym_after_a_type_noun_names_the_authors_approach() -> None:
    # "decomposition approach (LS-Adapt)": two lowercase words before the bracket, as in a
    # field term ("neural networks (NNs)"), but the type noun makes it the approach's name.
    abstract = (
        "Adapting large models is costly. Experiments show that our low-rank plus sparse "
        "decomposition approach (LS-Adapt) outperforms strong baselines. LS-Adapt can also "
        "compress models."
    )
    assert derive_label(abstract).startswith("LS-Adapt:")


def test_a_plus_version_wins_over_the_name_it_extends() -> None:
    abstract = (
        "Quantizers overflow accumulators. Recent work proposed bound-aware quantization (B2Q), "
        "a training method that caps weights. We show that B2Q relies on a loose bound. We "
        "combine a tighter bound with weight normalization to introduce B2Q+. Experiments show "
        "B2Q+ improves accuracy."
    )
    assert derive_label(abstract).startswith("B2Q+:")


@pytest.mark.parametrize(
    ("abstract", "name"),
    [
        # a plain capitalised word, used three times, defined as the subject of a sentence
        (
            "Brain recordings are large and multimodal. We cast spike prediction as a generation "
            "problem. Cortexa is a multimodal pretrained model for spikes. We first trained "
            "Cortexa on simulated data, and Cortexa then predicted behaviour.",
            "Cortexa",
        ),
        # the tail of a capitalised term is no name
        (
            "Active learning picks labels. Graph Sampling is a common tool; we study Sampling "
            "choices. Graph Sampling is cheap, and Sampling is often biased.",
            None,
        ),
    ],
)
def test_a_plain_name_the_abstract_defines(abstract: str, name: str | None) -> None:
    label = derive_label(abstract)
    if name is None:
        assert not label.startswith("Sampling:")
    else:
        assert label.startswith(name + ":")


def test_a_coined_word_that_opens_sentences_as_the_actor_names_the_method() -> None:
    # no introducing verb anywhere: the word does things ("adds", "also improves")
    abstract = (
        "Fine-tuning on small data overfits quickly. GradJit adds noise to the gradients during "
        "training. GradJit also improves robustness on three benchmarks."
    )
    assert derive_label(abstract).startswith("GradJit:")


def test_a_coined_word_only_used_after_a_preposition_is_not_the_actor() -> None:
    abstract = (
        "We study overfitting on small data. Models trained with GradJit overfit less, and we "
        "analyse why GradJit helps."
    )
    assert not derive_label(abstract).startswith("GradJit")


@pytest.mark.parametrize(
    ("abstract", "name"),
    [
        # plain capitalised words before the type noun, used again or standing alone
        (
            "Training drifts. We propose the Drift Anchor framework, which stabilises training. "
            "Drift Anchor halves the variance.",
            "Drift Anchor",
        ),
        # ... not the tail of a longer term the abstract also uses
        (
            "Masked Image Modeling learns features. We propose an Image Modeling framework based "
            "on random projections.",
            None,
        ),
    ],
)
def test_title_case_words_before_a_type_noun(abstract: str, name: str | None) -> None:
    found = best_name(abstract)
    assert (found.name if found else None) == name
    if name:
        assert derive_label(abstract).startswith(name + " framework")


def test_us_to_propose_speaks_for_the_authors() -> None:
    abstract = (
        "Optical flow fails at occlusions. This observation motivates us to introduce "
        "FlowPatch, a method that fills occluded regions. FlowPatch is fast."
    )
    assert derive_label(abstract) == "FlowPatch: a method that fills occluded regions"


def test_a_lone_type_noun_before_the_acronym_is_no_description() -> None:
    abstract = (
        "Attention is slow on long inputs. We propose a new architecture (Wave-3) whose layer "
        "mixes tokens by convolution. Wave-3 is fast."
    )
    assert derive_label(abstract).startswith("Wave-3: ")
    assert not derive_label(abstract).startswith("Wave-3: architecture")


def test_a_well_tested_model_in_the_authors_sentence_is_not_theirs() -> None:
    abstract = (
        "Peripheral vision is hard to model. We adapt the Crowding Pool Model (CPM), a well "
        "tested model of crowding, and we build a dataset which we call Periph-Set that holds "
        "transformed images. Periph-Set helps."
    )
    assert derive_label(abstract).startswith("Periph-Set")


def test_one_plain_word_set_off_by_commas_after_the_type_noun_names_it() -> None:
    abstract = (
        "Duet dancing needs a partner. We propose a transformer based model, Partnera, which "
        "predicts the follower's moves from the music."
    )
    assert derive_label(abstract).startswith("Partnera: a transformer based model which")


@pytest.mark.parametrize(
    ("abstract", "start"),
    [
        (
            "Membership inference needs scores. We propose a new attack Mirage that poisons the "
            "training set to leak labels.",
            "Mirage: an attack that poisons",
        ),
        # a capitalised word that is a mathematician's name, not the method's
        (
            "Training is unstable. We propose a coherence measure of the loss Hessian that "
            "explains sharpness.",
            "Coherence measure",
        ),
    ],
)
def test_one_plain_word_after_the_type_noun_then_its_clause(abstract: str, start: str) -> None:
    assert derive_label(abstract).startswith(start)


def test_a_code_link_that_writes_the_hyphen_as_an_underscore_names_the_method() -> None:
    abstract = (
        "Genome models tokenize poorly. We replace k-mer tokenization with Byte Pair Encoding "
        "(BPE), a compression algorithm that merges frequent segments. We introduce Gene-Fuse-2, "
        "a genome model that adapts this tokenizer. Gene-Fuse-2 with BPE is small. Code: "
        "https://github.com/lab/Gene_Fuse_2"
    )
    assert derive_label(abstract).startswith("Gene-Fuse-2: a genome model")


def test_a_block_the_authors_design_is_a_part_of_their_method() -> None:
    abstract = (
        "Weather forecasts drift. We propose the FluxCast toward accurate and stable forecasts. "
        "We design a GateMix block to mix frequencies, which keeps energy. With GateMix, FluxCast "
        "beats baselines, and FluxCast is fast."
    )
    assert derive_label(abstract).startswith("FluxCast")


def test_what_the_authors_build_with_loses_to_what_they_build() -> None:
    abstract = (
        "Shop assistants need product knowledge. In this paper, we construct ShopSet, the first "
        "open instruction dataset for retail. Leveraging ShopSet, we develop ShopLM, a series of "
        "retail LLMs. ShopLM beats GPT-4 on ShopSet."
    )
    assert derive_label(abstract).startswith("ShopLM: a series of retail LLMs")


def test_a_project_page_behind_a_markdown_link_names_the_method() -> None:
    # Cleaning keeps "our website" and drops the URL; its folder still names the method, and
    # the abstract spells it with a space.
    abstract = (
        "Hand poses from capture are noisy. We tackle this with a novel approach, PoseClean "
        "Diffusion, built on a contact-centric representation named PoseClean. Experiments show "
        "that PoseClean Diffusion generalises. See [our website]"
        "(https://lab.github.io/PoseClean-Diffusion/)."
    )
    assert derive_label(abstract).startswith("PoseClean Diffusion:")


@pytest.mark.parametrize(
    "repository", ["MeaningfulDiversityInRestoration", "2024-ICML-TAC", "ICLR2024-Fuse"]
)
def test_a_repository_named_like_a_sentence_or_a_venue_is_no_label(repository: str) -> None:
    abstract = (
        "Image restoration is ill-posed: many clean images fit one degraded image. We study how "
        f"samplers trade accuracy for diversity. Code: https://github.com/lab/{repository}"
    )
    assert repository not in derive_label(abstract)


@pytest.mark.parametrize(
    ("abstract", "label"),
    [
        (
            "Bandits need exploration. We propose Gradient Guided Search GGS, a new algorithm "
            "based on gradient estimates. GGS attains low regret.",
            "Gradient Guided Search (GGS), an algorithm based on gradient estimates",
        ),
        (
            "Bandits need exploration. We propose Gradient Guided Tree Search GGTS, a new "
            "algorithm based on gradient estimates. GGTS attains low regret.",
            "GGTS: Gradient Guided Tree Search, an algorithm based on gradient estimates",
        ),
    ],
)
def test_an_acronym_right_after_its_long_form_without_brackets(abstract: str, label: str) -> None:
    assert derive_label(abstract) == label


@pytest.mark.parametrize(
    ("abstract", "label"),
    [
        # the paper that introduced a name the field now uses: the verb, the name, a definition
        (
            "Finetuning large models needs memory. We present QLoRA, an efficient finetuning "
            "approach that cuts memory use. QLoRA backpropagates through a frozen model.",
            "QLoRA: an efficient finetuning approach that cuts memory use",
        ),
        # used, not introduced: a field name after another verb, or one called popular
        (
            "Adapters are cheap. We apply LoRA, a low-rank adapter, to diffusion models and we "
            "propose RankTune, a method that picks the rank. RankTune helps.",
            "RankTune: a method that picks the rank",
        ),
        (
            "Adapters are cheap. We introduce LoRA, the popular adapter, into diffusion models "
            "and study its rank.",
            None,
        ),
    ],
)
def test_a_known_name_counts_only_where_the_authors_introduce_it(
    abstract: str, label: str | None
) -> None:
    if label is None:
        assert best_name(abstract) is None
    else:
        assert derive_label(abstract) == label


@pytest.mark.parametrize(
    ("abstract", "name"),
    [
        (
            "Classifiers are overconfident. We name the method Tilt and Average, and show it "
            "calibrates models.",
            "Tilt and Average",
        ),
        (
            "Rewards are sparse. We propose a framework named Chain as Critic (LM-CaC). LM-CaC "
            "produces dense rewards.",
            "Chain as Critic",
        ),
        (
            "Continual agents stop learning. We call our recipe Fox & Owl, and it keeps networks "
            "plastic.",
            "Fox & Owl",
        ),
    ],
)
def test_a_name_joined_by_a_small_word(abstract: str, name: str) -> None:
    # the name whole; what follows it, if anything, is no background sentence ("... are ...")
    label = derive_label(abstract)
    assert label == name or label.startswith(name + ":"), label
    assert " are " not in label, label


def test_two_names_joined_by_and_are_not_one_name() -> None:
    text = "We propose GradLoop and StepWise, and we name the method Tilt and Average."
    assert candidates.scored(text, "GradLoop and StepWise", "", 11, 32, base=5) is None
    found = candidates.scored(text, "Tilt and Average", "", 56, 72, base=5)
    assert found is not None
    assert found.name == "Tilt and Average"


def test_a_coined_word_that_opens_one_sentence_as_the_actor_names_the_method() -> None:
    # said once, without any introducing verb: the sentence opens with it and a verb it does
    abstract = (
        "Serving long prompts stalls the pipeline and wastes memory. KeyStream overlaps cache "
        "transfer with decoding and cuts latency by half on four clusters."
    )
    assert derive_label(abstract).startswith("KeyStream:")


def test_a_coined_word_before_a_plural_type_noun_is_a_modifier() -> None:
    # "QD-RL approaches have ...": the word after it is a noun, not a verb it does
    abstract = (
        "Exploring agents need many samples. TrustRL approaches have been limited to "
        "deterministic simulators, which we relax with stochastic rollouts."
    )
    assert not derive_label(abstract).startswith("TrustRL")


def test_a_coined_name_with_an_appositive_wins_over_plain_title_case_words() -> None:
    abstract = (
        "Planning needs long horizons. We introduce the Stochastic Bridge Planner, a generative "
        "framework that links start and goal states. We then propose PathBridge, a "
        "sampling-free planning approach built on it. The Stochastic Bridge Planner is trained "
        "once."
    )
    assert derive_label(abstract).startswith("PathBridge: a sampling-free planning approach")


def test_a_coined_name_without_an_appositive_leaves_the_plain_name_first() -> None:
    abstract = (
        "Planning needs long horizons. We introduce the Stochastic Bridge Planner, a generative "
        "framework that links start and goal states. We develop PathBridge to sample plans "
        "faster, and PathBridge runs on one GPU. The Stochastic Bridge Planner is trained once."
    )
    assert derive_label(abstract).startswith("Stochastic Bridge Planner:")


def test_a_dash_after_the_type_noun_sets_off_the_long_form() -> None:
    abstract = (
        "Offline agents copy noise. We propose a new approach - Noise-Filtered Policy "
        "Distillation (NFPD) - which splits states into signal and noise."
    )
    assert derive_label(abstract).startswith("NFPD: Noise-Filtered Policy Distillation")


def test_a_dash_after_a_word_that_names_no_artefact_is_not_that_frame() -> None:
    abstract = (
        "Offline agents copy noise. We propose a new view - Noise-Filtered Policy "
        "Distillation (NFPD) - which splits states into signal and noise."
    )
    assert not derive_label(abstract).startswith("NFPD")


def test_a_salient_name_built_on_the_best_word_wins_within_one_point() -> None:
    # "the LowRank branch (AutoLowRank)": the paper adds to the word it builds on
    abstract = (
        "Robust fine-tuning is costly. Experiments show that our proposed tuner disentangled "
        "via the LowRank branch (AutoLowRank) achieves new state-of-the-art results. "
        "AutoLowRank holds practical utility, as the LowRank branch is cheap and the LowRank "
        "weights are small."
    )
    assert derive_label(abstract).startswith("AutoLowRank:")


def test_a_variant_named_far_less_surely_leaves_the_base_name_first() -> None:
    abstract = (
        "Code agents need both skills. Our proposed Lemur models are trained on code. Lemur "
        "balances text and code, Lemur beats larger models, and Lemur runs fast. Its chat "
        "version LemurChat outperforms chat baselines, and LemurChat achieves high win rates."
    )
    assert derive_label(abstract).startswith("Lemur:")


@pytest.mark.parametrize(
    ("where", "start"),
    [
        # the lab's library that holds the code: not the method's name
        ("as part of SolverKit (https://github.com/somelab/SolverKit).", "WaveNetX"),
        # the method's own repository: its name wins (rule of step 6)
        ("at https://github.com/somelab/SolverKit.", "SolverKit"),
    ],
)
def test_a_code_link_the_abstract_calls_part_of_a_library_names_no_method(
    where: str, start: str
) -> None:
    abstract = (
        "Solvers drift over long rollouts. We propose WaveNetX, which evolves features in "
        "stages, and test it in SolverKit. Our code is available " + where
    )
    assert derive_label(abstract).startswith(start)


def test_one_lowercase_letter_and_a_hyphen_belong_to_the_salient_name() -> None:
    abstract = (
        "This paper presents a stochastic framework for fair risk minimization based on "
        "q-divergences (q-FAIRM). The algorithm behind q-FAIRM converges, and q-FAIRM beats "
        "baselines at every batch size."
    )
    assert derive_label(abstract).startswith("q-FAIRM:")


def test_a_letter_before_a_short_field_acronym_makes_no_name() -> None:
    abstract = (
        "Cross-encoders score pairs well but are slow. We propose to index items for k-NN "
        "search with a cross-encoder; k-NN recall improves and k-NN latency drops."
    )
    assert not derive_label(abstract).startswith("k-NN")


@pytest.mark.parametrize(
    ("sentence", "start"),
    [
        # text from PDFs loses the space at a line break: "wepropose" is "we propose"
        ("wepropose SLiM: Sparse linear attention with a learned mask, which", "SLiM"),
        ("wepropose to sparsify the attention map with a learned mask, which", "Attention"),
    ],
)
def test_we_glued_to_the_introducing_verb_still_speaks_for_the_authors(
    sentence: str, start: str
) -> None:
    abstract = (
        "Attention is quadratic in length. To address this, "
        + sentence
        + " keeps linear time on long inputs."
    )
    assert derive_label(abstract).startswith(start)


@pytest.mark.parametrize(
    ("sentence", "name"),
    [
        # an em dash set without spaces, then an article: the description of the name
        ("We develop the FLASHPROBE—a new, faster algorithm for the problem.", "FLASHPROBE"),
        ("We develop the FLASHPROBE–an attack for the problem.", "FLASHPROBE"),
        # a dash without an article after it is an aside, not a definition
        ("We develop the FLASHPROBE—faster than before—for the problem.", None),
    ],
)
def test_a_dash_without_spaces_before_an_article_defines_the_name(
    sentence: str, name: str | None
) -> None:
    found = best_name("Sparse attacks are hard to search. " + sentence + " It needs few queries.")
    assert (found.name if found else None) == name


@pytest.mark.parametrize(
    ("sentence", "name"),
    [
        # "derive a novel ..." introduces what it derives
        (
            "we derive a novel class of optimizers, Momentum-Stable Adam (MSAdam), aimed at "
            "damping the oscillation.",
            "MSAdam",
        ),
        # "derive" alone derives what the field already has (step 57: "IPW")
        (
            "we derive the inverse probability weighted (IPW) estimator and bound its variance.",
            None,
        ),
    ],
)
def test_deriving_introduces_only_something_novel(sentence: str, name: str | None) -> None:
    found = best_name("Optimizers oscillate near minima. Motivated by control theory, " + sentence)
    assert (found.name if found else None) == name


@pytest.mark.parametrize(
    ("sentence", "start"),
    [
        # the abstract writes the link's words apart (and in the plural): its spelling wins
        ("We add a few virtual nodes, the Spectral Bridges, that pass", "Spectral Bridges:"),
        # it never writes them: the link's spelling stays
        ("We add a few virtual nodes that pass", "SpectralBridge:"),
    ],
)
def test_a_link_only_name_is_spelled_as_the_abstract_writes_its_words(
    sentence: str, start: str
) -> None:
    abstract = (
        "Graph models miss long-range links. "
        + sentence
        + " messages between distant atoms in one hop. Code is at "
        "https://github.com/somelab/SpectralBridge."
    )
    assert derive_label(abstract).startswith(start)


@pytest.mark.parametrize(
    ("long_form", "acronym", "name"),
    [
        # a capitalised word that spells its long form from the first word on abbreviates it
        ("Normalizing the Output Vectors of Adapters", "Nova", "Nova"),
        # a word that does not spell it is no acronym of it
        ("Output Normalization for Adapters", "Falcon", "Output Normalization"),
    ],
)
def test_a_capitalised_word_in_brackets_may_be_the_acronym(
    long_form: str, acronym: str, name: str
) -> None:
    found = best_name(
        f"Adapters drift in norm. We propose a method named {long_form} ({acronym}) to rescale "
        "adapter outputs."
    )
    assert found is not None
    assert found.name == name


@pytest.mark.parametrize(
    ("introduced", "start"),
    [
        # the authors put the acronym first: it stays first
        ("GRE: Guess-Refine-Execute,", "GRE: Guess-Refine-Execute,"),
        # the long form first: a hyphenated one leads, as in "Think-on-Graph (ToG)"
        ("Guess-Refine-Execute (GRE),", "Guess-Refine-Execute: a framework"),
    ],
)
def test_a_hyphenated_long_form_leads_unless_the_authors_put_the_acronym_first(
    introduced: str, start: str
) -> None:
    abstract = (
        f"Agents explore blindly. This paper introduces {introduced} a novel framework for "
        "teaching agents to use manuals. GRE explores less."
    )
    assert derive_label(abstract).startswith(start)


@pytest.mark.parametrize(
    ("sentence", "name"),
    [
        # "we have developed": the perfect tense introduces as the present does
        ("We have developed a novel large-scale dataset, GestureQA, with a million samples.",
         "GestureQA"),
        # "have" before a verb that introduces nothing
        ("We have shown that GestureQA is hard for current models.", None),
    ],
)  # fmt: skip
def test_we_have_developed_introduces(sentence: str, name: str | None) -> None:
    found = best_name("Embodied agents ignore gestures. " + sentence)
    assert (found.name if found else None) == name


def test_a_description_stops_where_a_lost_line_break_glued_two_sentences() -> None:
    abstract = (
        "We propose GlideNet, a model for route planning on sparse maps.It learns routes from "
        "traces. GlideNet beats planners."
    )
    label = derive_label(abstract)
    assert label.startswith("GlideNet: a model for route planning on sparse maps")
    assert ".It" not in label


def test_a_description_that_would_show_a_word_or_two_gives_way_to_key_phrases() -> None:
    abstract = (
        "We present TORQUE: Temporal Ordering of Robot Queries Under Execution Errors, a "
        "framework that schedules robot queries while execution errors accumulate in warehouse "
        "picking. Warehouse picking with TORQUE cuts execution errors."
    )
    label = derive_label(abstract)
    assert label.startswith("TORQUE: Temporal Ordering of Robot Queries Under Execution Errors")
    assert ", a framework" not in label  # "…, a framework…" would say nothing
    assert len(label) <= MAX_LABEL_CHARS


@pytest.mark.parametrize(
    ("sentence", "name"),
    [
        # the long form's first word, then an acronym of the rest: the bracket is the name
        ("We propose Robust Proximal Policy Optimization (Robust PPO), a novel algorithm for "
         "noisy rewards.", "Robust PPO"),
        # the bracket's acronym does not spell the rest: the long form stays the name
        ("We propose Robust Proximal Policy Optimization (Robust GAN), a novel algorithm for "
         "noisy rewards.", "Robust Proximal Policy Optimization"),
    ],
)  # fmt: skip
def test_a_spaced_acronym_in_brackets_names_its_long_form(sentence: str, name: str | None) -> None:
    found = best_name("Rewards are noisy. " + sentence + " It is stable.")
    assert (found.name if found else None) == name


@pytest.mark.parametrize(
    ("sentence", "name"),
    [
        # quotes after "our ... method" mark the name, even with mismatched quote marks
        ("Our novel method 'Shift-and-Merge’ aligns the two layers.", "Shift-and-Merge"),
        # quoted words that are not a capitalised name are a phrase, not a name
        ("Our novel method 'Shift then merge’ aligns the two layers.", None),
    ],
)
def test_a_quoted_name_after_our_type_noun(sentence: str, name: str | None) -> None:
    found = best_name("Layers of two networks differ by a permutation. " + sentence)
    assert (found.name if found else None) == name


@pytest.mark.parametrize(
    ("sentence", "name"),
    [
        # "the name of our method: X" gives the name without an introducing verb
        ("Two passes suffice, hence the name of our method: Twice-Over.", "Twice-Over"),
        # "the name of" something that is no type noun gives none
        ("Two passes suffice, which explains the name of the effect: Twice-Over.", None),
    ],
)
def test_the_name_of_our_method_names_it(sentence: str, name: str | None) -> None:
    found = best_name("We train vision transformers on windows. " + sentence)
    assert (found.name if found else None) == name


@pytest.mark.parametrize(
    ("sentence", "name"),
    [
        # a participle after a comma introduces as a second verb does
        ("This work takes a new view, unveiling Crowd Signal - a reward model learned from "
         "likes.", "Crowd Signal"),
        # a participle that introduces nothing ("showing") names nothing
        ("This work takes a new view, showing Crowd Signal - a reward model learned from "
         "likes.", None),
    ],
)  # fmt: skip
def test_a_participle_after_a_comma_introduces(sentence: str, name: str | None) -> None:
    found = best_name("Image models ignore what users like. " + sentence)
    assert (found.name if found else None) == name


# Ninth round: names the abstract gives by how it goes on using them. Abstracts written for
# these tests; each pattern comes with a near miss that must not count.
@pytest.mark.parametrize(
    ("abstract", "name"),
    [
        # a mixed-case abbreviation of a lowercase long form, used as a sentence's subject
        ("Language models answer open-domain QA poorly from many passages. We present a simple "
         "yet effective framework that improves the accuracy of open-domain QA (ODQA) with "
         "large language models, based on the ranked evidence (RaVe). RaVe scores each passage "
         "first. Then, RaVe keeps the best ones, and RaVe explains its pick. Tests show RaVe "
         "is accurate.", "RaVe:"),
        # the coined word the authors act on, used three times
        ("Enzymes are hard to screen. With a contrastive loss, we train GlycoMatch to align "
         "sugars and enzymes. We compare GlycoMatch to sequence baselines, and GlycoMatch "
         "ranks enzymes well.", "GlycoMatch"),
        # one plain adjective, then a word coined in mixed case
        ("Clusters hide in hyperbolic space. Furthermore, we design a neural HypClusNet in the "
         "Poincare ball that finds them.", "HypClusNet"),
        # a word built on the name, used more than the name
        ("Attention is quadratic. We propose Learned Spans (LeS) and LeSformers. We evaluate "
         "LeSformer on long inputs, where LeSformer is fastest and LeSformer is accurate.",
         "LeSformer"),
        # a task the paper sets loses to the model that solves it
        ("We introduce a new task, Chart-grounded Question Answering (CGQA), a task that asks "
         "about charts. To solve it, we propose a model called ChartSeer.", "ChartSeer"),
        # a clause after an opening phrase, twice
        ("Translation metrics need references. We learn to rank systems. Without references, "
         "Rank-MT, trained on synthetic pairs, scores well. On hard sets, Rank-MT wins.",
         "Rank-MT"),
    ],
)  # fmt: skip
def test_names_the_abstract_keeps_using(abstract: str, name: str) -> None:
    assert derive_label(abstract).startswith(name)


@pytest.mark.parametrize(
    "abstract",
    [
        # a field term in capitals, however often it opens a sentence
        ("Physics matters in forecasting. We study physics-informed machine learning (PIML). "
         "PIML helps. PIML fails out of domain, and PIML needs care. PIML is popular."),
        # a plain capitalised word after "we <verb>" is no coined name
        ("Models are big. We apply Random masks to weights. Random masks prune, and Random "
         "masks are cheap."),
        # capitals alone after an adjective are a field term, not a coined name
        ("Tabular data is common. We design a simple MLP in the usual way for tables."),
    ],
)  # fmt: skip
def test_field_terms_and_plain_words_are_not_names(abstract: str) -> None:
    label = derive_label(abstract)
    assert not label.startswith(("PIML:", "Random:", "MLP:"))
    assert not label.startswith(("PIML (", "Random (", "MLP ("))


def test_a_code_link_name_is_written_as_the_abstract_uses_it() -> None:
    abstract = (
        "Concepts depend on context. We train one model for many segmentation tasks, and "
        "Kestrel needs one training run. Besides, Kestrel learns continually. Code: "
        "https://github.com/lab/Kestrel-SegAll."
    )
    assert derive_label(abstract).startswith("Kestrel")
    assert not derive_label(abstract).startswith("Kestrel-SegAll")


@pytest.mark.parametrize(
    ("abstract", "name", "long_form"),
    [
        # "our proposed method, X (ACR)" followed by a word, not only by a comma
        ("Unlearning needs labels. Experiments show the strength of our proposed method, "
         "Label-Free Erasure (LFE) without any labels, which matches supervised unlearning.",
         "LFE", "Label-Free Erasure"),
        # "our novel X (ACR)": filler words between "our" and the long form
        ("Robust optimization is pessimistic. Adding geometry to the calibration terms results "
         "in our novel Geometry-Tuned DRO (GTDRO) for regression.", "GTDRO",
         "Geometry-Tuned DRO"),
    ],
)  # fmt: skip
def test_our_long_form_with_its_acronym_after_filler_or_type_is_a_name(
    abstract: str, name: str, long_form: str
) -> None:
    found = best_name(clean(abstract))
    assert found is not None
    assert (found.name, found.expansion) == (name, long_form)


def test_a_bare_type_after_a_name_gives_way_to_key_phrases() -> None:
    abstract = (
        "Graph transfer learning fails when graphs change over time. We propose OrbitNet, a "
        "framework. Dynamic graphs, temporal shifts and non-IID transfer make source labels "
        "hard to reuse on target graphs."
    )
    label = derive_label(abstract)
    assert label.startswith("OrbitNet: ")
    assert label != "OrbitNet: a framework"
    assert len(label) > len("OrbitNet: a framework")


# Tenth round: a courtesy title's period inside a name, and a coined first word keeps its case.


@pytest.mark.parametrize(
    ("abstract", "name"),
    [
        ("Agents plan poorly over long horizons. We propose a new planning agent, called "
         "Dr. Wayfinder, which splits a maze into rooms. Dr. Wayfinder reaches far goals.",
         "Dr. Wayfinder"),
        ("Household robots leave clutter behind. We present a tidying policy dubbed Mr. Tidy, "
         "which learns where objects belong from a few photographs.", "Mr. Tidy"),
    ],
)  # fmt: skip
def test_a_courtesy_title_with_its_period_is_part_of_the_name(abstract: str, name: str) -> None:
    label = derive_label(abstract)
    assert label.startswith(name)
    assert not label.startswith(name.split(".")[0] + ":")


@pytest.mark.parametrize(
    ("phrase", "expected"),
    [
        ("νPI algorithm and its updates", "νPI algorithm and its updates"),
        ("iDEM samples, energy matching", "iDEM samples, energy matching"),
        ("eCeLLM: e-commerce models", "eCeLLM: e-commerce models"),
        # a capital only in a later part of a compound is no coined spelling
        ("text-to-3D generation, views", "Text-to-3D generation, views"),
        ("top-K gating, mixture of experts", "Top-K gating, mixture of experts"),
        ("graph neural networks", "Graph neural networks"),
        ("", ""),
    ],
)
def test_a_label_opens_with_a_capital_unless_its_first_word_is_coined(
    phrase: str, expected: str
) -> None:
    assert capitalised(phrase) == expected


def test_a_topic_label_keeps_a_lowercase_greek_letter() -> None:
    abstract = (
        "Constrained learning balances a loss against constraints. This paper proposes the "
        "μPD algorithm and contributes a control perspective on multiplier updates, which "
        "damps oscillations of the multipliers during training."
    )
    label = derive_label(abstract)
    assert "μPD" in label
    assert "ΜPD" not in label


@pytest.mark.parametrize(
    ("abstract", "label"),
    [
        # a quoted term does not hide the cut after it
        (
            'We study the notion of "criterion collapse," in which optimization of one metric '
            "implies degenerate convergence.",
            '"criterion collapse," in which optimization of one metric implies degenerate '
            "convergence",
        ),
        # a capitalised filler word inside a name stays ("General AI Assistants")
        (
            "Assistants are hard to test. We introduce GAIA, a benchmark for General AI "
            "Assistants that, if solved, would be a milestone. GAIA has 466 questions.",
            "GAIA: a benchmark for General AI Assistants",
        ),
        # a second contribution verb after "and" starts a new clause
        (
            "We propose a Hamming Weight preserving ansatz and establish the links from "
            "ansatz to circuits.",
            "Hamming Weight preserving ansatz",
        ),
        # a filler word dropped after "a" leaves the right article
        (
            "Graphs are hard. We propose a novel approach to sparse graph matching with "
            "learned costs.",
            "Approach to sparse graph matching with learned costs",
        ),
    ],
)
def test_phrases_are_cut_whole(abstract: str, label: str) -> None:
    assert derive_label(abstract) == label


def test_an_article_before_a_dropped_filler_word_agrees_with_the_next_word() -> None:
    from retrieval.labels.phrases import compress

    assert compress("a novel approach") == "an approach"
    assert compress("an efficient, simple model") == "a model"
    assert compress("a novel universal model") == "a universal model"


def test_an_abstract_without_any_phrase_keeps_its_first_sentence_whole() -> None:
    abstract = (
        "Does the coat in the picture make the person a doctor? This, of course, depends on "
        "context. If it is obvious, why do explanation methods ignore it?"
    )
    assert derive_label(abstract) == "Does the coat in the picture make the person a doctor?"


def test_a_cut_never_leaves_an_adverb_or_half_a_question() -> None:
    abstract = "We propose a parametric augmentation method which can be adaptively employed."
    assert not derive_label(abstract).endswith("adaptively")
    # at a clause end an adverb is fine
    assert derive_label("We show that fine-tuning overfits quickly.") == (
        "Fine-tuning overfits quickly"
    )


def test_a_fallback_never_shrinks_to_a_dangling_word() -> None:
    label = derive_label("We, the authors, are the first to see it. It works.")
    assert label == "We, the authors, are the first to see"


@pytest.mark.parametrize(
    ("abstract", "label"),
    [
        # a sentence's subject, cut before its verb, not "Knowledge distillation aims"
        (
            "Knowledge distillation aims to transfer knowledge from a teacher to a student. "
            "It is slow.",
            "Knowledge distillation",
        ),
        # "X can serve as Y", "X is often employed as Y": "X as Y"
        (
            "Teacher-student paradigm is often employed as a metaphor for real-life tuition. "
            "We like it.",
            "Teacher-student paradigm as a metaphor for real-life tuition",
        ),
        # "X is a Y" with nothing better: "X: a Y"
        (
            "Touch is an important sensing modality for humans. It is rich.",
            "Touch: an important sensing modality for humans",
        ),
        # a word hyphenated at a line end is whole again
        (
            "We propose SLEB, an approach designed to stream- line LLMs.",
            "SLEB: an approach designed to streamline LLMs",
        ),
    ],
)
def test_a_label_is_no_sentence(abstract: str, label: str) -> None:
    assert derive_label(abstract) == label


def test_a_name_never_ends_on_a_hyphen() -> None:
    abstract = (
        "Prompts help continual learning. We propose Hierarchical Decomposition (HiDe-)Prompt, "
        "an approach that optimizes the hierarchical components."
    )
    assert derive_label(abstract).startswith("HiDe-Prompt")
