"""The part of the harness client the bot needs, as a Protocol, and a lazily connecting wrapper.

:class:`harness.temporal.client.HarnessClient` satisfies :class:`Harness`; tests
can pass any object of the same shape. :class:`LazyHarness` lets the bot start and
ack while Temporal is down: it connects on first use and again after a failure.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Protocol, final

from harness.domain import CommandResult, TaskSnapshot
from harness.hooks.contexts import CommandInvokedContext, RequestReceivedContext
from harness.temporal.client import HarnessClient
from harness.temporal.errors import TaskUnavailable
from harness.temporal.models import Delivery, HelpClick


class Harness(Protocol):
    """Drive and read tasks (the subset of ``HarnessClient`` the bot calls).

    The bot decides nothing about tasks itself: a command goes to the channel's task,
    and where a plain message goes is decided by ``request.received`` in the worker.
    """

    async def snapshot(self, task_id: str) -> TaskSnapshot: ...

    async def send_command(self, ctx: CommandInvokedContext) -> CommandResult: ...

    async def receive(self, request: RequestReceivedContext) -> Delivery: ...

    async def answer_help(self, task_id: str, click: HelpClick) -> None: ...


def task_id(team: str, channel: str) -> str:
    """The id of a channel's task (one active task per channel); the harness's own derivation."""
    return HarnessClient.task_id(team, channel)


@final
class LazyHarness:
    """A :class:`Harness` that connects on first use and reconnects after a failed connect.

    Args:
        connect: returns a connected harness client; raises ``TaskUnavailable``.
        connect_timeout: seconds one connection attempt may take.
    """

    def __init__(
        self, connect: Callable[[], Awaitable[Harness]], *, connect_timeout: float = 5.0
    ) -> None:
        self._connect = connect
        self._timeout = connect_timeout
        self._client: Harness | None = None
        self._lock = asyncio.Lock()

    async def client(self) -> Harness:
        """The connected client.

        Raises:
            TaskUnavailable: Temporal could not be reached within ``connect_timeout``.
        """
        if self._client is not None:
            return self._client
        async with self._lock:
            if self._client is None:
                try:
                    self._client = await asyncio.wait_for(self._connect(), self._timeout)
                except TimeoutError:
                    raise TaskUnavailable(task_id="-", reason="connect timed out") from None
        return self._client

    async def ready(self) -> str | None:
        """``/readyz``'s check: ``None`` once connected (connecting now if need be), else why not.

        Connected once is ready: the SDK reconnects by itself, and a bot that can
        answer "Temporal is not reachable" within 3 s still serves Slack.
        """
        try:
            await self.client()
        except TaskUnavailable as error:
            first = (error.reason.splitlines() or [""])[0]
            return f"Temporal not reachable: {first[:120]}{'…' if len(first) > 120 else ''}"
        return None

    async def snapshot(self, task_id: str) -> TaskSnapshot:
        """See :class:`Harness`."""
        return await (await self.client()).snapshot(task_id)

    async def send_command(self, ctx: CommandInvokedContext) -> CommandResult:
        """See :class:`Harness`."""
        return await (await self.client()).send_command(ctx)

    async def receive(self, request: RequestReceivedContext) -> Delivery:
        """See :class:`Harness`."""
        return await (await self.client()).receive(request)

    async def answer_help(self, task_id: str, click: HelpClick) -> None:
        """See :class:`Harness`."""
        await (await self.client()).answer_help(task_id, click)
