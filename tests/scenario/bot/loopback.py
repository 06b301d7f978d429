"""A service a scenario's hooks file names, served on a loopback port, and the bot beside it.

The hook services of the scenario tests (a recorder, one that goes down and comes back, one
that answers badly) differ only in their app; starting it on its port and stopping it, and
serving the bot while it runs, are here once.
"""

from __future__ import annotations

from collections.abc import AsyncIterator

from aiohttp import web

from .conftest import free_port, serve_bot


class LoopbackService:
    """An aiohttp app (:meth:`app`, a subclass's) on a free loopback port; restartable."""

    def __init__(self, port: int | None = None) -> None:
        self.port = port or free_port()
        self.runner: web.AppRunner | None = None

    def app(self) -> web.Application:
        raise NotImplementedError

    async def start(self) -> None:
        self.runner = web.AppRunner(self.app(), access_log=None)
        await self.runner.setup()
        await web.TCPSite(self.runner, "127.0.0.1", self.port).start()

    async def stop(self) -> None:
        if self.runner is not None:
            await self.runner.cleanup()
            self.runner = None


async def bot_beside(
    service: LoopbackService, harness, tmp_path, bot_port: int, *, start: bool = True
) -> AsyncIterator[object]:
    """The bot served while ``service`` runs (started first unless ``start`` is false: a test
    that opens it itself); the service stopped after."""
    if start:
        await service.start()
    try:
        async for sender in serve_bot(harness, tmp_path, port=bot_port):
            yield sender
    finally:
        await service.stop()
