"""Watches over the real engine and seeds: what matches, one digest per ingest per watch, never
a paper twice, exactly-once claims across store connections, pauses, limits."""

from __future__ import annotations

import asyncio
import math
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from config.settings import Settings
from retrieval.engine import Engine
from retrieval.errors import PaperbotError, StoreError
from retrieval.stores.sqlite import SqliteStore
from retrieval.watches.matching import (
    about_words,
    candidates,
    holds_all,
    matching_docs,
    model_matching_docs,
    scored_top,
)
from retrieval.watches.model import FEATURES, load_model
from retrieval.watches.service import DIGEST_PAPERS, Digest, WatchError
from tests.conftest import SEEDS, write_list

MOE = (
    "Mixture of experts (MoE) layers route each token to a few experts, but learned routing "
    "collapses onto a handful of experts. We propose balanced expert routing for sparse "
    "mixture of experts models, a router that keeps every expert busy, and show that our "
    "mixture of experts routing improves perplexity at equal compute."
)
EXPERT_ONCE = (
    "We present a dataset of protein structures annotated by a domain expert and a graph "
    "network that predicts binding sites from residue contacts, improving accuracy on "
    "held-out protein families."
)
UNRELATED = "Diffusion models generate video frames with temporal attention across long clips."


def moe_variant(n: int) -> str:
    return MOE.replace("perplexity", f"perplexity on benchmark number {n}")


@pytest.fixture
async def engine(make_settings: Callable[..., Settings]) -> Any:
    async with await Engine.open(make_settings(seeds_dir=SEEDS)) as opened:
        yield opened


def ids_in(digests: list[Digest]) -> dict[int, list[str]]:
    return {d.watch_id: [p.paper_id for p in d.papers] for d in digests}


async def test_moe_watch_fires_for_moe_paper_not_for_one_expert_mention(
    engine: Engine, tmp_path: Path
) -> None:
    moe = await engine.watches.add(1, "mixture of experts routing")
    other = await engine.watches.add(2, "video diffusion temporal attention")
    await engine.ingest([write_list(tmp_path / "new.txt", [EXPERT_ONCE, MOE])])
    digests = await engine.watches.pending()
    found = ids_in(digests)
    assert found[moe.id] == ["fixture2026-2"]
    assert other.id not in found
    [digest] = [d for d in digests if d.watch_id == moe.id]
    assert digest.by_dm and digest.user_id == 1 and digest.more == 0
    assert "routing" in digest.papers[0].sentence.lower()
    # The one-mention paper was left out for lacking the other words, not for its rank.
    corpus = engine.corpus
    doc = corpus.papers.doc_of("fixture2026-1")
    assert doc is not None
    top = dict(scored_top(corpus, engine.options, "mixture of experts routing", 10, 300))
    assert doc in top and not holds_all(corpus, ["mixtur", "expert", "rout"])[doc]


async def test_one_digest_per_ingest_and_never_a_paper_twice(
    engine: Engine, tmp_path: Path
) -> None:
    watch = await engine.watches.add(1, "mixture of experts routing", guild_id=5, channel_id=9)
    await engine.ingest([write_list(tmp_path / "a.txt", [MOE])])
    # The same abstract in another collection is no new paper: nothing more is announced.
    await engine.ingest([write_list(tmp_path / "b.txt", [MOE], header="Other 2026 papers")])
    await engine.ingest([write_list(tmp_path / "c.txt", [moe_variant(1)], header="Third 2027")])
    digests = [d for d in await engine.watches.pending() if d.watch_id == watch.id]
    assert [[p.paper_id for p in d.papers] for d in digests] == [["fixture2026-1"], ["third2027-1"]]
    assert all(d.channel_id == 9 and d.guild_id == 5 and not d.by_dm for d in digests)


