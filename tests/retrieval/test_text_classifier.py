"""The text classifier: features, fitting, saving, and the shipped intent model's contract."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from retrieval.conversation.classifier import INTENTS, shipped_model
from retrieval.text_classifier import TextClassifier, feature_hashes, feature_names, fit, tokens


def test_ids_and_numbers_are_abstracted_so_the_model_learns_their_shape() -> None:
    assert tokens("Pull up ICML2026-13 and #5!") == ["pull", "up", "<id>", "and", "#", "<n>", "!"]
    assert tokens("icml 2024 55") == ["<id>"]


def test_features_are_stable_and_typos_share_most_of_them() -> None:
    assert feature_hashes("compare 1 and 2").tolist() == feature_hashes("compare 1 and 2").tolist()
    right, typo = set(feature_hashes("compare").tolist()), set(feature_hashes("compair").tolist())
    assert len(right & typo) >= len(right) // 3


def test_topical_words_add_the_messages_shape_with_each_run_as_one_mark() -> None:
    topical = frozenset({"imitation", "learning", "theory", "dense"})
    names = feature_names("Imitation learning theory is so dense", topical)
    assert "s:^_T" in names and "s3:T_is_so" in names and "s3:so_T_$" in names
    assert "w:imitation" in names  # the words themselves are still seen
    assert not any(name.startswith("s") and ":" in name for name in feature_names("hi there"))


def test_a_shape_learned_on_one_topic_carries_to_another() -> None:
    topical = frozenset({"diffusion", "graphs", "bandits", "kernels", "robotics", "privacy"})
    texts = ["diffusion is so overrated lol", "graphs is so overrated lol"] * 3 + [
        "diffusion for graphs",
        "bandits for robotics",
        "kernels for privacy",
    ] * 2
    labels = ["small_talk"] * 6 + ["search"] * 6
    model = fit(texts, labels, INTENTS, epochs=150, learning_rate=0.1, topical=topical)
    unseen = model.probabilities("robotics is so overrated lol")
    plain = fit(texts, labels, INTENTS, epochs=150, learning_rate=0.1).probabilities(
        "robotics is so overrated lol"
    )
    assert unseen["small_talk"] > plain["small_talk"]
    assert max(unseen, key=unseen.__getitem__) == "small_talk"


def test_fit_learns_a_small_task_and_survives_a_round_trip(tmp_path: Path) -> None:
    texts = [
        "hello there",
        "hi friend",
        "thanks a lot",
        "thank you",
        "papers on rlhf",
        "gnn papers",
    ]
    labels = ["greeting", "greeting", "thanks", "thanks", "search", "search"]
    model = fit(texts, labels, INTENTS, epochs=150, learning_rate=0.1, topical=frozenset({"gnn"}))
    for text, label in zip(texts, labels, strict=True):
        probabilities = model.probabilities(text)
        assert max(probabilities, key=probabilities.__getitem__) == label
    path = tmp_path / "model.npz"
    model.save(path)
    loaded = TextClassifier.load(path)
    assert loaded.topical == frozenset({"gnn"})
    for text in texts:
        before, after = model.probabilities(text), loaded.probabilities(text)
        assert before.keys() == after.keys()
        assert all(abs(before[k] - after[k]) < 1e-2 for k in before)  # saved as float16


@given(st.text(max_size=400))
def test_the_shipped_model_gives_a_distribution_for_any_text(text: str) -> None:
    probabilities = shipped_model().probabilities(text)
    assert tuple(probabilities) == INTENTS
    assert sum(probabilities.values()) == pytest.approx(1.0)
    assert all(0.0 <= p <= 1.0 for p in probabilities.values())


def test_log_prior_moves_odds_by_the_shares_of_real_conversations(tmp_path: Path) -> None:
    texts = ["papers on rlhf", "gnn papers", "diffusion models", "ok cool"]
    labels = ["search", "search", "search", "small_talk"]
    model = fit(texts, labels, INTENTS, epochs=150, learning_rate=0.1)
    prior = np.zeros(len(INTENTS), dtype=np.float32)
    prior[INTENTS.index("search")] = -3.0  # searches 20 times rarer than in training
    shifted = replace(model, log_prior=prior)
    for text in ("bummer", "papers on gnn", "ok cool"):
        before, after = model.probabilities(text), shifted.probabilities(text)
        odds_before = before["small_talk"] / before["search"]
        assert after["small_talk"] / after["search"] == pytest.approx(odds_before * np.exp(3.0))
        assert after["greeting"] / after["thanks"] == pytest.approx(
            before["greeting"] / before["thanks"]
        )
    path = tmp_path / "model.npz"
    shifted.save(path)
    loaded = TextClassifier.load(path)
    assert loaded.log_prior is not None and loaded.log_prior.tolist() == prior.tolist()
