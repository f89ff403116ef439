"""The engine end to end on temporary databases: ranking order, operators, ids, ingest, lists."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path

import numpy as np
import pytest
from rank_bm25 import BM25Okapi

from config.settings import Settings
from retrieval import text
from retrieval.engine import Engine
from retrieval.errors import CollectionNotFound, PaperNotFound, QueryError
from retrieval.snapshot import load_sentences
from retrieval.snapshot.load_index import index_path
from tests.conftest import FIXTURE_ABSTRACTS, write_list


def ids(answer: object) -> list[str]:
    return [hit.paper.id for hit in answer.hits]  # type: ignore[attr-defined]


@asynccontextmanager
async def _engine_over(
    tmp_path: Path, make_settings: Callable[..., Settings], abstracts: list[str]
) -> AsyncIterator[Engine]:
    """An engine whose only papers are `abstracts`, as fixture2026-1, -2, ... in order."""
    seeds = tmp_path / "s"
    seeds.mkdir()
    write_list(seeds / "a.txt", abstracts)
    async with await Engine.open(make_settings(seeds_dir=seeds)) as engine:
        yield engine


async def test_seeds_are_ingested_on_first_open(seed_engine: Engine) -> None:
    infos = await seed_engine.collections()
    assert [(info.name, info.slug, info.papers) for info in infos] == [
        ("ICML 2026", "icml2026", 38)
    ]


async def test_an_open_that_fails_stops_the_corpus_work_before_closing_the_store(
    fixture_seeds: Path, make_settings: Callable[..., Settings], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A warm open starts completing the sentence table in the background, reading the store;
    when a later step fails, that work is stopped before the store closes under it."""

    async def still_reading(*args: object) -> None:
        await asyncio.Event().wait()  # a long build: runs until cancelled

    async def fail(self: Engine) -> None:
        raise RuntimeError("seed ingest failed")

    monkeypatch.setattr(load_sentences, "completed_sentences", still_reading)
    monkeypatch.setattr(Engine, "reload_seeds", fail)
    with pytest.raises(RuntimeError, match="seed ingest failed"):
        await Engine.open(make_settings(seeds_dir=fixture_seeds), warm=True)
    left = [task for task in asyncio.all_tasks() if task is not asyncio.current_task()]
    assert left == []


async def test_ranking_order_on_fixture(fixture_engine: Engine) -> None:
    answer = await fixture_engine.ask("poisoning attacks on retrieval-augmented generation")
    assert ids(answer)[0] == "fixture2026-2"
    answer = await fixture_engine.ask("expert load balancing in MoE routing", limit=6)
    assert ids(answer)[:2] == ["fixture2026-1", "fixture2026-6"]
    answer = await fixture_engine.ask("faster diffusion sampler")
    assert ids(answer) == ["fixture2026-3"]


async def test_acronyms_connect_both_ways(fixture_engine: Engine) -> None:
    # "RLHF" appears nowhere; the long form is defined nowhere as an acronym either, so no match.
    spelled = await fixture_engine.ask("mixture of experts")
    assert ids(spelled)[0] == "fixture2026-1"
    short = await fixture_engine.ask("RAG")
    assert ids(short)[0] == "fixture2026-2"
    assert short.expansions == ("RAG → retrieval-augmented generation",)


async def test_acronym_query_finds_paper_that_only_spells_it_out(
    tmp_path: Path, make_settings: Callable[..., Settings]
) -> None:
    abstracts = [
        "Sparse Mixture of Experts (MoE) layers scale transformers.",
        "We analyse mixture of experts gating under distribution shift.",
        "Convolutional networks for image classification.",
    ]
    async with _engine_over(tmp_path, make_settings, abstracts) as engine:
        found = ids(await engine.ask("MoE", limit=5))
        assert set(found) == {"fixture2026-1", "fixture2026-2"}
        reverse = await engine.ask("mixture of experts", limit=5)
        assert "fixture2026-2" in ids(reverse)


