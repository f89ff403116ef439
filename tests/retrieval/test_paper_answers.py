"""Questions about one paper answered from its abstract by what they ask for."""

from __future__ import annotations

import pytest

from retrieval.paper_answers import (
    QuestionType,
    about_the_paper,
    answer_about,
    asks_for_its_code,
    asks_for_papers,
    aspects,
    missing_names,
    names_the_paper,
    points_at_the_paper,
    question_type,
    unmentioned,
)

ABSTRACT = (
    "Large language models hallucinate facts when retrieval fails. "
    "We propose GroundCheck, a verifier that scores each generated claim against retrieved "
    "passages. "
    "We evaluate GroundCheck on the TruthfulQA and FEVER benchmarks. "
    "GroundCheck reduces hallucinated claims by 35% and outperforms prior verifiers."
)


@pytest.mark.parametrize(
    ("question", "kind"),
    [
        ("what's the main result?", QuestionType.RESULT),
        ("which datasets do they use?", QuestionType.DATASET),
        ("is it evaluated on navier-stokes?", QuestionType.DATASET),
        ("how does it work?", QuestionType.METHOD),
        ("what problem does it address", QuestionType.PROBLEM),
        ("any limitations?", QuestionType.LIMITATIONS),
        ("is there code?", QuestionType.CODE),
        ("who wrote icml2026-13?", QuestionType.AUTHORS),
        ("how many parameters?", QuestionType.OTHER),
        # A newcomer's, read as method, method and result before they joined the table.
        ("what's the venue", QuestionType.VENUE),
        ("what's the gap in prior work", QuestionType.PROBLEM),
        ("whats the main contribution", QuestionType.METHOD),
    ],
)
def test_question_types(question: str, kind: QuestionType) -> None:
    assert question_type(question) is kind


def test_a_result_question_quotes_the_result_with_its_numbers_marked() -> None:
    about = answer_about(ABSTRACT, "what's the main result?")
    assert about.statement is None
    assert "35%" in about.sentences[0].plain
    assert any(span.match and "35%" in span.text for span in about.sentences[0].spans)


def test_a_dataset_question_quotes_the_benchmarks() -> None:
    about = answer_about(ABSTRACT, "which datasets?")
    assert "TruthfulQA" in about.sentences[0].plain


def test_what_the_abstract_cannot_say_is_said() -> None:
    assert answer_about(ABSTRACT, "who wrote it?").statement == (
        "Paper lists hold no authors, only abstracts."
    )
    no_data = answer_about("We prove a bound on regret for bandits.", "which datasets?")
    assert no_data.sentences == () and no_data.statement == (
        "The abstract names no data set or benchmark."
    )
    code = answer_about(ABSTRACT, "code?", urls=("https://github.com/x/y",))
    assert code.statement == "Code: https://github.com/x/y"


def test_aspects_give_proposal_data_and_result() -> None:
    sides = aspects(ABSTRACT)
    assert sides.proposes is not None and "We propose GroundCheck" in sides.proposes.plain
    assert sides.evaluated_on is not None and "FEVER" in sides.evaluated_on.plain
    assert sides.result is not None and "35%" in sides.result.plain


# Earlier work first, the paper's own after it: the shape that made prior work pass for the
# paper's method and its limitations for the paper's.
PRIOR_FIRST = (
    "Gao et al. (2023) proposed a retrieval method that ranks passages with a cross-encoder. "
    "Previous methods fail to scale to long documents and are limited to English text. "
    "In this paper, we propose LongRank, a ranker that splits documents into blocks and "
    "scores them with a shared encoder. "
    "We evaluate LongRank on the MS MARCO and TREC benchmarks. "
    "LongRank improves MRR@10 by 4.1 points over the strongest baseline."
)


@pytest.mark.parametrize(
    "question", ["what method do they propose?", "how does it work?", "what's the approach?"]
)
def test_the_method_is_the_papers_own_not_prior_work(question: str) -> None:
    about = answer_about(PRIOR_FIRST, question)
    assert about.sentences, about.statement
    assert "we propose LongRank" in about.sentences[0].plain
    assert not any("Gao et al." in s.plain or "Previous" in s.plain for s in about.sentences)