async def test_digest_shows_five_and_counts_the_rest(
    make_settings: Callable[..., Settings], tmp_path: Path
) -> None:
    settings = make_settings(seeds_dir=SEEDS, watch_min_score=0.0, watch_top_k=50)
    async with await Engine.open(settings) as engine:
        watch = await engine.watches.add(1, "mixture of experts routing")
        await engine.ingest([write_list(tmp_path / "a.txt", [moe_variant(n) for n in range(7)])])
        [digest] = [d for d in await engine.watches.pending() if d.watch_id == watch.id]
    assert len(digest.papers) == DIGEST_PAPERS and digest.more == 2


async def test_claim_is_exactly_once_across_connections(engine: Engine, tmp_path: Path) -> None:
    await engine.watches.add(1, "mixture of experts routing")
    await engine.ingest([write_list(tmp_path / "a.txt", [MOE])])
    [digest] = await engine.watches.pending()
    other = await SqliteStore.open(engine.settings.db_path)
    try:
        wins = await asyncio.gather(
            engine.watches.claim(digest, "process-a"),
            other.claim_digest(digest.id, "process-b"),
            engine.watches.claim(digest, "process-a"),
        )
    finally:
        await other.close()
    assert sorted(wins) == [False, False, True]
    assert await engine.watches.pending() == []


async def test_failed_delivery_pauses_the_watch_without_retry(
    engine: Engine, tmp_path: Path
) -> None:
    watch = await engine.watches.add(1, "mixture of experts routing")
    await engine.ingest([write_list(tmp_path / "a.txt", [MOE])])
    [digest] = await engine.watches.pending()
    assert await engine.watches.claim(digest, "me")
    await engine.watches.failed(digest, "DMs are closed")
    [row] = await engine.watches.of(1)
    assert row.id == watch.id and row.paused_reason == "DMs are closed"
    assert row.last_fired_at is None
    await engine.ingest([write_list(tmp_path / "b.txt", [moe_variant(2)], header="More 2026")])
    assert await engine.watches.pending() == []


async def test_delivery_sets_last_fired(engine: Engine, tmp_path: Path) -> None:
    await engine.watches.add(1, "mixture of experts routing")
    await engine.ingest([write_list(tmp_path / "a.txt", [MOE])])
    [digest] = await engine.watches.pending()
    await engine.watches.claim(digest, "me")
    await engine.watches.delivered(digest)
    [row] = await engine.watches.of(1)
    assert row.last_fired_at is not None and row.paused_reason is None


async def test_limits_and_bad_queries(make_settings: Callable[..., Settings]) -> None:
    settings = make_settings(seeds_dir=SEEDS, watch_max_per_user=2, watch_max_per_guild=3)
    async with await Engine.open(settings) as engine:
        await engine.watches.add(1, "moe", guild_id=7)
        await engine.watches.add(1, "rag", guild_id=7)
        with pytest.raises(WatchError, match="You have 2 watches, the limit"):
            await engine.watches.add(1, "diffusion", guild_id=7)
        await engine.watches.add(2, "diffusion", guild_id=7)
        with pytest.raises(WatchError, match="This server has 3 watches"):
            await engine.watches.add(3, "video", guild_id=7)
        with pytest.raises(WatchError, match="cannot be watched"):
            await engine.watches.add(3, "-moe")
        with pytest.raises(WatchError, match="at most 300"):
            await engine.watches.add(3, "x" * 301)
        assert not await engine.watches.remove(2, 1)  # not theirs
        assert await engine.watches.remove(1, 1)
        assert [w.query for w in await engine.watches.of(1)] == ["rag"]


async def test_the_same_watch_twice_in_one_place_is_refused(engine: Engine) -> None:
    first = await engine.watches.add(1, "moe routing", guild_id=7, channel_id=70)
    with pytest.raises(
        WatchError, match=f"already watch “moe routing” there \\(watch {first.id}\\)"
    ):
        await engine.watches.add(1, "MoE   routing", guild_id=7, channel_id=70)
    # Elsewhere (by DM, another channel) or by someone else, it is another watch.
    await engine.watches.add(1, "moe routing")
    await engine.watches.add(1, "moe routing", guild_id=7, channel_id=71)
    await engine.watches.add(2, "moe routing", guild_id=7, channel_id=70)
    assert len(await engine.watches.of(1)) == 3