async def test_an_excluded_acronym_also_leaves_out_its_long_form(
    tmp_path: Path, make_settings: Callable[..., Settings]
) -> None:
    abstracts = [
        "Jailbreak prompts for large language models (LLMs) bypass their safety training.",
        "We study LLM jailbreak attacks with a new benchmark.",
        "Jailbreak attacks on large language models break alignment.",
        "Jailbreak detection for image classifiers under patch attacks.",
    ]
    async with _engine_over(tmp_path, make_settings, abstracts) as engine:
        assert set(ids(await engine.ask("jailbreak", limit=10))) == {
            "fixture2026-1",
            "fixture2026-2",
            "fixture2026-3",
            "fixture2026-4",
        }
        # Neither "LLM" nor a paper that writes only "large language models" stays.
        assert ids(await engine.ask("jailbreak -LLM", limit=10)) == ["fixture2026-4"]
        assert ids(await engine.ask('jailbreak -"large language models"', limit=10)) == [
            "fixture2026-4"
        ]


async def test_an_acronym_that_is_a_common_word_is_not_expanded(
    tmp_path: Path, make_settings: Callable[..., Settings]
) -> None:
    spaces = [f"State space models of kind {n} scale to long sequences." for n in range(27)]
    defining = (
        "Single-round Participants Amalgamation for Contribution Evaluation (SPACE) values clients."
    )
    abstracts = [defining, *spaces, "Retrieval-augmented generation (RAG) helps."]
    async with _engine_over(tmp_path, make_settings, abstracts) as engine:
        answer = await engine.ask("state space models", limit=3)
        # 27 papers use "space" as a word, one defines SPACE: the query's word is the word.
        assert answer.expansions == ()
        assert "fixture2026-1" not in ids(answer)
        rag = await engine.ask("RAG", limit=3)
        assert rag.expansions == ("RAG → retrieval-augmented generation",)


async def test_an_acronym_with_two_spelled_meanings_is_noted_once(
    tmp_path: Path, make_settings: Callable[..., Settings]
) -> None:
    abstracts = [
        "Retrieval-augmented generation (RAG) grounds answers.",
        "We attack retrieval-augmented generation (RAG) pipelines.",
        "Retrieval-augmentation generation (RAG) is spelled another way here.",
    ]
    async with _engine_over(tmp_path, make_settings, abstracts) as engine:
        answer = await engine.ask("RAG", limit=3)
        assert answer.expansions == ("RAG → retrieval-augmented generation",)


async def test_a_long_misspelling_is_offered_the_word_closest_to_it(
    tmp_path: Path, make_settings: Callable[..., Settings]
) -> None:
    abstracts = [
        "We detect hallucination in language models.",
        "Hallucination benchmarks for vision models.",
        "A hallucinatory effect of drugs on perception.",
    ]
    async with _engine_over(tmp_path, make_settings, abstracts) as engine:
        answer = await engine.ask("halucinatoin")
        # Two edits from "hallucination", three from "hallucinatory".
        assert answer.empty and answer.suggestion == "hallucination"


async def test_a_word_of_the_long_form_alone_does_not_stand_in_for_the_acronym(
    tmp_path: Path, make_settings: Callable[..., Settings]
) -> None:
    abstracts = [
        "Reinforcement learning (RL) trains agents from rewards.",
        "We study RL agents that plan over long horizons in sparse-reward navigation tasks "
        "with partial observability, delayed feedback and noisy sensors.",
        "Learning to learn: learning rates for learning and learning curves.",
        "Image segmentation with convolutional networks.",
    ]
    async with _engine_over(tmp_path, make_settings, abstracts) as engine:
        answer = await engine.ask("RL", limit=5)
        # The third paper says "learning" five times and never RL or reinforcement learning.
        assert ids(answer) == ["fixture2026-1", "fixture2026-2"]
        assert answer.total == 2


async def test_phrase_exclusion_and_collection_filter(fixture_engine: Engine) -> None:
    routing = await fixture_engine.ask("routing", limit=6)
    assert set(ids(routing)) == {"fixture2026-1", "fixture2026-6"}
    excluded = await fixture_engine.ask("routing -congestion", limit=6)
    assert ids(excluded) == ["fixture2026-1"]
    phrase = await fixture_engine.ask('"load balancing" routing', limit=6)
    assert ids(phrase) == ["fixture2026-1"]
    wrong_order = await fixture_engine.ask('"balancing load"', limit=6)
    assert ids(wrong_order) == []
    filtered = await fixture_engine.ask("routing in:fixture2026", limit=6)
    assert len(filtered.hits) == 2
    with pytest.raises(CollectionNotFound, match="nope"):
        await fixture_engine.ask("routing in:nope")