def test_the_result_is_the_papers_own_not_prior_work() -> None:
    about = answer_about(PRIOR_FIRST, "what's the main result?")
    assert "4.1 points" in about.sentences[0].plain
    assert not any("Gao et al." in s.plain for s in about.sentences)


def test_earlier_methods_limitations_are_not_the_papers() -> None:
    about = answer_about(PRIOR_FIRST, "any limitations?")
    assert about.sentences == ()
    assert about.statement == "The abstract states no limitation."


def test_a_stated_limitation_of_the_paper_is_quoted() -> None:
    abstract = PRIOR_FIRST + " However, our method is limited to English documents."
    about = answer_about(abstract, "what are the limitations?")
    assert [s.plain for s in about.sentences] == [
        "However, our method is limited to English documents."
    ]


@pytest.mark.parametrize(
    ("question", "name"),
    [
        ("is it evaluated on imagenet?", "ImageNet"),
        ("does it beat GPT-4?", "GPT-4"),
        ("was it tested on CIFAR-10?", "CIFAR-10"),
    ],
)
def test_a_name_the_abstract_never_mentions_is_said_to_be_missing(question: str, name: str) -> None:
    about = answer_about(PRIOR_FIRST, question)
    assert about.sentences == ()
    assert about.statement == f"The abstract does not mention {name}."


def test_a_two_letter_acronym_of_words_the_abstract_writes_is_not_missing() -> None:
    abstract = (
        "Single image super-resolution networks blur fine textures. We propose a texture "
        "prior that keeps them sharp."
    )
    about = answer_about(abstract, "what goes wrong with SR networks that they fix?")
    assert about.statement is None or "does not mention" not in about.statement
    assert about.sentences


def test_a_name_the_abstract_mentions_is_answered_from_it() -> None:
    about = answer_about(PRIOR_FIRST, "is it evaluated on trec?")
    assert about.statement is None
    assert "TREC" in about.sentences[0].plain
    # Upper-case chat words ("SOTA", "tl;dr") are not names to look for.
    assert answer_about(PRIOR_FIRST, "is it SOTA?").statement is None


@pytest.mark.parametrize("question", ["summarize it", "tl;dr", "what is it about?"])
def test_a_summary_gives_aim_method_and_result_in_order(question: str) -> None:
    assert question_type(question) is QuestionType.SUMMARY
    about = answer_about(PRIOR_FIRST, question)
    shown = [s.plain for s in about.sentences]
    assert 2 <= len(shown) <= 3
    sentences = [
        "Gao et al. (2023) proposed",
        "Previous methods",
        "In this paper, we propose LongRank",
        "We evaluate LongRank",
        "LongRank improves MRR@10",
    ]
    order = [next(i for i, start in enumerate(sentences) if s.startswith(start)) for s in shown]
    assert order == sorted(order)
    assert any(s.startswith("In this paper, we propose LongRank") for s in shown)
    assert any("4.1 points" in s for s in shown)


WHERE_THE_CODE_IS = (
    "Long documents are hard to rank. "
    "We introduce ChunkRank, a ranker that scores passages and pools them. "
    "To cut latency, we design a cache that reuses chunk scores across queries. "
    "We further analyse the strengths of ChunkRank and discuss deployment at scale. "
    "Implementation is open-sourced at https://github.com/example/chunkrank."
)
CHUNKRANK_LINK = ("https://github.com/example/chunkrank",)


def test_where_the_code_is_answers_only_a_code_question() -> None:
    def shown(question: str) -> list[str]:
        about = answer_about(WHERE_THE_CODE_IS, question, urls=CHUNKRANK_LINK)
        return [sentence.plain for sentence in about.sentences]

    # Where the code is never answers what it finds.
    assert not any("open-sourced" in s for s in shown("what's the main result?"))
    summary = shown("summarize it")
    assert summary[0].startswith("We introduce ChunkRank")
    assert not any("open-sourced" in s for s in summary + shown("how does it work?"))
    code = answer_about(WHERE_THE_CODE_IS, "is there code?", urls=CHUNKRANK_LINK)
    assert code.statement == "Code: https://github.com/example/chunkrank"


