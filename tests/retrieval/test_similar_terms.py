"""Papers like X share X's topic, not the academic prose its abstract happens to use."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from config.settings import Settings
from retrieval import text as analysis
from retrieval.engine import Engine
from retrieval.similar_terms import GENERIC_TERMS, similarity_terms
from tests.conftest import write_list

PROSE = (
    "It seems notoriously difficult, and this intricate landscape is seemingly well-understood; "
    "we systematically investigate and showcase what was overlooked."
)
ABSTRACTS = [
    # 1: the paper we want papers like: oversmoothing in graph networks, told in generic prose.
    f"Oversmoothing in graph convolution layers. {PROSE}",
    # 2: the same prose, another topic entirely.
    f"Protein folding with language models. {PROSE}",
    # 3: the same topic, plain words.
    "Graph convolution layers suffer from oversmoothing; residual connections keep node "
    "features distinct.",
    "Speech recognition with transducers.",
    "Weather forecasting with neural operators.",
    "Image classification with vision transformers.",
]


async def test_similar_papers_share_the_topic_not_the_prose(
    tmp_path: Path, make_settings: Callable[..., Settings]
) -> None:
    seeds = tmp_path / "seeds"
    seeds.mkdir()
    write_list(seeds / "a.txt", ABSTRACTS)
    async with await Engine.open(make_settings(seeds_dir=seeds)) as engine:
        answer = await engine.similar("fixture2026-1", limit=3)
        doc = engine.corpus.papers.doc_of("fixture2026-1")
        assert doc is not None
        weighted = similarity_terms(engine.corpus, doc)
        terms = [term for term, _ in weighted]
    # The paper on the same topic comes first; the one sharing only prose, if at all, after.
    assert [hit.paper.id for hit in answer.hits][:1] == ["fixture2026-3"]
    topic = set(analysis.analyze("oversmoothing graph convolution"))
    assert topic <= set(terms)
    # Topic words lead; generic prose comes after them, at a small weight.
    assert all(term not in GENERIC_TERMS for term in terms[: len(topic)])
    assert all(weight < 1 for term, weight in weighted if term in GENERIC_TERMS)


async def test_a_paper_of_mostly_prose_keeps_its_words(
    tmp_path: Path, make_settings: Callable[..., Settings]
) -> None:
    seeds = tmp_path / "seeds"
    seeds.mkdir()
    write_list(seeds / "a.txt", [PROSE, f"Protein folding. {PROSE}", *ABSTRACTS[3:]])
    async with await Engine.open(make_settings(seeds_dir=seeds)) as engine:
        answer = await engine.similar("fixture2026-1", limit=3)
    assert [hit.paper.id for hit in answer.hits][:1] == ["fixture2026-2"]


async def test_the_word_a_paper_is_about_outweighs_many_it_uses_once(
    tmp_path: Path, make_settings: Callable[..., Settings]
) -> None:
    # The source is about molecules (said four times) and uses a few common words once; one
    # paper shares all the common words and no molecule, another shares the molecules.
    seeds = tmp_path / "seeds"
    seeds.mkdir()
    write_list(
        seeds / "a.txt",
        [
            "Molecule instructions: molecule property prediction from molecule graphs, each "
            "molecule described in text, zero-shot with an encoder and prompts.",
            "Speech synthesis zero-shot: a text encoder conditioned on prompts.",
            "Molecule generation with graph diffusion over molecule structures.",
            "Weather forecasting with neural operators.",
            "Image classification with vision transformers.",
            "Protein folding with language models.",
        ],
    )
    async with await Engine.open(make_settings(seeds_dir=seeds)) as engine:
        answer = await engine.similar("fixture2026-1", limit=2)
    assert [hit.paper.id for hit in answer.hits][:1] == ["fixture2026-3"]