async def test_no_vocabulary_match_is_honest_with_did_you_mean(fixture_engine: Engine) -> None:
    answer = await fixture_engine.ask("difusion")
    assert answer.hits == ()
    assert answer.total == 0
    assert answer.suggestion == "diffusion"
    assert answer.notice is None  # the shells own the one no-match sentence
    nothing = await fixture_engine.ask("zzzqqq")
    assert nothing.hits == () and nothing.suggestion is None


async def test_question_made_only_of_operators_is_refused(fixture_engine: Engine) -> None:
    with pytest.raises(QueryError):
        await fixture_engine.ask("in:fixture2026")


async def test_long_question_is_shortened_with_notice(fixture_engine: Engine) -> None:
    answer = await fixture_engine.ask("diffusion " * 1000)
    assert answer.notice is not None and "shortened" in answer.notice
    assert ids(answer) == ["fixture2026-3"]


async def test_paging_and_totals(fixture_engine: Engine) -> None:
    first = await fixture_engine.ask("we", limit=2)  # a stopword: nothing to search for
    assert first.hits == ()
    page1 = await fixture_engine.ask("networks models routing", limit=2)
    page2 = await fixture_engine.ask("networks models routing", limit=2, offset=2)
    assert page1.total == page2.total >= 4
    assert not set(ids(page1)) & set(ids(page2))
    assert [hit.rank for hit in page2.hits] == [3, 4]


async def test_excerpts_mark_matches_and_lead_answer(fixture_engine: Engine) -> None:
    answer = await fixture_engine.ask("reward hacking")
    hit = answer.hits[0]
    assert hit.paper.id == "fixture2026-5"
    assert {w.lower() for w in hit.excerpt.matched_words} >= {"reward", "hacking"}
    assert answer.lead is not None and answer.lead_paper_id == "fixture2026-5"
    assert "hacking" in answer.lead.plain


async def test_exact_mode_scores_equal_rank_bm25(
    fixture_seeds: Path, make_settings: Callable[..., Settings]
) -> None:
    settings = make_settings(seeds_dir=fixture_seeds, ranking="exact", max_results=10)
    async with await Engine.open(settings) as engine:
        question = "routing networks for experts routing"
        answer = await engine.ask(question, limit=10)
        corpus = [text.analyze(abstract) for abstract in FIXTURE_ABSTRACTS]
        expected = BM25Okapi(corpus, k1=settings.bm25_k1, b=settings.bm25_b).get_scores(
            text.analyze(question)
        )
        got = {int(hit.paper.id.split("-")[1]) - 1: hit.score for hit in answer.hits}
        for doc, score in got.items():
            # Impacts are stored as float32.
            assert score == pytest.approx(expected[doc], rel=1e-6)
        assert sorted(got) == sorted(int(i) for i in np.flatnonzero(expected))


async def test_paper_lookup_ignores_case_and_suggests(fixture_engine: Engine) -> None:
    paper = await fixture_engine.paper(" FIXTURE2026-03 ")
    assert paper.id == "fixture2026-3"
    assert paper.external_id == "fixture.txt:3"
    with pytest.raises(PaperNotFound) as caught:
        await fixture_engine.paper("fixture2026-99")
    assert "fixture2026-99" in str(caught.value)


async def test_a_typed_id_is_suggested_only_what_it_plausibly_meant(
    fixture_engine: Engine,
) -> None:
    # A word in some label ("routing", "experts") is not an id someone meant.
    for typed in ("foo", "routing", "experts"):
        with pytest.raises(PaperNotFound) as caught:
            await fixture_engine.paper(typed)
        assert caught.value.closest == ()
        assert "Ids look like `fixture2026-1`" in str(caught.value)
    for typed, meant in (("fixture2O26-3", "fixture2026-3"), ("fixture2026-", "fixture2026-1")):
        with pytest.raises(PaperNotFound) as caught:
            await fixture_engine.paper(typed)
        assert caught.value.suggestion == meant