def test_a_short_abstract_is_its_own_summary() -> None:
    about = answer_about(ABSTRACT, "summarize it")
    assert len(about.sentences) == 3 or len(about.sentences) == 4
    assert [s.plain for s in about.sentences] == sorted(
        (s.plain for s in about.sentences), key=ABSTRACT.index
    )


def test_compared_aspects_are_different_sentences() -> None:
    for abstract in (ABSTRACT, PRIOR_FIRST):
        sides = aspects(abstract)
        shown = [s.plain for s in (sides.proposes, sides.evaluated_on, sides.result) if s]
        assert len(shown) == 3 and len(set(shown)) == 3
    sides = aspects(PRIOR_FIRST)
    assert sides.proposes is not None and "we propose LongRank" in sides.proposes.plain
    assert sides.evaluated_on is not None and "MS MARCO" in sides.evaluated_on.plain
    assert sides.result is not None and "4.1 points" in sides.result.plain


def test_one_sentence_holding_two_aspects_fills_only_one_row() -> None:
    # Data and result in one sentence: it answers one row; the other row says nothing rather
    # than repeating it.
    sides = aspects(
        "We propose FastFlow, a flow model for video. "
        "On WebVid-10M, FastFlow achieves an FVD of 238, 18% better than prior work."
    )
    rows = [sides.proposes, sides.evaluated_on, sides.result]
    shown = [row.plain for row in rows if row is not None]
    assert len(shown) == len(set(shown))
    assert sides.proposes is not None and "We propose FastFlow" in sides.proposes.plain
    assert any("WebVid-10M" in text for text in shown)


def test_an_aspect_the_abstract_does_not_state_is_none() -> None:
    sides = aspects("We prove a regret bound for linear bandits. The bound is tight.")
    assert sides.evaluated_on is None


def test_authors_and_venue_come_from_what_the_list_holds() -> None:
    # An abstract citing other people's papers: those names are not the authors.
    cited = "Building on Jacobsen & Cutkosky (2022), we propose a parameter-free optimiser."
    authors = answer_about(cited, "who are the authors?")
    assert authors.sentences == ()
    assert authors.statement == "Paper lists hold no authors, only abstracts."
    venue = answer_about(cited, "which venue is it from?", collection="ICML 2024")
    assert venue.question_type is QuestionType.VENUE
    assert venue.statement is not None and "ICML 2024" in venue.statement


def test_a_question_for_numbers_says_when_the_abstract_gives_none() -> None:
    vague = (
        "We propose a flow method for night scenes. "
        "Extensive experiments verify the superiority of the proposed method."
    )
    about = answer_about(vague, "by how much does it beat the baselines? any numbers?")
    assert about.sentences == ()
    assert about.statement == "The abstract gives no numbers."
    with_numbers = answer_about(PRIOR_FIRST, "by how much does it beat the baseline?")
    assert "4.1 points" in with_numbers.sentences[0].plain
    # "how much" without asking for figures is answered by the claim itself.
    claim = answer_about(vague, "by how much does it beat the baselines?")
    assert claim.statement is None and "superiority" in claim.sentences[0].plain


@pytest.mark.parametrize(
    ("question", "kind"),
    [
        ("what data do they use?", QuestionType.DATASET),
        ("how does it compare to GPT-4?", QuestionType.RESULT),
        ("what's new here?", QuestionType.METHOD),
        ("tl;dr", QuestionType.SUMMARY),
        ("what is it about?", QuestionType.SUMMARY),
        ("how does it decide sparse vs full attention?", QuestionType.METHOD),
        ("where does it still lose?", QuestionType.LIMITATIONS),
        ("what is the goal of the adaptive experiment?", QuestionType.PROBLEM),
        ("was this published at NeurIPS?", QuestionType.VENUE),
        ("which year?", QuestionType.VENUE),  # the list's year is the answer
        ("what years do they study", QuestionType.OTHER),
        # What it costs or rests on limits it.
        ("is it expensive to train with", QuestionType.LIMITATIONS),
        ("any cost to injecting that extra noise?", QuestionType.LIMITATIONS),
        ("does it add much overhead or slow down training", QuestionType.LIMITATIONS),
        ("what assumptions are needed", QuestionType.LIMITATIONS),
        ("how much cheaper is inference", QuestionType.RESULT),
    ],
)
def test_more_question_types(question: str, kind: QuestionType) -> None:
    assert question_type(question) is kind


