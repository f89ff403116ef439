"""Real discord.py objects without a network: interactions built from payload dicts, and a
recorder that stands in for Discord's HTTP side (interaction callbacks, webhooks, REST).

The technique follows discord.py's own tests/test_app_commands_invoke.py: build a
`discord.Interaction(data=payload, state=client._connection)` and run it through the tree.
Every message the bot would send is checked against Discord's limits (tests/bot/limits.py).
"""

from __future__ import annotations

import asyncio
import datetime
import itertools
import json
from dataclasses import dataclass, field
from typing import Any

import discord
from discord.webhook.async_ import AsyncWebhookAdapter

from tests.bot.limits import autocomplete_problems, message_problems

APP_ID = 900_000_000_000_000_001
BOT_ID = 900_000_000_000_000_002
GUILD_ID = 900_000_000_000_000_003
CHANNEL_ID = 900_000_000_000_000_004
ALICE = 100_000_000_000_000_001
BOB = 100_000_000_000_000_002
MANAGE_GUILD = 1 << 5

_ids = itertools.count(500_000_000_000_000_000)


def snowflake() -> int:
    return next(_ids)


def now() -> str:
    return datetime.datetime.now(datetime.UTC).isoformat()


def user_payload(user_id: int, name: str = "alice", *, bot: bool = False) -> dict[str, Any]:
    return {
        "id": str(user_id),
        "username": name,
        "discriminator": "0",
        "global_name": None if bot else name.capitalize(),
        "avatar": None,
        "bot": bot,
        "public_flags": 0,
    }


def channel_payload(*, dm: bool = False, user_id: int = ALICE) -> dict[str, Any]:
    if dm:
        return {"id": str(CHANNEL_ID + 1), "type": 1, "recipients": [user_payload(user_id)]}
    return {
        "id": str(CHANNEL_ID),
        "type": 0,
        "guild_id": str(GUILD_ID),
        "name": "general",
        "position": 0,
        "permission_overwrites": [],
        "nsfw": False,
        "parent_id": None,
    }


def _attachment(sent: dict[str, Any]) -> dict[str, Any]:
    attachment_id = str(snowflake())
    url = f"https://cdn.discordapp.com/attachments/1/{attachment_id}/{sent.get('filename')}"
    return {
        "id": attachment_id,
        "filename": sent.get("filename", "file"),
        "size": 1,
        "url": url,
        "proxy_url": url,
    }


def message_payload(
    body: dict[str, Any],
    *,
    author: dict[str, Any] | None = None,
    message_id: int | None = None,
    flags: int = 0,
    channel_id: int = CHANNEL_ID,
) -> dict[str, Any]:
    return {
        "id": str(message_id or snowflake()),
        "channel_id": str(channel_id),
        "author": author or user_payload(BOT_ID, "paperbot", bot=True),
        "content": body.get("content") or "",
        "timestamp": now(),
        "edited_timestamp": None,
        "tts": False,
        "mention_everyone": False,
        "mentions": body.get("mentions", []),
        "mention_roles": [],
        "attachments": [_attachment(a) for a in body.get("attachments", [])],
        "embeds": body.get("embeds") or [],
        "pinned": False,
        "type": 0,
        "flags": int(body.get("flags") or flags),
        "components": body.get("components") or [],
    }


@dataclass
class Sent:
    """One request the bot made."""

    kind: str  # callback / followup / edit / delete / get / channel_message / channel_edit / typing
    interaction: int | None
    body: dict[str, Any]
    files: list[tuple[str, bytes]] = field(default_factory=list)
    message_id: str | None = None

    @property
    def ephemeral(self) -> bool:
        data = self.body.get("data", self.body) if self.kind == "callback" else self.body
        return bool(int((data or {}).get("flags") or 0) & 64)

    @property
    def message(self) -> dict[str, Any]:
        return self.body.get("data", {}) if self.kind == "callback" else self.body


