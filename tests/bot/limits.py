"""Discord's documented limits as a validator (mirrors shared/docs/discord-limits.md).

`message_problems(body)` returns human-readable problems for a message body (content, embeds,
components, allowed_mentions); `command_problems(payload)` does the same for a command tree.
"""

from __future__ import annotations

import re
from typing import Any

NAME = re.compile(r"^[-_\w]{1,32}$")  # \w on str patterns covers \p{L}\p{N} and _


def _len(value: Any) -> int:
    return len(value) if isinstance(value, str) else 0


def embed_problems(embeds: list[dict[str, Any]]) -> list[str]:
    problems: list[str] = []
    if len(embeds) > 10:
        problems.append(f"{len(embeds)} embeds > 10")
    total = 0
    for index, embed in enumerate(embeds):
        where = f"embeds[{index}]"
        title = _len(embed.get("title"))
        description = _len(embed.get("description"))
        if title > 256:
            problems.append(f"{where}.title {title} > 256")
        if description > 4096:
            problems.append(f"{where}.description {description} > 4096")
        fields = embed.get("fields") or []
        if len(fields) > 25:
            problems.append(f"{where} has {len(fields)} fields > 25")
        total += title + description
        for number, field in enumerate(fields):
            name, value = _len(field.get("name")), _len(field.get("value"))
            if not 0 < name <= 256:
                problems.append(f"{where}.fields[{number}].name length {name}")
            if not 0 < value <= 1024:
                problems.append(f"{where}.fields[{number}].value length {value}")
            total += name + value
        footer = _len((embed.get("footer") or {}).get("text"))
        author = _len((embed.get("author") or {}).get("name"))
        if footer > 2048:
            problems.append(f"{where}.footer {footer} > 2048")
        if author > 256:
            problems.append(f"{where}.author {author} > 256")
        total += footer + author
    if total > 6000:
        problems.append(f"embeds total {total} > 6000")
    return problems


def component_problems(rows: list[dict[str, Any]]) -> list[str]:
    problems: list[str] = []
    if len(rows) > 5:
        problems.append(f"{len(rows)} action rows > 5")
    custom_ids: list[str] = []
    for index, row in enumerate(rows):
        children = row.get("components") or []
        selects = [c for c in children if c.get("type") in (3, 5, 6, 7, 8)]
        buttons = [c for c in children if c.get("type") == 2]
        if selects and (len(children) > 1):
            problems.append(f"row {index}: a select must be alone")
        if len(buttons) > 5:
            problems.append(f"row {index}: {len(buttons)} buttons > 5")
        for child in children:
            if child.get("type") == 2:
                label = _len(child.get("label"))
                if label > 80:
                    problems.append(f"row {index}: button label {label} > 80")
                if child.get("style") == 5:
                    if not child.get("url") or "custom_id" in child:
                        problems.append(f"row {index}: link button needs url and no custom_id")
                    elif len(child["url"]) > 512 or not child["url"].startswith("http"):
                        problems.append(f"row {index}: bad link url")
                    continue
            custom_id = child.get("custom_id")
            if not isinstance(custom_id, str) or not 0 < len(custom_id) <= 100:
                problems.append(f"row {index}: custom_id {custom_id!r}")
            else:
                custom_ids.append(custom_id)
            if child.get("type") == 3:
                options = child.get("options") or []
                if not 0 < len(options) <= 25:
                    problems.append(f"row {index}: {len(options)} select options")
                values = [o.get("value") for o in options]
                if len(set(values)) != len(values):
                    problems.append(f"row {index}: duplicate select values")
                for option in options:
                    for key in ("label", "value", "description"):
                        size = _len(option.get(key))
                        if size > 100 or (key != "description" and size == 0):
                            problems.append(f"row {index}: option {key} length {size}")
    if len(set(custom_ids)) != len(custom_ids):
        problems.append("duplicate custom_ids")
    return problems


def mention_problems(body: dict[str, Any]) -> list[str]:
    allowed = body.get("allowed_mentions")
    if allowed is None:
        return ["no allowed_mentions (Discord would parse and ping everything)"]
    if allowed.get("parse") or allowed.get("users") or allowed.get("roles"):
        return [f"allowed_mentions lets something ping: {allowed}"]
    if allowed.get("replied_user"):
        return ["allowed_mentions pings the replied user"]
    return []


def message_problems(body: dict[str, Any], *, files: int = 0, edit: bool = False) -> list[str]:
    """Everything wrong with a message body (create, callback data, follow-up or edit)."""
    problems: list[str] = []
    content = body.get("content")
    if _len(content) > 2000:
        problems.append(f"content {_len(content)} > 2000")
    problems += embed_problems(body.get("embeds") or [])
    problems += component_problems(body.get("components") or [])
    has_something = content or body.get("embeds") or body.get("components") or files
    if not edit and not has_something:
        problems.append("empty message")
    if not edit:
        problems += mention_problems(body)
    return problems


def command_problems(payload: list[dict[str, Any]]) -> list[str]:
    """Discord's rules for a bulk command overwrite."""
    problems: list[str] = []
    names = [c.get("name") for c in payload]
    if len(set(names)) != len(names):
        problems.append("duplicate command names")
    if len([c for c in payload if c.get("type", 1) == 1]) > 100:
        problems.append("more than 100 chat commands")
    for command in payload:
        problems += _command_problems(command, command.get("name", "?"))
    return problems


def _command_problems(item: dict[str, Any], where: str) -> list[str]:
    problems: list[str] = []
    name = item.get("name", "")
    if not NAME.match(name) or name != name.lower():
        problems.append(f"{where}: bad name {name!r}")
    description = item.get("description", "")
    if not 1 <= len(description) <= 100:
        problems.append(f"{where}: description length {len(description)}")
    options = item.get("options") or []
    if len(options) > 25:
        problems.append(f"{where}: {len(options)} options > 25")
    seen_optional = False
    for option in options:
        inner = f"{where}.{option.get('name')}"
        if option.get("type") in (1, 2):
            problems += _command_problems(option, inner)
            continue
        problems += [p for p in _command_problems(option, inner) if "options" not in p]
        if option.get("required"):
            if seen_optional:
                problems.append(f"{inner}: required after optional")
        else:
            seen_optional = True
        choices = option.get("choices") or []
        if len(choices) > 25:
            problems.append(f"{inner}: {len(choices)} choices")
        if choices and option.get("autocomplete"):
            problems.append(f"{inner}: choices and autocomplete")
    return problems


def autocomplete_problems(choices: list[dict[str, Any]]) -> list[str]:
    problems: list[str] = []
    if len(choices) > 25:
        problems.append(f"{len(choices)} choices > 25")
    for choice in choices:
        name, value = choice.get("name", ""), choice.get("value")
        if not 1 <= len(name) <= 100:
            problems.append(f"choice name length {len(name)}")
        if isinstance(value, str) and len(value) > 100:
            problems.append(f"choice value length {len(value)}")
    return problems
