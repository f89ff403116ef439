"""A TCP proxy in front of the real PostgreSQL server that a test can cut, silence and restore.

Stopping the shared server would break every other test on the machine; cutting the proxy looks
the same to the store (the server "goes away") and touches nothing else.
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import Literal

Mode = Literal["forward", "refuse", "silent"]


class Proxy:
    """Listens on 127.0.0.1:<port> and forwards to `target` while in "forward" mode.

    `cut()` drops every open connection and refuses new ones (a server that stopped);
    `silence()` drops nothing but forwards nothing (a network that swallows packets);
    `restore()` forwards again (the server is back).
    """

    def __init__(self, host: str, port: int) -> None:
        self.target = (host, port)
        self.mode: Mode = "forward"
        self.port = 0
        self._server: asyncio.Server | None = None
        self._links: set[asyncio.Task[None]] = set()
        self._writers: set[asyncio.StreamWriter] = set()
        self._flowing = asyncio.Event()  # clear while silent
        self._flowing.set()

    async def start(self) -> None:
        self._server = await asyncio.start_server(self._accept, "127.0.0.1", self.port)
        self.port = self._server.sockets[0].getsockname()[1]

    async def cut(self) -> None:
        self.mode = "refuse"
        self._flowing.set()
        await self._drop_all()

    def silence(self) -> None:
        self.mode = "silent"
        self._flowing.clear()

    def restore(self) -> None:
        self.mode = "forward"
        self._flowing.set()

    async def close(self) -> None:
        await self._drop_all()
        if self._server is not None:
            self._server.close()
            await self._server.wait_closed()

    async def _drop_all(self) -> None:
        for writer in list(self._writers):
            writer.transport.abort()
        for task in list(self._links):
            task.cancel()
        await asyncio.gather(*self._links, return_exceptions=True)

    async def _accept(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        if self.mode == "refuse":
            writer.transport.abort()
            return
        self._writers.add(writer)
        try:
            up_reader, up_writer = await asyncio.open_connection(*self.target)
        except OSError:
            writer.transport.abort()
            self._writers.discard(writer)
            return
        self._writers.add(up_writer)
        links = [
            asyncio.create_task(self._pipe(reader, up_writer)),
            asyncio.create_task(self._pipe(up_reader, writer)),
        ]
        self._links.update(links)
        try:
            await asyncio.gather(*links, return_exceptions=True)
        finally:
            self._links.difference_update(links)
            for end in (writer, up_writer):
                self._writers.discard(end)
                end.transport.abort()

    async def _pipe(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        with contextlib.suppress(OSError, asyncio.IncompleteReadError):
            while data := await reader.read(65536):
                await self._flowing.wait()
                if self.mode == "refuse":
                    return
                writer.write(data)
                await writer.drain()