def test_a_question_whose_topic_the_abstract_lacks_is_not_answered() -> None:
    about = answer_about(PRIOR_FIRST, "how many parameters?")
    assert about.sentences == ()
    assert about.statement == "The abstract does not say."


def test_a_how_long_question_finds_the_time() -> None:
    abstract = (
        "We propose RouteNet, a router for sparse attention. "
        "Training our router takes only 12 hours on 8 GPUs. "
        "RouteNet matches full attention on three long-context benchmarks."
    )
    about = answer_about(abstract, "how long does it take to train the router?")
    assert "12 hours" in about.sentences[0].plain


def test_limitations_the_paper_overcomes_and_gaps_it_fills_are_not_its_own() -> None:
    abstract = (
        "Tree search helps language models plan, but current methods need a fixed depth. "
        "However, our understanding of learned search for language models is limited. "
        "To address these limitations, we present TreeLM, a tree-search framework with a "
        "learned value function. "
        "TreeLM outperforms beam search by 6% on four reasoning benchmarks."
    )
    assert answer_about(abstract, "limitations?").statement == (
        "The abstract states no limitation."
    )
    method = answer_about(abstract, "what do they propose?")
    assert "we present TreeLM" in method.sentences[0].plain
    assert not any("understanding" in s.plain for s in method.sentences)


# An abstract in the usual order: the field, its gap, the contribution, how, the result.
KERNELS = (
    "Spectral kernel networks are a promising approach for learning from data. "
    "Nevertheless, existing designs of spectral density overlook the interactions within "
    "data structures. "
    "This paper addresses the issue through a novel approach, the Copula Kernel Network. "
    "Concretely, we redefine the spectral density with copulas to model dependence. "
    "The Copula Kernel Network is 3x faster than Transformer-based kernels and outperforms "
    "spectral baselines on six benchmarks. "
    "Our experiments also show gains over the maximum mean discrepancy on two tasks."
)


def test_the_problem_is_the_gap_not_the_contribution() -> None:
    about = answer_about(KERNELS, "what problem does it solve?")
    assert "overlook" in about.sentences[0].plain


def test_how_it_works_shows_the_detail_after_the_contribution() -> None:
    about = answer_about(KERNELS, "how does it work?")
    assert any(s.plain.startswith("Concretely") for s in about.sentences)
    assert len(about.sentences) <= 2


def test_what_it_is_compared_with_picks_the_result() -> None:
    # MMD: the initials of "maximum mean discrepancy", which the abstract does mention.
    assert answer_about(KERNELS, "how does it compare with MMD?").statement is None
    assert answer_about(KERNELS, "does it beat GPT-4?").statement == (
        "The abstract does not mention GPT-4."
    )
    faster = answer_about(KERNELS, "how much faster than transformer kernels?")
    assert "3x faster" in faster.sentences[0].plain


def test_whether_there_are_experiments_is_answered_by_them() -> None:
    abstract = (
        "We study regret in online convex optimization with memory. "
        "We prove a matching lower bound. "
        "Finally, we demonstrate the strong performance of the algorithms on federated tasks."
    )
    about = answer_about(abstract, "any experiments?")
    assert "we demonstrate" in about.sentences[0].plain


