"""The discord.py bot: holds the injected settings and engine, loads the cogs, syncs deliberately.

Nothing happens at import time. `PaperBot(settings, engine)` builds the bot; `setup_hook` loads
the cogs and syncs commands only when needed (dev guild, or when the tree's payload changed).
"""

from __future__ import annotations

import hashlib
import json
import logging
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, cast

import discord
from discord import app_commands
from discord.ext import commands

from bot.discord_shell.boundary import handle_interaction_error
from bot.discord_shell.chat_throttle import ChatThrottle
from bot.discord_shell.cooldown import Cooldown
from bot.discord_shell.looplag import LoopLag
from bot.discord_shell.queries import QueryKeys
from bot.discord_shell.render import SAFE_MENTIONS
from bot.discord_shell.replies import started
from bot.discord_shell.views import PERSISTENT_ITEMS, dispatch_older
from config.settings import Settings
from retrieval.conversation.chat import ChatService

if TYPE_CHECKING:
    from retrieval.api import EngineAPI

log = logging.getLogger(__name__)
command_log = logging.getLogger("paperbot.commands")

COGS = (
    "bot.discord_shell.cogs.answers",
    "bot.discord_shell.cogs.papers",
    "bot.discord_shell.cogs.info",
    "bot.discord_shell.cogs.reading",
    "bot.discord_shell.cogs.chat",
    "bot.discord_shell.cogs.admin",
    # Issue 12 (research servers): one cog per feature.
    "bot.discord_shell.cogs.privacy",
    "bot.discord_shell.cogs.watches",
    "bot.discord_shell.cogs.shortlist",
    "bot.discord_shell.cogs.trending",
)


class PaperTree(app_commands.CommandTree["PaperBot"]):
    """The command tree with the error boundary and per-command timing."""

    async def interaction_check(self, interaction: discord.Interaction, /) -> bool:
        started(interaction)
        return True

    async def on_error(
        self, interaction: discord.Interaction, error: app_commands.AppCommandError, /
    ) -> None:
        await handle_interaction_error(interaction, error)


def build_intents(settings: Settings) -> discord.Intents:
    """Default intents (no privileged ones), plus message content only when settings ask for it."""
    intents = discord.Intents.default()
    intents.members = False
    intents.presences = False
    intents.message_content = settings.message_content_intent
    return intents


def tree_payload(
    tree: app_commands.CommandTree[Any], guild: discord.abc.Snowflake | None
) -> list[Any]:
    """The JSON Discord would receive for a sync of `guild` (None: global)."""
    return [command.to_dict(tree) for command in tree.get_commands(guild=guild)]


