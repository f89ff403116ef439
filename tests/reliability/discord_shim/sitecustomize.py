"""Points an unmodified `paperbot run` at a local address instead of Discord (tests only).

Put this folder first on PYTHONPATH and set PAPERBOT_TEST_DISCORD to `http://127.0.0.1:PORT`:
Python imports `sitecustomize` at start-up, and this one moves discord.py's REST base and gateway
there, then writes PAPERBOT_TEST_SHIM_MARK so the test knows the redirect was in place before the
bot could reach the real Discord.
"""

import os
from pathlib import Path

import discord.gateway
import discord.http
import yarl

_base = os.environ["PAPERBOT_TEST_DISCORD"]
if not _base.startswith("http://127.0.0.1:"):
    raise SystemExit(f"discord_shim: {_base} is not a local address")
discord.http.Route.BASE = f"{_base}/api/v10"
discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(f"ws{_base[4:]}/")
Path(os.environ["PAPERBOT_TEST_SHIM_MARK"]).write_text(discord.http.Route.BASE, encoding="utf-8")