async def test_similar_excludes_the_paper_itself(fixture_engine: Engine) -> None:
    answer = await fixture_engine.similar("fixture2026-1", limit=5)
    assert "fixture2026-1" not in ids(answer)
    assert ids(answer)[0] == "fixture2026-6"  # the other routing paper


async def test_ingest_is_idempotent_and_ids_are_stable(
    tmp_path: Path, fixture_engine: Engine
) -> None:
    extra = write_list(tmp_path / "extra.txt", ["A new abstract about protein folding."])
    first = await fixture_engine.ingest([extra])
    again = await fixture_engine.ingest([extra])
    assert (first.papers_added, again.papers_added, again.files_skipped) == (1, 0, 1)
    assert ids(await fixture_engine.ask("protein folding")) == ["fixture2026-7"]
    # The same abstract in another collection is one paper that belongs to both.
    other = write_list(
        tmp_path / "other.txt", ["A new abstract about protein folding."], "Other 2025"
    )
    report = await fixture_engine.ingest([other])
    assert (report.papers_added, report.papers_skipped) == (0, 1)
    paper = await fixture_engine.paper("fixture2026-7")
    assert paper.also_in == ("Other 2025",)
    assert ids(await fixture_engine.ask("protein in:other2025")) == ["fixture2026-7"]


async def test_bad_file_changes_nothing_and_names_the_line(
    tmp_path: Path, fixture_engine: Engine
) -> None:
    bad = tmp_path / "bad.txt"
    bad.write_bytes(b"Header\n\nfine abstract\n\nbroken \xff\xfe bytes\n")
    before = await fixture_engine.stats()
    report = await fixture_engine.ingest([bad])
    assert report.papers_added == 0
    assert len(report.errors) == 1 and "bad.txt:5" in report.errors[0]
    after = await fixture_engine.stats()
    assert after.papers == before.papers


async def test_reading_lists_survive_reopen_and_reingest(
    tmp_path: Path, fixture_seeds: Path, make_settings: Callable[..., Settings]
) -> None:
    settings = make_settings(seeds_dir=fixture_seeds)
    async with await Engine.open(settings) as engine:
        paper, added = await engine.save_paper(42, "FIXTURE2026-2")
        assert added and paper.id == "fixture2026-2"
        assert (await engine.save_paper(42, "fixture2026-2"))[1] is False
    async with await Engine.open(settings) as engine:
        await engine.ingest([write_list(tmp_path / "b.txt", ["Another abstract."], "B")])
        assert [p.id for p in await engine.saved_papers(42)] == ["fixture2026-2"]
        assert await engine.unsave_paper(42, "fixture2026-2") is True
        assert await engine.saved_papers(42) == []


async def test_saved_index_is_reused_and_rebuilt_when_stale(
    tmp_path: Path, fixture_seeds: Path, make_settings: Callable[..., Settings]
) -> None:
    settings = make_settings(seeds_dir=fixture_seeds)
    async with await Engine.open(settings) as engine:
        expected = ids(await engine.ask("routing", limit=6))
    index_dir = index_path(settings.index_location)
    assert (index_dir / "stamp.json").is_file()
    (index_dir / "impacts.npy").write_bytes(b"corrupted")
    async with await Engine.open(settings) as engine:
        assert ids(await engine.ask("routing", limit=6)) == expected


async def test_stats_and_autocomplete(fixture_engine: Engine) -> None:
    await fixture_engine.ask("routing")
    stats = await fixture_engine.stats()
    assert stats.papers == 6 and stats.collections == 1
    assert stats.questions_answered == 1 and stats.latency_p50_ms is not None
    assert [pid for pid, _ in await fixture_engine.suggest_papers("fixture2026-1")] == [
        "fixture2026-1"
    ]
    assert len(await fixture_engine.suggest_papers("", limit=25)) == 6


async def test_random_paper_respects_collection(fixture_engine: Engine) -> None:
    paper = await fixture_engine.random_paper("Fixture 2026")
    assert paper.collection == "Fixture 2026"
    # The venue without its year, as /search and chat accept it.
    assert (await fixture_engine.random_paper("fixture")).collection == "Fixture 2026"
    with pytest.raises(CollectionNotFound):
        await fixture_engine.random_paper("missing")


async def test_seed_question_ranks_eyes_on_me_first(seed_engine: Engine) -> None:
    answer = await seed_engine.ask("poisoning attacks on retrieval-augmented generation")
    assert "Eyes-on-Me" in answer.hits[0].paper.label