class Recorder(AsyncWebhookAdapter):
    """Discord's side of interactions and REST, in memory. `problems` collects rule breaks."""

    def __init__(self) -> None:
        super().__init__()
        self.sent: list[Sent] = []
        self.problems: list[str] = []
        self.messages: dict[str, dict[str, Any]] = {}
        self.original: dict[int, str] = {}  # interaction token -> original message id
        self.acks: dict[int, int] = {}
        self.deferred: dict[str, bool] = {}  # token -> deferred and not yet filled
        self.tokens: dict[str, int] = {}

    # -- helpers ---------------------------------------------------------------------------
    @staticmethod
    def _unpack(
        payload: dict[str, Any] | None, multipart: list[dict[str, Any]] | None
    ) -> tuple[dict[str, Any], list[tuple[str, bytes]]]:
        if payload is not None:
            return payload, []
        body: dict[str, Any] = {}
        files: list[tuple[str, bytes]] = []
        for part in multipart or []:
            if part["name"] == "payload_json":
                body = json.loads(part["value"])
            else:
                value = part["value"]
                data = value.read() if hasattr(value, "read") else bytes(value)
                files.append((part.get("filename", "file"), data))
        return body, files

    def _store(self, body: dict[str, Any], message_id: str | None = None) -> dict[str, Any]:
        message = message_payload(body, message_id=int(message_id) if message_id else None)
        self.messages[message["id"]] = message
        return message

    @staticmethod
    def _apply(message: dict[str, Any], body: dict[str, Any]) -> None:
        message.update({k: v for k, v in body.items() if k in ("content", "embeds", "components")})
        if "attachments" in body:
            message["attachments"] = [_attachment(a) for a in body["attachments"]]

    def _check(self, what: str, body: dict[str, Any], files: int, *, edit: bool = False) -> None:
        self.problems += [f"{what}: {p}" for p in message_problems(body, files=files, edit=edit)]

    # -- the adapter entry point -------------------------------------------------------------
    async def request(self, route: Any, session: Any, **kwargs: Any) -> Any:
        body, files = self._unpack(kwargs.get("payload"), kwargs.get("multipart"))
        method, path = route.method, route.path
        token = str(route.webhook_token)
        await asyncio.sleep(0)
        if path.endswith("/callback"):
            return self._callback(int(route.webhook_id), token, body, files)
        if method == "POST":
            return self._followup(token, body, files)
        message_id = route.url.rsplit("/", 1)[-1]
        if message_id == "@original":
            message_id = self.original.get(self.tokens.get(token, -1), "")
        if method == "GET":
            return self.messages.get(message_id) or self._store({}, message_id)
        if method == "DELETE":
            self.sent.append(Sent("delete", self.tokens.get(token), {}, message_id=message_id))
            self.messages.pop(message_id, None)
            self.deferred.pop(token, None)
            return None
        self._check("edit", body, len(files), edit=True)
        self.sent.append(Sent("edit", self.tokens.get(token), body, files, message_id))
        message = self.messages.get(message_id) or self._store({}, message_id)
        self._apply(message, body)
        self.deferred.pop(token, None)
        return message

    def _callback(
        self, interaction_id: int, token: str, body: dict[str, Any], files: list[Any]
    ) -> dict[str, Any]:
        self.tokens[token] = interaction_id
        self.acks[interaction_id] = self.acks.get(interaction_id, 0) + 1
        if self.acks[interaction_id] > 1:
            self.problems.append(f"interaction {interaction_id} acknowledged twice")
        kind = body["type"]
        data = body.get("data") or {}
        self.sent.append(Sent("callback", interaction_id, body, files))
        info: dict[str, Any] = {"id": str(interaction_id), "type": 2}
        if kind == 4:
            self._check("callback", data, len(files))
            message = self._store(data)
            self.original[interaction_id] = message["id"]
            self.sent[-1].message_id = message["id"]
            info.update(response_message_id=message["id"], response_message_loading=False)
            return {"interaction": info, "resource": {"type": 4, "message": message}}
        if kind == 5:
            message = self._store({"flags": int(data.get("flags") or 0) | 128})
            self.original[interaction_id] = message["id"]
            self.deferred[token] = True
            return {"interaction": info, "resource": {"type": 5}}
        if kind == 7:
            self._check("update", data, len(files), edit=True)
            return {"interaction": info, "resource": {"type": 7, "message": self._store(data)}}
        if kind == 8:
            self.problems += autocomplete_problems(data.get("choices") or [])
        return {"interaction": info}

    def _followup(self, token: str, body: dict[str, Any], files: list[Any]) -> dict[str, Any]:
        interaction_id = self.tokens.get(token)
        if interaction_id is None:
            self.problems.append("follow-up before the interaction was acknowledged")
        self._check("followup", body, len(files))
        if self.deferred.pop(token, False) and interaction_id is not None:
            message_id = self.original[interaction_id]
            self.sent.append(Sent("followup", interaction_id, body, files, message_id))
            message = self.messages[message_id]
            self._apply(message, body)
            return message
        message = self._store(body)
        self.sent.append(Sent("followup", interaction_id, body, files, message["id"]))
        return message

    # -- the bot's REST client (channel messages, typing) -------------------------------------
    async def http_request(
        self, route: Any, *, files: Any = None, form: Any = None, **kwargs: Any
    ) -> Any:
        await asyncio.sleep(0)
        if route.path.endswith("/typing"):
            self.sent.append(Sent("typing", None, {}))
            return None
        if route.method == "PUT" and "/reactions/" in route.path:
            self.sent.append(Sent("reaction", None, {"path": route.url}))
            return None
        body, file_data = self._unpack(kwargs.get("json"), list(form) if form else None)
        if route.method == "POST" and route.path.endswith("/messages"):
            self._check("channel message", body, len(file_data))
            message = self._store(body)
            self.sent.append(Sent("channel_message", None, body, file_data, message["id"]))
            return message
        if route.method == "PATCH":
            self._check("channel edit", body, len(file_data), edit=True)
            message_id = str(route.url.rsplit("/", 1)[-1])
            self.sent.append(Sent("channel_edit", None, body, file_data, message_id))
            message = self.messages.get(message_id) or self._store({}, message_id)
            self._apply(message, body)
            return message
        self.problems.append(f"unexpected REST call {route.method} {route.path}")
        return None

    # -- queries -------------------------------------------------------------------------------
    def for_interaction(self, interaction: discord.Interaction) -> list[Sent]:
        return [s for s in self.sent if s.interaction == interaction.id]

    def callbacks(self, interaction: discord.Interaction) -> list[Sent]:
        return [s for s in self.for_interaction(interaction) if s.kind == "callback"]

    def visible(self, interaction: discord.Interaction) -> list[dict[str, Any]]:
        """Message bodies the user would see for this interaction (callback data, follow-ups)."""
        out = []
        for sent in self.for_interaction(interaction):
            if sent.kind == "callback" and sent.body["type"] in (4, 7):
                out.append(sent.body.get("data") or {})
            elif sent.kind in ("followup", "edit"):
                out.append(sent.body)
        return out

    def text(self, interaction: discord.Interaction) -> str:
        """Everything visible for this interaction as one string (content + embed text)."""
        parts: list[str] = []
        for body in self.visible(interaction):
            parts.append(body.get("content") or "")
            for embed in body.get("embeds") or []:
                parts += [embed.get("title") or "", embed.get("description") or ""]
                for f in embed.get("fields") or []:
                    parts += [f["name"], f["value"]]
                parts.append((embed.get("footer") or {}).get("text") or "")
        return "\n".join(parts)