@pytest.mark.parametrize(
    ("question", "kind"),
    [
        ("what are the limitations of existing methods?", QuestionType.PROBLEM),
        ("what limitation of FNOs does it remove?", QuestionType.PROBLEM),
        ("what's the bottleneck?", QuestionType.PROBLEM),
        ("when does it fail?", QuestionType.LIMITATIONS),
        ("what do they prove?", QuestionType.RESULT),
        ("what's the regret bound?", QuestionType.RESULT),
        ("what are the key components?", QuestionType.METHOD),
        ("any experiments?", QuestionType.OTHER),
        ("whats the catch", QuestionType.LIMITATIONS),
        ("does it catch errors?", QuestionType.OTHER),
        ("what's novel compared to prior work", QuestionType.METHOD),
        ("how does DBPM find bad pairs?", QuestionType.METHOD),
        ("how does it compare with DPO?", QuestionType.RESULT),
        ("how do they measure success?", QuestionType.OTHER),
        ("what baselines?", QuestionType.RESULT),
    ],
)
def test_question_types_by_what_they_ask(question: str, kind: QuestionType) -> None:
    assert question_type(question) is kind


def test_a_question_naming_the_papers_words_is_about_it() -> None:
    assert names_the_paper("how does spectral kernel work", KERNELS)
    assert not names_the_paper("how do I filter by conference?", KERNELS)
    assert not names_the_paper("how does it work?", KERNELS)  # names nothing
    # "gap" only asks for the problem: the question has no topic of its own.
    assert about_the_paper("what gap is this filling?", KERNELS)


# A paper that states its own limitation mid-way, after its contribution.
ERNIE = (
    "Multi-agent reinforcement learning policies often lack robustness. "
    "We propose ERNIE, a framework that promotes Lipschitz policies by adversarial "
    "regularization. "
    "The key idea behind this framework is to bound how fast actions change with observations. "
    "However, ERNIE's adversarial regularization may introduce some training instability. "
    "To reduce this instability, we reformulate the regularization as a Stackelberg game. "
    "ERNIE outperforms robust baselines in traffic light control."
)


def test_a_limitation_of_the_papers_own_method_is_its_limitation() -> None:
    about = answer_about(ERNIE, "what are the drawbacks?")
    assert "training instability" in about.sentences[0].plain
    assert not any("To reduce" in s.plain for s in about.sentences)


def test_the_key_idea_is_where_the_abstract_says_key_idea() -> None:
    about = answer_about(ERNIE, "what's the key idea?")
    assert any(s.plain.startswith("The key idea") for s in about.sentences)


def test_a_metric_question_finds_the_named_measure() -> None:
    abstract = (
        "Vision-language models are costly to fine-tune. "
        "We propose UniAdapter, which shares adapters across modalities. "
        "On MSRVTT retrieval, UniAdapter reaches 49.7% recall@1 with 2.2% of the parameters."
    )
    for question in ("what metric do they report?", "what's the evaluation metric?"):
        about = answer_about(abstract, question)
        assert any("recall@1" in s.plain for s in about.sentences), question


def test_authors_are_named_when_the_list_gives_them() -> None:
    about = answer_about(PRIOR_FIRST, "who wrote it?", authors=("Ada Lovelace", "Alan Turing"))
    assert about.statement == "Authors: Ada Lovelace, Alan Turing" and about.sentences == ()


def test_a_dataset_question_asking_for_names_the_abstract_lacks_says_so() -> None:
    unnamed = (
        "We propose a bidding algorithm with regret guarantees. "
        "We demonstrate its effectiveness on real-world data from an ad exchange."
    )
    for question in ("which datasets exactly? names pls", "what's the name of the dataset?"):
        about = answer_about(unnamed, question)
        assert about.sentences == () and about.statement
    # Where the abstract names its benchmarks, they answer.
    named = answer_about(ABSTRACT, "which datasets exactly?")
    assert "TruthfulQA" in named.sentences[0].plain


def test_what_points_at_the_open_paper() -> None:
    assert points_at_the_paper("what's their main argument about empirical ML research")
    assert points_at_the_paper("why is this hard in the first place")
    assert not points_at_the_paper("any papers on sorting that they cite?")  # a search
    assert not points_at_the_paper("what about this other topic")
    assert not points_at_the_paper("can you show me this as csv")  # to the bot
    assert not points_at_the_paper("how can a model know what it doesn't know")
    # The generic "you" is not the bot.
    assert points_at_the_paper("bottom line, can you trust those explanation tools or not?")


