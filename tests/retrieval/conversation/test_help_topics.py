"""A help request about one feature is told about that feature first."""

from __future__ import annotations

import pytest

from retrieval.conversation.help_topics import HelpTopic, help_topic


@pytest.mark.parametrize(
    ("message", "topic"),
    [
        ("how do i export these?", HelpTopic.EXPORT),
        ("can i get a bibtex of my saved papers", HelpTopic.EXPORT),
        ("how do i get notified when new papers arrive", HelpTopic.WATCH),
        ("how do i save a paper for later", HelpTopic.SAVE),
        ("how do i narrow results down to iclr", HelpTopic.FILTER),
        ("can you compare papers or is that not a thing", HelpTopic.COMPARE),
        ("wait how do i see the next few", HelpTopic.MORE),
        ("how do I see older results again?", HelpTopic.MORE),  # "go back"
        ("can i go back to the previous list", HelpTopic.MORE),
        ("how do i get similar papers to one i like?", HelpTopic.SIMILAR),
        ("do you store my messages?", HelpTopic.PRIVACY),
        ("can i ask about the code of a paper", HelpTopic.QUESTIONS),
        ("what can you do", None),
        ("how does this bot work?", None),
    ],
)
def test_the_feature_a_help_request_names(message: str, topic: HelpTopic | None) -> None:
    assert help_topic(message) is topic