async def test_a_watch_of_only_common_words_is_refused(engine: Engine) -> None:
    for query in ("the", "of the and", '"the of"'):
        with pytest.raises(WatchError, match="only common words") as caught:
            await engine.watches.add(1, query)
        assert "\n" not in str(caught.value)
    assert await engine.watches.of(1) == []
    assert [w.query for w in [await engine.watches.add(1, "the routing")]] == ["the routing"]


async def test_watch_unrelated_to_new_papers_gets_nothing(engine: Engine, tmp_path: Path) -> None:
    await engine.watches.add(1, "mixture of experts routing")
    await engine.ingest([write_list(tmp_path / "a.txt", [UNRELATED])])
    assert await engine.watches.pending() == []


@pytest.fixture(scope="module")
def seed_corpus(tmp_path_factory: pytest.TempPathFactory) -> Any:
    """The seeds' corpus and rank options (a sync fixture, for hypothesis)."""
    path = tmp_path_factory.mktemp("watch-corpus") / "db.sqlite"
    settings = Settings(_env_file=None, db_path=path, seeds_dir=SEEDS)  # type: ignore[call-arg]

    async def load() -> Any:
        async with await Engine.open(settings) as engine:
            return engine.corpus, engine.options

    return asyncio.run(load())


_QUERY = st.text(
    alphabet=st.sampled_from([*list('moe routing expert"-: in:icml2026 RAG'), "\u200b", "é"])
    | st.characters(),
    max_size=120,
)


@given(query=_QUERY, threshold=st.floats(min_value=0, max_value=2), new=st.sets(st.integers(0, 40)))
def test_matching_is_filtered_and_ordered(
    seed_corpus: Any, query: str, threshold: float, new: set[int]
) -> None:
    corpus, options = seed_corpus
    try:
        found = matching_docs(
            corpus, options, query, new, top_k=10, min_score=threshold, max_chars=300
        )
        top = {doc for doc, _ in scored_top(corpus, options, query, 10, 300)}
    except PaperbotError:
        return  # an unsearchable query is refused with a message, as /search does
    scores = [score for _, score in found]
    assert all(doc in new for doc, _ in found)
    assert all(math.isfinite(score) for score in scores)
    assert all(doc in top or score >= threshold for doc, score in found)
    assert scores == sorted(scores, reverse=True)


