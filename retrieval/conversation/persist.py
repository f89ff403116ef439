"""Conversation state to and from the JSON the store keeps (the store treats it as opaque)."""

from __future__ import annotations

import json
from dataclasses import asdict
from typing import Any

from retrieval.conversation.memory import ConversationState


def state_to_json(state: ConversationState) -> str:
    return json.dumps(asdict(state), separators=(",", ":"), ensure_ascii=False)


def state_from_json(text: str) -> ConversationState | None:
    """The state, or None for anything unreadable (an older format, a damaged row)."""
    try:
        return _state(json.loads(text))
    except (ValueError, TypeError, AttributeError):
        return None


def _state(data: dict[str, Any]) -> ConversationState:
    previous = data.get("previous")
    return ConversationState(
        paper_ids=tuple(str(paper_id) for paper_id in data.get("paper_ids", ())),
        focus=data.get("focus"),
        query=data.get("query"),
        offset=int(data.get("offset", 0)),
        collection=data.get("collection"),
        updated_at=float(data.get("updated_at", 0.0)),
        similar_to=data.get("similar_to"),
        compared=tuple(str(paper_id) for paper_id in data.get("compared", ())),
        previous=_state(previous) if previous else None,
        suggested=data.get("suggested"),
        listed=None if data.get("listed") is None else int(data["listed"]),
    )