async def test_autocomplete_falls_back_to_full_text(fixture_engine: Engine) -> None:
    # Labels here are topic phrases without "experts"; the abstracts still match.
    found = await fixture_engine.suggest_papers("experts routing")
    assert found and found[0][0] == "fixture2026-1"
    assert len(await fixture_engine.suggest_papers("zzzz")) == 0


async def test_jsonl_and_list_of_the_same_papers_are_one_collection(
    tmp_path: Path, fixture_engine: Engine
) -> None:
    jsonl = tmp_path / "conf2024.jsonl"
    jsonl.write_text(
        '{"doc_id": "c-1", "title": "Protein Folding at Scale", "abstract": "We fold proteins."}\n',
        encoding="utf-8",
    )
    listing = write_list(tmp_path / "conf2024.txt", ["We fold proteins."], "CONF 2024 论文列表")
    first = await fixture_engine.ingest([jsonl, listing])
    assert (first.papers_added, first.papers_skipped) == (1, 1)
    infos = {info.slug: info for info in await fixture_engine.collections()}
    assert infos["conf2024"].name == "CONF 2024" and infos["conf2024"].papers == 1
    paper = await fixture_engine.paper("conf2024-1")
    assert paper.title == "Protein Folding at Scale"


async def test_titles_for_papers_known_from_a_list_are_not_lost_silently(
    tmp_path: Path, fixture_engine: Engine
) -> None:
    listing = write_list(tmp_path / "conf2024.txt", ["We fold proteins."], "CONF 2024 论文列表")
    jsonl = tmp_path / "conf2024.jsonl"
    jsonl.write_text(
        '{"title": "Protein Folding at Scale", "authors": ["Ada"], "abstract": "We fold proteins."}'
        "\n",
        encoding="utf-8",
    )
    await fixture_engine.ingest([listing])
    report = await fixture_engine.ingest([jsonl])
    assert (report.papers_added, report.papers_skipped) == (0, 1)
    [note] = [note for note in report.notes if "not applied" in note]
    assert note.startswith(f"{jsonl}: 1 paper already known; the titles and authors")
    assert "ingest this file into a new database" in note


async def test_stored_terms_are_reanalyzed_when_the_analyzer_changes(
    fixture_seeds: Path, make_settings: Callable[..., Settings]
) -> None:
    settings = make_settings(seeds_dir=fixture_seeds)
    async with await Engine.open(settings) as engine:
        await engine.store.replace_derived("analyzer", "0", terms=[(1, "stale tokens only")])
    async with await Engine.open(settings) as engine:
        assert await engine.store.derived_version("analyzer") == str(text.ANALYZER_VERSION)
        assert ids(await engine.ask("expert load balancing"))[0] == "fixture2026-1"
        assert (await engine.ask("stale tokens")).hits == ()


async def test_huge_unknown_question_gets_a_short_suggestion(fixture_engine: Engine) -> None:
    answer = await fixture_engine.ask("difusion " + "qqqzz " * 500)
    assert answer.hits == ()
    assert answer.suggestion is not None and len(answer.suggestion.split()) <= 12
    assert len(answer.question) <= fixture_engine.settings.max_query_chars


async def test_a_running_engine_catches_up_with_another_process_ingest(
    fixture_seeds: Path, make_settings: Callable[..., Settings], tmp_path: Path
) -> None:
    settings = make_settings(seeds_dir=fixture_seeds)
    extra = tmp_path / "more.txt"
    extra.write_text(
        "Later 2026\n\nQuantum annealing schedules for protein folding landscapes.\n",
        encoding="utf-8",
    )
    async with await Engine.open(settings) as running:
        assert not await running.live.catch_up()  # nothing changed yet
        async with await Engine.open(settings, ingest_seeds=False) as other:
            await other.ingest([extra])
        assert (await running.ask("quantum annealing")).hits == ()
        assert await running.live.catch_up()
        caught_up = await running.rank_text("quantum annealing protein folding", depth=7)
    async with await Engine.open(settings) as fresh:
        assert caught_up == await fresh.rank_text("quantum annealing protein folding", depth=7)
    assert caught_up[0][0] == "later2026-1"