# -- interaction payloads ------------------------------------------------------------------------
def _base(kind: int, *, user_id: int, guild: bool, permissions: int) -> dict[str, Any]:
    interaction_id = snowflake()
    data: dict[str, Any] = {
        "id": str(interaction_id),
        "application_id": str(APP_ID),
        "type": kind,
        "token": f"token-{interaction_id}",
        "version": 1,
        "channel": channel_payload(dm=not guild, user_id=user_id),
        "channel_id": str(CHANNEL_ID if guild else CHANNEL_ID + 1),
        "locale": "en-US",
        "app_permissions": str(0xFFFFFFFF),
        "attachment_size_limit": 10 * 1024 * 1024,
        "entitlements": [],
        "authorizing_integration_owners": {"0": str(GUILD_ID)} if guild else {"1": str(user_id)},
        "context": 0 if guild else 1,
    }
    user = user_payload(user_id, "alice" if user_id == ALICE else "bob")
    if guild:
        data["guild_id"] = str(GUILD_ID)
        data["guild_locale"] = "en-US"
        data["member"] = {
            "user": user,
            "roles": [],
            "joined_at": now(),
            "deaf": False,
            "mute": False,
            "flags": 0,
            "pending": False,
            "nick": None,
            "avatar": None,
            "permissions": str(permissions),
        }
    else:
        data["user"] = user
    return data


def _option(
    command: discord.app_commands.Command[Any, ..., Any], name: str, value: Any
) -> dict[str, Any]:
    parameter = command.get_parameter(name)
    if parameter is None:
        return {"type": 3, "name": name, "value": value}
    return {"type": parameter.type.value, "name": name, "value": value}


def command_data(
    tree: discord.app_commands.CommandTree[Any],
    name: str,
    options: dict[str, Any],
    *,
    focused: str | None = None,
    resolved: dict[str, Any] | None = None,
) -> dict[str, Any]:
    parts = name.split()
    root = tree.get_command(parts[0])
    assert root is not None, f"no command {parts[0]}"
    command = root
    for part in parts[1:]:
        assert isinstance(command, discord.app_commands.Group)
        found = command.get_command(part)
        assert found is not None, f"no subcommand {part}"
        command = found
    assert isinstance(command, discord.app_commands.Command)
    opts = [_option(command, key, value) for key, value in options.items()]
    for opt in opts:
        if opt["name"] == focused:
            opt["focused"] = True
            opt["type"] = 3 if opt["type"] != 4 else 4
    for part in reversed(parts[1:]):
        opts = [{"type": 1, "name": part, "options": opts}]
    data: dict[str, Any] = {"id": str(snowflake()), "name": parts[0], "type": 1, "options": opts}
    if resolved:
        data["resolved"] = resolved
    return data


