"""Which feature a request for help asks about ("how do I export these?" -> export).

The classifier says a message asks for help; this says what about, so the answer can start
with the feature asked for instead of the whole guide. Keyword rules about feature names,
which do not depend on phrasing the way intents do; None when no feature is named.
"""

from __future__ import annotations

import re
from enum import Enum


class HelpTopic(Enum):
    EXPORT = "export"
    WATCH = "watch"
    SAVE = "save"
    FILTER = "filter"
    COMPARE = "compare"
    MORE = "more"
    SIMILAR = "similar"
    QUESTIONS = "questions"
    PRIVACY = "privacy"


# First match wins: "export my reading list" is about exporting, "save to a file" too.
_TOPICS: tuple[tuple[HelpTopic, re.Pattern[str]], ...] = tuple(
    (topic, re.compile(pattern, re.IGNORECASE))
    for topic, pattern in (
        (HelpTopic.EXPORT, r"\b(?:export\w*|download\w*|bibtex|\.?bib|csv|markdown|to a file)\b"),
        (
            HelpTopic.PRIVACY,
            r"\b(?:privacy|private|forget|delete my|my data"
            r"|(?:store|keep|log|remember)\w* (?:my|what i))\b",
        ),
        (
            HelpTopic.WATCH,
            r"\b(?:watch\w*|notif\w*|alert\w*|subscri\w*|ping me|tell me when"
            r"|new papers? (?:come|arrive|appear))",
        ),
        (HelpTopic.SAVE, r"\b(?:save\w*|bookmark\w*|reading list|shortlist\w*|keep track)\b"),
        (
            HelpTopic.FILTER,
            r"\b(?:filter\w*|restrict\w*|narrow\w*|limit (?:it|results|to)|conference\w*"
            r"|collections?|venues?|icml|iclr|neurips|nips|which years?|only (?:one|from))\b",
        ),
        (HelpTopic.COMPARE, r"\b(?:compar\w*|vs|versus|side by side|differen\w*)\b"),
        (HelpTopic.SIMILAR, r"\b(?:similar|related|like (?:this|that|it|one))\b"),
        (
            HelpTopic.MORE,
            r"\b(?:more results|next (?:page|few|ones?)|more of them|the rest|page"
            r"|(?:older|earlier|previous|last) (?:results?|list|answers?|search)|go(?:ing)? back"
            r"|back to)\b",
        ),
        (
            HelpTopic.QUESTIONS,
            r"\b(?:ask about|code|datasets?|results?|abstract|questions? about)\b",
        ),
    )
)


def help_topic(message: str) -> HelpTopic | None:
    """The feature a help request names, or None for a general "what can you do?"."""
    for topic, pattern in _TOPICS:
        if pattern.search(message):
            return topic
    return None