def payload_hash(payload: list[Any]) -> str:
    text = json.dumps(payload, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(text.encode()).hexdigest()


class PaperBot(commands.AutoShardedBot):
    """paperbot on Discord. Settings and engine are injected; the clock is for cooldown tests."""

    def __init__(
        self,
        settings: Settings,
        engine: EngineAPI,
        *,
        auto_sync: bool = True,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        super().__init__(
            command_prefix=commands.when_mentioned,
            help_command=None,
            intents=build_intents(settings),
            allowed_mentions=SAFE_MENTIONS,
            tree_cls=PaperTree,
            # Unset: Discord's recommended count, all in this process. Set: this process runs
            # PAPERBOT_SHARD_IDS of PAPERBOT_SHARD_COUNT (several processes, one database).
            shard_count=settings.shard_count,
            shard_ids=cast("list[int]", settings.shard_ids or None),  # None: every shard
        )
        self.settings = settings
        self.engine = engine
        self.chat_service = ChatService(
            engine,
            engine.memory,
            idle_seconds=settings.conversation_idle_minutes * 60,
            page_size=settings.answer_results,
        )
        self.auto_sync = auto_sync
        self.cooldown = Cooldown(
            settings.cooldown_questions, settings.cooldown_seconds, clock=clock
        )
        self.chat_throttle = ChatThrottle(
            self.cooldown,
            channel_answers=settings.chat_channel_answers,
            channel_seconds=settings.chat_channel_seconds,
            repeat_seconds=settings.chat_repeat_seconds,
            clock=clock,
        )
        self.query_keys = QueryKeys()
        self.loop_lag = LoopLag()

    async def setup_hook(self) -> None:
        # Before the gateway connects: the first user's question should not pay for loading
        # the scoring kernels and models.
        await self.engine.warm_up()
        self.loop_lag.start()
        # Buttons and menus on every message ever sent keep working across restarts.
        self.add_dynamic_items(*PERSISTENT_ITEMS)
        for name in COGS:
            await self.load_extension(name)
        # One sync per deployment: the process that runs shard 0 (guarded by the payload hash in
        # the shared store), never every process of a sharded deployment.
        if self.auto_sync and self.settings.owns_shard_zero:
            await self.sync_if_changed()

    async def close(self) -> None:
        await self.loop_lag.stop()
        await super().close()

    async def on_message(self, message: discord.Message, /) -> None:
        """No prefix commands: chat questions are handled by the chat cog's listener."""

    async def on_interaction(self, interaction: discord.Interaction, /) -> None:
        """Components from paperbot versions before persistent ones still get an answer."""
        await dispatch_older(interaction)

    async def on_ready(self) -> None:
        user = self.user
        log.info(
            "connected as %s (%s) to %d guild(s)", user, user.id if user else "?", len(self.guilds)
        )

    async def on_app_command_completion(
        self,
        interaction: discord.Interaction,
        command: app_commands.Command[Any, ..., Any] | app_commands.ContextMenu,
    ) -> None:
        latency = (time.perf_counter() - started(interaction)) * 1000
        command_log.info(
            "answered user=%s command=%s latency_ms=%.0f",
            interaction.user.id,
            command.qualified_name,
            latency,
        )

    def sync_target(self) -> discord.Object | None:
        guild_id = self.settings.dev_guild_id
        return discord.Object(id=guild_id) if guild_id else None

    def _sync_scope(self, guild: discord.abc.Snowflake | None) -> str:
        """Where a sync hash applies: commands belong to an application, so a new token (a new
        application) over the same database syncs again instead of trusting another's hash."""
        return f"{self.application_id or 'app'}/{guild.id if guild else 'global'}"

    async def sync_if_changed(self) -> bool:
        """Sync to the dev guild (or globally) only when the payload differs from the last sync."""
        guild = self.sync_target()
        if guild is not None:
            self.tree.copy_global_to(guild=guild)
        payload = tree_payload(self.tree, guild)
        digest = payload_hash(payload)
        scope = self._sync_scope(guild)
        if await self.engine.command_sync_hash(scope) == digest:
            log.info("commands unchanged since the last sync; not syncing")
            return False
        try:
            synced = await self.tree.sync(guild=guild)
        except discord.HTTPException as error:
            log.warning("command sync failed (will retry next start): %s", error)
            return False
        await self.engine.record_command_sync(scope, digest)
        where = f"guild {guild.id}" if guild else "globally"
        log.info("synced %d commands %s", len(synced), where)
        return True

    async def sync_now(self, guild_id: int | None, *, here: int | None = None) -> str:
        """Sync unconditionally (CLI `paperbot sync`, owner command); returns a summary line.

        A command registered both globally and in a guild shows twice there, so the two scopes
        are exclusive: a guild sync copies the global commands into the guild and clears the
        global registration; a global sync run from guild `here` clears that guild's copy.
        """
        guild = discord.Object(id=guild_id) if guild_id else None
        if guild is not None:
            self.tree.copy_global_to(guild=guild)
        synced = await self.tree.sync(guild=guild)
        digest = payload_hash(tree_payload(self.tree, guild))
        await self.engine.record_command_sync(self._sync_scope(guild), digest)
        app_id = self.application_id
        if guild is not None:
            if app_id is not None:
                await self.http.bulk_upsert_global_commands(app_id, payload=[])
            # Recorded as in sync so the next start does not quietly publish them globally
            # again (that would bring the duplicates back); `sync` globally does that on purpose.
            global_digest = payload_hash(tree_payload(self.tree, None))
            await self.engine.record_command_sync(self._sync_scope(None), global_digest)
            return (
                f"Synced {len(synced)} commands to guild {guild.id} and removed the global "
                "registration, so none shows twice there. Sync globally to publish everywhere "
                "again (that removes this server's copy)."
            )
        if here is not None and app_id is not None:
            here_guild = discord.Object(id=here)
            self.tree.clear_commands(guild=here_guild)
            await self.http.bulk_upsert_guild_commands(app_id, here, payload=[])
            await self.engine.record_command_sync(self._sync_scope(here_guild), payload_hash([]))
        return f"Synced {len(synced)} commands globally (may take a while to appear)."