async def test_a_digest_failure_does_not_fail_the_ingest(
    engine: Engine,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    async def broken(new_docs: Any) -> Any:
        raise StoreError("The disk holding the database x is full; free some space and retry.")

    monkeypatch.setattr(engine.watches, "after_ingest", broken)
    report = await engine.ingest([write_list(tmp_path / "a.txt", [MOE])])
    assert report.papers_added == 1
    assert (await engine.paper("fixture2026-1")).abstract == MOE
    assert "watch digests for this ingest failed: The disk" in caplog.text


ZORBLAX = (
    "We introduce zorblax, a quantum gardening protocol that schedules watering and light for "
    "greenhouse plants with a small quantum annealer. Zorblax encodes each bed as a qubit and "
    "finds schedules that raise yield by 12% over a greedy baseline in three seasons of field "
    "trials, and we release the sensor logs and the scheduler."
)
FOLDDIFF = (
    "Protein design with diffusion models has produced backbones that fold in silico, but few "
    "designs express in the lab. We propose FoldDiff, a diffusion model over residue frames "
    "that conditions on expression data, and show that 41% of its sampled proteins express "
    "and fold, against 18% for the strongest baseline."
)
# Shares one ordinary word ("quantum") with the zorblax watch and nothing else.
QUANTUM_ONLY = (
    "Quantum error correction needs fast decoders. We train a small recurrent network that "
    "decodes surface codes in real time and matches minimum-weight matching on hardware noise."
)


async def test_a_first_ranked_paper_with_every_watch_word_fires(
    engine: Engine, tmp_path: Path
) -> None:
    """Issue 23: a fresh store (seeds only), a watch, then a paper about exactly that."""
    zorblax = await engine.watches.add(1, "zorblax quantum gardening")
    protein = await engine.watches.add(2, "protein diffusion")
    await engine.ingest([write_list(tmp_path / "new.txt", [ZORBLAX, FOLDDIFF])])
    found = ids_in(await engine.watches.pending())
    assert found == {zorblax.id: ["fixture2026-1"], protein.id: ["fixture2026-2"]}
    corpus = engine.corpus
    for query, paper in (("zorblax quantum gardening", 1), ("protein diffusion", 2)):
        [(first, _), *_] = scored_top(corpus, engine.options, query, 1, 300)
        assert corpus.papers.paper_id(first) == f"fixture2026-{paper}"


async def test_a_paper_sharing_one_word_does_not_fire_though_it_ranks_first(
    engine: Engine, tmp_path: Path
) -> None:
    watch = await engine.watches.add(1, "zorblax quantum gardening")
    await engine.ingest([write_list(tmp_path / "new.txt", [QUANTUM_ONLY])])
    assert watch.id not in ids_in(await engine.watches.pending())
    # It is the only paper holding a watch word, so rank alone would have announced it.
    corpus = engine.corpus
    [(first, _)] = scored_top(corpus, engine.options, "zorblax quantum gardening", 10, 300)
    assert corpus.papers.paper_id(first) == "fixture2026-1"


# Names every word of the MoE watch once, late, while being about something else.
MOE_IN_PASSING = (
    "Sparse attention lowers the cost of long-context transformers. We propose a block-sparse "
    "kernel that skips empty tiles and a scheduler that balances tiles across streaming "
    "multiprocessors, giving a 2.1x speedup at sequence length 64k with no loss in quality. "
    "The kernel composes with quantisation and with pipelined decoding. Unlike mixture of "
    "experts routing, it needs no auxiliary loss."
)
# Names every word once, in its first sentence: the paper's subject.
MOE_IN_LEAD = (
    "We study load imbalance in mixture of experts routing for speech recognition. A small "
    "auxiliary predictor estimates token difficulty from acoustic features, and tokens are "
    "sent to capacity buckets by that estimate, lowering word error rate at equal compute."
)


async def test_a_paper_naming_the_words_in_passing_does_not_fire_unless_first(
    engine: Engine, tmp_path: Path
) -> None:
    watch = await engine.watches.add(1, "mixture of experts routing")
    await engine.ingest([write_list(tmp_path / "new.txt", [MOE, MOE_IN_PASSING, MOE_IN_LEAD])])
    assert ids_in(await engine.watches.pending())[watch.id] == ["fixture2026-1", "fixture2026-3"]
    corpus = engine.corpus
    passing = corpus.papers.doc_of("fixture2026-2")
    ranked = [doc for doc, _ in scored_top(corpus, engine.options, watch.query, 10, 300)]
    # It holds every word and ranks in the top K, so only the new condition leaves it out.
    assert passing in ranked[1:] and holds_all(corpus, ["mixtur", "expert", "rout"])[passing]
    assert not about_words(corpus, ["mixtur", "expert", "rout"], passing)


# About distillation throughout, without the watch's other word ("knowledge").
DISTILLATION = (
    "Distillation trains a small student to imitate a large teacher. We show that distillation "
    "from an ensemble of teachers fails when their logits disagree, and propose a distillation "
    "loss that weights each teacher by its confidence; the distilled student matches the "
    "teacher ensemble on ImageNet with a tenth of its parameters."
)
# Papers using the watch's common word ("knowledge"), as many papers of a real corpus do.
KNOWLEDGE = [
    "Knowledge graphs store facts as triples; we complete missing links with a graph network.",
    "Language models hold world knowledge; we edit one fact without changing the others.",
    "We measure how much knowledge a vision model transfers to new tasks.",
]


async def test_the_model_fires_for_a_paper_on_the_topic_missing_a_common_word(
    make_settings: Callable[..., Settings], tmp_path: Path
) -> None:
    papers = [DISTILLATION, *KNOWLEDGE]
    found = {}
    for matcher in ("model", "words"):
        settings = make_settings(
            seeds_dir=SEEDS,
            db_path=tmp_path / matcher / "db.sqlite",
            watch_matcher=matcher,
            watch_min_probability=0.3,
            watch_min_score=0.0,
            watch_top_k=50,
        )
        async with await Engine.open(settings) as engine:
            watch = await engine.watches.add(1, "knowledge distillation")
            await engine.ingest([write_list(tmp_path / f"{matcher}.txt", papers)])
            found[matcher] = ids_in(await engine.watches.pending()).get(watch.id)
    # The words rule needs both words at any threshold; the model weighs the rare one more.
    assert found == {"model": ["fixture2026-1"], "words": None}


async def test_the_model_keeps_the_rank_first_guarantee_at_any_threshold(
    make_settings: Callable[..., Settings], tmp_path: Path
) -> None:
    settings = make_settings(seeds_dir=SEEDS, watch_min_probability=1.0)
    async with await Engine.open(settings) as engine:
        zorblax = await engine.watches.add(1, "zorblax quantum gardening")
        moe = await engine.watches.add(2, "mixture of experts routing")
        await engine.ingest([write_list(tmp_path / "new.txt", [ZORBLAX, MOE_IN_LEAD])])
        found = ids_in(await engine.watches.pending())
        corpus = engine.corpus
        [(first, _)] = scored_top(corpus, engine.options, moe.query, 1, 300)
    # Only the first-ranked paper holding every word fires when no probability is enough.
    assert found[zorblax.id] == ["fixture2026-1"]
    assert found.get(moe.id, []) == (
        ["fixture2026-2"] if corpus.papers.paper_id(first) == "fixture2026-2" else []
    )


def test_the_model_is_loaded_once_and_names_known_features() -> None:
    model = load_model()
    assert load_model() is model
    assert set(model.fitted.names) <= set(FEATURES) and 0 < model.threshold < 1


@given(
    query=_QUERY,
    threshold=st.one_of(st.none(), st.floats(min_value=0, max_value=1)),
    new=st.sets(st.integers(0, 40)),
)
def test_model_matching_is_filtered_ordered_and_needs_the_rarest_word(
    seed_corpus: Any, query: str, threshold: float | None, new: set[int]
) -> None:
    corpus, options = seed_corpus
    try:
        found = model_matching_docs(
            corpus, options, query, new, min_probability=threshold, max_chars=300
        )
        pool = candidates(corpus, options, query, new, 300)
    except PaperbotError:
        return
    least = load_model().threshold if threshold is None else threshold
    rarest = FEATURES.index("top_held")
    held = zip(pool.docs, pool.rows, pool.holding, strict=True)
    by_doc = {doc: (row, holds) for doc, row, holds in held}
    chances = [chance for _, chance in found]
    assert all(doc in new and doc in by_doc for doc, _ in found)
    assert all(0.0 <= chance <= 1.0 for chance in chances)
    assert chances == sorted(chances, reverse=True)
    for doc, chance in found:
        row, holds = by_doc[doc]
        assert (chance >= least and row[rarest] > 0) or (holds and doc == pool.first)


@given(query=_QUERY, new=st.sets(st.integers(0, 40)))
def test_the_rarest_word_mask_agrees_with_the_feature(
    seed_corpus: Any, query: str, new: set[int]
) -> None:
    corpus, options = seed_corpus
    try:
        every = candidates(corpus, options, query, new, 300)
        rarest = candidates(corpus, options, query, new, 300, rarest_only=True)
    except PaperbotError:
        return
    column = FEATURES.index("top_held")
    assert rarest.docs == [
        doc for doc, row in zip(every.docs, every.rows, strict=True) if row[column]
    ]
