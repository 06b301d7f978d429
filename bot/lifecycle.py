"""The bot's lifecycle: serving, then draining on a stop signal, then stopped.

On SIGTERM or SIGINT (:mod:`bot.__main__`) the bot stops taking Slack's requests
(the Slack endpoint and ``/readyz`` answer 503, so a load balancer and Slack's
retries go to another instance) and lets what it still owes finish for
``BOT_SHUTDOWN_GRACE_SECONDS``: requests in flight, slash-command follow-ups
(:class:`bot.slash.SlashHandler`) and messages still waiting on their task
(:class:`bot.events.EventRouter`). The rest of the application (the stand-in, the
health endpoints) keeps serving until then. This module keeps the state; the
signal handling and the order of the steps are :mod:`bot.__main__`'s.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator, Awaitable, Callable, Coroutine
from typing import Any, Final, final

from aiohttp import web

from harness.health import Probe

log = logging.getLogger(__name__)

SHUTTING_DOWN: Final = "shutting down"
"""The reason ``/readyz`` and the Slack endpoint give while the bot drains."""


@final
class Pending:
    """Work started for a request that outlives it (a reply still owed), awaited at shutdown."""

    def __init__(self) -> None:
        self._tasks: set[asyncio.Task[None]] = set()

    def spawn(self, work: Coroutine[Any, Any, None]) -> asyncio.Task[None]:
        """Run ``work`` as a task of its own, kept until it ends (its result is the caller's)."""
        task = asyncio.ensure_future(work)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return task

    def __len__(self) -> int:
        return len(self._tasks)

    async def drain(self) -> None:
        """Wait for every task in flight (a cancelled wait cancels them)."""
        if self._tasks:
            await asyncio.gather(*self._tasks, return_exceptions=True)


@final
class Lifecycle:
    """Whether the bot takes requests, and how many of Slack's are in flight.

    Args:
        slack_path: the path Slack posts to (``BOT_PATH``): refused while draining.
    """

    def __init__(self, slack_path: str) -> None:
        self.slack_path = slack_path
        self.draining = False
        self._in_flight = 0
        self._idle = asyncio.Event()
        self._idle.set()

    def stop_accepting(self) -> None:
        """From now on Slack's requests get 503 and ``/readyz`` says :data:`SHUTTING_DOWN`."""
        self.draining = True

    @property
    def in_flight(self) -> int:
        """Slack requests being answered now."""
        return self._in_flight

    async def requests_done(self) -> None:
        """Return once no Slack request is being answered."""
        await self._idle.wait()

    @contextlib.asynccontextmanager
    async def answering(self) -> AsyncIterator[None]:
        """Count one of Slack's requests (an HTTP request or a Socket Mode envelope) in flight."""
        self._in_flight += 1
        self._idle.clear()
        try:
            yield
        finally:
            self._in_flight -= 1
            if self._in_flight == 0:
                self._idle.set()

    def readiness(self, probe: Probe | None = None) -> Probe:
        """``/readyz``'s check: not draining, and ``probe`` (Temporal reachable) has no reason."""

        async def ready() -> str | None:
            if self.draining:
                return SHUTTING_DOWN
            return await probe() if probe is not None else None

        return ready

    @web.middleware
    async def middleware(
        self, request: web.Request, handler: Callable[[web.Request], Awaitable[web.StreamResponse]]
    ) -> web.StreamResponse:
        """Count Slack's requests in flight; refuse them with 503 while draining."""
        if request.path != self.slack_path:
            return await handler(request)
        if self.draining:
            return web.Response(status=503, text=SHUTTING_DOWN, headers={"Retry-After": "5"})
        async with self.answering():
            return await handler(request)