def test_a_code_question_is_the_papers_unless_it_asks_the_bots() -> None:
    assert asks_for_its_code("where can I get the code")
    assert asks_for_its_code("can i download the checkpoints")
    assert not asks_for_its_code("is your code on github?")
    assert not asks_for_its_code("is the bot open source?")
    assert not asks_for_its_code("how does it work?")


RELEASES_ITS_ENVIRONMENT = (
    "Agents rarely act on physical scenes in real time. "
    "We introduce PhyRT, an environment for interactive physical reasoning. "
    "Agents fall far short of humans on it. "
    "The environment and baselines will be made publicly available."
)


def test_a_release_question_is_answered_by_the_release_of_what_it_names() -> None:
    released = answer_about(RELEASES_ITS_ENVIRONMENT, "will the PhyRT environment be released?")
    assert [s.plain for s in released.sentences] == [
        "The environment and baselines will be made publicly available."
    ]
    # Releasing an environment is not releasing code: a code question is told there is none.
    code = answer_about(RELEASES_ITS_ENVIRONMENT, "is there code?")
    assert code.sentences == ()
    assert code.statement == "No code or project link appears in it."


def test_a_hyphenated_name_is_mentioned_when_the_abstract_writes_its_parts() -> None:
    abstract = "We develop a stability-penalty-adaptive (SPA) learning rate for FTRL in bandits."
    assert missing_names("what regret does SPA-FTRL get", abstract) == []
    assert missing_names("what regret does SPA-UCB get", abstract) == ["SPA-UCB"]


def test_asking_the_reader_to_explain_a_name_of_the_paper_is_about_the_paper() -> None:
    assert names_the_paper("can you explain how GroundCheck works", ABSTRACT)
    # Speaking of the user's own use of the bot is not.
    assert not names_the_paper("can I save GroundCheck to my shortlist", ABSTRACT)


@pytest.mark.parametrize(
    ("message", "finds"),
    [
        ("search for cot papers", True),
        ("could you find image editing guided by multimodal llms", True),
        ("find me work on speculative decoding", True),
        ("whats wrong with the usual way thoughts get scored in cot search", False),
        ("what does the meta-refiner do in search-r2", False),
        ("what do they find about scaling?", False),
    ],
)
def test_search_and_find_ask_for_papers_only_as_the_users_verbs(message: str, finds: bool) -> None:
    assert asks_for_papers(message) is finds


def test_a_question_about_something_the_abstract_never_names_says_so() -> None:
    # A newcomer asked "does it work on llama?" and got the main result as if it answered.
    about = answer_about(ABSTRACT, "does it work on llama?")
    assert about.preface == "The abstract does not mention llama."
    assert about.sentences  # the closest it says still follows
    assert answer_about(ABSTRACT, "how is it different from ppo").preface == (
        "The abstract does not mention ppo."
    )
    assert answer_about(ABSTRACT, "do they run it on any real data or is it theory").preface is None
    # What it names, and what every paper has, is asked about, not reported absent.
    assert answer_about(ABSTRACT, "is it evaluated on fever?").preface is None
    assert answer_about(ABSTRACT, "does it beat the baselines?").preface is None
    assert unmentioned("does it use a reward model, or is it just rules", ABSTRACT) == (
        "reward model"
    )


def test_a_size_like_3x3_is_not_a_name_the_abstract_must_mention() -> None:
    # heldout11: "how big is the multiplication reduction vs winograd for 3x3 convs?" was told
    # "The abstract does not mention x3."
    abstract = "Our method cuts multiplications of 3 by 3 convolutions by 40% over Winograd."
    assert missing_names("reduction vs winograd for 3x3 convs?", abstract) == []


def test_a_one_letter_variant_of_a_name_the_abstract_writes_is_mentioned() -> None:
    # heldout12, after its reading: "what AP50 does V-DETR reach on scannetv2" on an abstract
    # that writes only "DETR" (the title says V-DETR) was told the abstract does not mention it.
    abstract = "We build on the DETR framework for 3D detection and reach 65.0% AP50 on ScanNetV2."
    assert missing_names("what AP50 does V-DETR reach on scannetv2", abstract) == []
    assert missing_names("what AP50 does V-YOLO reach", abstract) == ["V-YOLO"]