async def test_a_running_engine_catches_up_with_ingests_it_missed_and_ranks_as_a_fresh_one(
    fixture_seeds: Path, make_settings: Callable[..., Settings], tmp_path: Path
) -> None:
    # The other process keeps its index elsewhere (another machine): the running engine has
    # to extend its own index by the papers it missed, across two ingests.
    settings = make_settings(seeds_dir=fixture_seeds)
    other_settings = settings.model_copy(update={"index_dir": tmp_path / "other-index"})
    lists = []
    for n, words in enumerate(["quantum annealing schedules", "annealing of routing experts"]):
        lists.append(tmp_path / f"more-{n}.txt")
        write_list(lists[-1], [f"We study {words} for protein folding, paper {n}."], f"Later {n}")
    query = "annealing routing experts protein"
    async with await Engine.open(settings) as running:
        before = running.corpus.generation
        async with await Engine.open(other_settings, ingest_seeds=False) as other:
            for path in lists:
                await other.ingest([path])
        assert await running.live.catch_up()
        assert running.corpus.generation > before
        caught_up = await running.rank_text(query, depth=10)
    async with await Engine.open(settings) as fresh:
        assert caught_up == await fresh.rank_text(query, depth=10)
    assert {paper_id for paper_id, _ in caught_up[:2]} == {"later0-1", "later1-1"}


async def test_an_ingest_saves_autocomplete_and_a_serving_engine_maps_it(
    tmp_path: Path,
    fixture_seeds: Path,
    make_settings: Callable[..., Settings],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # `paperbot ingest` (a one-shot engine) builds the new corpus's autocomplete once and saves
    # it; a bot opening afterwards maps the saved files and builds nothing.
    settings = make_settings(seeds_dir=fixture_seeds)
    later = write_list(tmp_path / "later.txt", ["Quokka sightings in Rottnest."], "Later 2026")
    async with await Engine.open(settings, warm=False) as engine:
        await engine.ingest([later])
        built = await engine.suggest_papers("quok")

    def no_build(*_: object) -> None:
        raise AssertionError("autocomplete was rebuilt although saved files were current")

    monkeypatch.setattr("retrieval.snapshot.load_papers.build_autocomplete", no_build)
    async with await Engine.open(settings) as engine:
        assert await engine.suggest_papers("quok") == built
        assert [pid for pid, _ in built] == ["later2026-1"]


async def test_list_size_limits_are_settings_and_the_error_names_them(
    fixture_seeds: Path, make_settings: Callable[..., Settings], tmp_path: Path
) -> None:
    big = tmp_path / "big.txt"
    big.write_text("Big 2026\n\n" + "\n\n".join(f"Abstract number {n}." for n in range(5)) + "\n")
    async with await Engine.open(make_settings(seeds_dir=fixture_seeds, max_list_papers=3)) as e:
        report = await e.ingest([big])
    assert report.files_read == 0
    assert len(report.errors) == 1 and "PAPERBOT_MAX_LIST_PAPERS" in report.errors[0]
    async with await Engine.open(make_settings(seeds_dir=fixture_seeds, max_list_papers=5)) as e:
        assert (await e.ingest([big])).papers_added == 5


async def test_warm_up_answers_nothing_it_counts(seed_engine: Engine) -> None:
    await seed_engine.warm_up()
    stats = await seed_engine.stats()
    assert stats.questions_answered == 0 and stats.latency_p50_ms is None


async def test_a_folders_other_files_are_named_as_skipped(
    tmp_path: Path, fixture_engine: Engine
) -> None:
    folder = tmp_path / "lists"
    folder.mkdir()
    write_list(folder / "conf2024.txt", ["We fold proteins."], "CONF 2024 论文列表")
    (folder / "notes.md").write_text("# my notes\n", encoding="utf-8")
    for number in range(7):
        (folder / f"figure{number}.png").write_bytes(b"\x89PNG")
    report = await fixture_engine.ingest([folder])
    assert report.papers_added == 1
    assert report.notes[0] == f"{folder / 'figure0.png'}: skipped, not a .txt or .jsonl paper list"
    # Five by name, then a count: a folder of many other files does not flood the output.
    assert report.notes[5] == "and 3 more files that are not paper lists, skipped"