def slash(
    bot: discord.Client,
    name: str,
    options: dict[str, Any] | None = None,
    *,
    user_id: int = ALICE,
    guild: bool = True,
    permissions: int = 0,
    focused: str | None = None,
    resolved: dict[str, Any] | None = None,
) -> discord.Interaction:
    """A real Interaction for `/name` (type 2, or 4 with `focused` for autocomplete)."""
    kind = 4 if focused else 2
    payload = _base(kind, user_id=user_id, guild=guild, permissions=permissions)
    payload["data"] = command_data(
        bot.tree,
        name,
        options or {},
        focused=focused,
        resolved=resolved,  # type: ignore[attr-defined]
    )
    return discord.Interaction(data=payload, state=bot._connection)  # type: ignore[arg-type]


def component(
    bot: discord.Client,
    message: dict[str, Any],
    custom_id: str,
    *,
    values: list[str] | None = None,
    user_id: int = ALICE,
    guild: bool = True,
) -> discord.Interaction:
    """A real component Interaction (type 3) on a message the bot sent."""
    payload = _base(3, user_id=user_id, guild=guild, permissions=0)
    component_type = 3 if values is not None else 2
    data: dict[str, Any] = {"custom_id": custom_id, "component_type": component_type}
    if values is not None:
        data["values"] = values
    payload["data"] = data
    payload["message"] = message
    return discord.Interaction(data=payload, state=bot._connection)  # type: ignore[arg-type]


def find_component(
    message: dict[str, Any], *, label: str | None = None, kind: int = 2
) -> dict[str, Any]:
    for row in message.get("components") or []:
        for child in row.get("components") or []:
            if child.get("type") == kind and (label is None or child.get("label") == label):
                return child
    raise AssertionError(f"no component {label!r} (type {kind}) in {message.get('components')}")


async def click(
    bot: discord.Client,
    message: dict[str, Any],
    *,
    label: str | None = None,
    values: list[str] | None = None,
    user_id: int = ALICE,
) -> discord.Interaction:
    """Click a button (or pick select values) on a message the bot sent, routed as discord.py
    routes it: the `interaction` event, then the persistent (dynamic) item whose template
    matches the custom id. Works on messages sent by another bot instance (a restart)."""
    kind = 3 if values is not None else 2
    spec = find_component(message, label=label, kind=kind)
    assert not spec.get("disabled"), f"{label} is disabled"
    custom_id = spec["custom_id"]
    interaction = component(bot, message, custom_id, values=values, user_id=user_id)
    await bot.on_interaction(interaction)  # type: ignore[attr-defined]
    store = bot._connection._view_store
    for pattern, item in list(store._dynamic_items.items()):
        match = pattern.fullmatch(custom_id)
        if match is not None:
            await store.schedule_dynamic_item_call(kind, item, interaction, custom_id, match)
    return interaction


def chat_message(
    bot: discord.Client,
    content: str,
    *,
    dm: bool = False,
    mentions_bot: bool = False,
    author_id: int = ALICE,
    author_bot: bool = False,
    channel_id: int = CHANNEL_ID,
) -> discord.Message:
    """A real gateway Message as discord.py would build it from MESSAGE_CREATE."""
    state = bot._connection
    author = user_payload(author_id, "alice", bot=author_bot)
    if dm:
        channel: Any = discord.DMChannel(
            me=bot.user,  # type: ignore[arg-type]
            state=state,
            data=channel_payload(dm=True, user_id=author_id),  # type: ignore[arg-type]
        )
    else:
        guild = state._get_or_create_unavailable_guild(GUILD_ID)
        channel = discord.TextChannel(
            state=state,
            guild=guild,
            data=dict(channel_payload(), id=str(channel_id)),  # type: ignore[arg-type]
        )
    if mentions_bot:
        content = f"<@{BOT_ID}> {content}"
    body = {
        "content": content,
        "mentions": [user_payload(BOT_ID, "paperbot", bot=True)] if mentions_bot else [],
    }
    data = message_payload(body, author=author, channel_id=channel.id)
    if not dm:
        data["guild_id"] = str(GUILD_ID)
    return discord.Message(state=state, channel=channel, data=data)  # type: ignore[arg-type]
