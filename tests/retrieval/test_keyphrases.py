"""Key-phrase topic labels (`retrieval.labels.keyphrases`) and the lexicon behind them."""

from __future__ import annotations

import json

from hypothesis import given
from hypothesis import strategies as st

from retrieval.labels import derive_label
from retrieval.labels.keyphrases import SEPARATOR, key_phrases
from retrieval.labels.title_words import UNSEEN_BUCKET, parse_lexicon, prior_bucket, title_words

# Written for these tests: no name, a repeated topic, background first.
_GLACIERS = (
    "Climate records are noisy. We study glacier melt forecasting from satellite imagery. "
    "Glacier melt forecasting needs long satellite imagery series, and our glacier melt "
    "forecasting model uses sparse gauge stations to correct satellite imagery drift."
)


def test_key_phrases_are_the_repeated_phrases_in_text_order() -> None:
    label = key_phrases(_GLACIERS)
    phrases = label.split(SEPARATOR)
    lowered = [phrase.lower() for phrase in phrases]
    assert lowered.index("glacier melt forecasting") < lowered.index("satellite imagery")
    # in the abstract's order, each spelled as the abstract spells it
    positions = [_GLACIERS.lower().find(phrase.lower()) for phrase in phrases]
    assert all(position >= 0 for position in positions)
    assert positions == sorted(positions)


def test_key_phrases_never_hold_words_titles_do_not_keep() -> None:
    label = key_phrases(_GLACIERS).lower()
    # "we study", "uses", "our" end phrases; stopwords never open or close one
    assert "study" not in label
    assert " uses" not in label
    assert not any(phrase.startswith(("the ", "our ")) for phrase in label.split(SEPARATOR))


def test_no_phrase_is_listed_inside_another() -> None:
    # "long satellite imagery series" holds "satellite imagery", which is listed already.
    phrases = [phrase.lower() for phrase in key_phrases(_GLACIERS).split(SEPARATOR)]
    for phrase in phrases:
        assert not any(other != phrase and other in phrase for other in phrases)


def test_key_phrases_fit_the_room_and_skip_terms_already_said() -> None:
    assert len(key_phrases(_GLACIERS, room=30)) <= 30
    skipping = key_phrases(_GLACIERS, skip=frozenset(["glacier", "melt", "forecast", "model"]))
    assert "glacier" not in skipping.lower()
    assert "satellite imagery" in skipping.lower()


def test_an_unnamed_abstract_is_labelled_with_its_key_phrases() -> None:
    assert derive_label(_GLACIERS) == (
        "Climate records, glacier melt forecasting, satellite imagery, sparse gauge stations"
    )


def test_a_contribution_that_opens_with_the_name_it_defines_keeps_its_clause() -> None:
    abstract = (
        "Search is costly. We propose the Ladder of Hints—a prompting scheme that walks models "
        "through partial solutions. Ladder of Hints halves search cost on puzzles."
    )
    assert derive_label(abstract).startswith("Ladder of Hints")


def test_a_lone_word_needs_repeats_and_symbols_are_never_phrases() -> None:
    abstract = "We bound the regret O(√T) ≤ ε of bandits. Bandits with delays, bandits at scale."
    label = key_phrases(abstract)
    assert "≤" not in label and "√" not in label
    assert "Bandits" in label


def test_verbs_possessives_and_a_trailing_using_stay_out_of_phrases() -> None:
    abstract = (
        "Attackers try to deceive spam filters. We train spam filters using token audits, and "
        "the filter's audit log optimizes recall. Spam filters optimizes nothing; spam filters "
        "optimizes."
    )
    phrases = key_phrases(abstract).split(SEPARATOR)
    assert "deceive" not in " ".join(phrases).lower()  # "to deceive": a verb, not a topic
    assert "spam filters" in [phrase.lower() for phrase in phrases]
    assert all(not phrase.endswith(("using", "'s")) for phrase in phrases)
    assert "optimizes" not in phrases  # a lone verb whose stem titles keep ("optim")


def test_sentences_glued_by_a_lost_line_break_are_apart() -> None:
    abstract = (
        "Glacier melt forecasting is hard.Satellite imagery helps glacier melt forecasting. "
        "Satellite imagery is noisy."
    )
    phrases = key_phrases(abstract).split(SEPARATOR)
    assert not any("hard.Satellite" in phrase or "hard" in phrase for phrase in phrases)
    assert "satellite imagery" in [phrase.lower() for phrase in phrases]


def test_a_learned_verb_ends_a_phrase() -> None:
    # "achieves" follows a subject in most of its uses on the tuning lists: a verb.
    assert "achieves" in title_words().verbs
    abstract = (
        "Glacier melt forecasting achieves accurate lead times. Glacier melt forecasting "
        "achieves more with satellite imagery."
    )
    phrases = [phrase.lower() for phrase in key_phrases(abstract).split(SEPARATOR)]
    assert "glacier melt forecasting" in phrases
    assert not any("achieves" in phrase for phrase in phrases)


def test_the_lexicon_buckets_priors_and_reads_its_json_form() -> None:
    assert prior_bucket(0, 0) == UNSEEN_BUCKET == 1
    assert prior_bucket(9, 10) == 4  # capped at the top bucket
    assert prior_bucket(0, 50) == 0
    lexicon = parse_lexicon(
        json.loads(
            '{"buckets": {"graph": 4}, "chances": [[2, 4, true, false, 0.5]], '
            '"breaks": ["propos"], "verbs": ["learns"], "default_chance": 0.1}'
        )
    )
    assert lexicon.chance("graph", 2, True, False) == 0.5
    assert lexicon.chance("graph", 9, False, False) == 0.1  # a cell never seen
    assert lexicon.chances_of(
        ["graph", "graph", "tree"], {"graph": 2, "tree": 1}, {"graph"}, ()
    ) == {
        "graph": 0.5,
        "tree": 0.1,
    }
    assert "propos" in lexicon.breaks
    assert lexicon.verbs == frozenset(["learns"])


def test_the_shipped_lexicon_knows_verbs_titles_drop() -> None:
    lexicon = title_words()
    assert {"propos", "demonstr", "achiev"} <= lexicon.breaks
    assert lexicon.buckets["graph"] > lexicon.buckets.get("method", UNSEEN_BUCKET)


@given(st.text(max_size=400), st.integers(min_value=0, max_value=120))
def test_key_phrases_never_raise_and_stay_in_the_room(text: str, room: int) -> None:
    label = key_phrases(text, room=room)
    assert len(label) <= room
    if label:
        assert not label[0].isspace()
