"""The part of the harness client the bot needs, as a Protocol, and a lazily connecting wrapper.

:class:`harness.temporal.client.HarnessClient` satisfies :class:`Harness`; tests
can pass any object of the same shape. :class:`LazyHarness` lets the bot start and
ack while Temporal is down: it connects on first use and again after a failure.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from typing import Protocol, final

from harness.hooks.contexts import (
    ChannelMessage,
    CommandInvokedContext,
    Participant,
    TaskRef,
    TaskSnapshot,
    TaskSpec,
)
from harness.temporal.client import HarnessClient
from harness.temporal.errors import TaskUnavailable


class Harness(Protocol):
    """Start, drive and read tasks (the subset of ``HarnessClient`` the bot calls)."""

    async def start_task(
        self,
        spec: TaskSpec,
        *,
        team: str,
        channel: str,
        thread: str = "",
        participants: Sequence[Participant] = (),
        correlation_id: str = "",
    ) -> TaskRef: ...

    async def snapshot(self, task_id: str) -> TaskSnapshot: ...

    async def send_command(self, ctx: CommandInvokedContext) -> str: ...

    async def send_message(self, task_id: str, message: ChannelMessage) -> int: ...


def task_id(team: str, channel: str, thread: str = "") -> str:
    """The id of the task bound to a Slack place; the harness's own derivation."""
    return HarnessClient.task_id(team, channel, thread)


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

    async def start_task(
        self,
        spec: TaskSpec,
        *,
        team: str,
        channel: str,
        thread: str = "",
        participants: Sequence[Participant] = (),
        correlation_id: str = "",
    ) -> TaskRef:
        """See :class:`Harness`."""
        client = await self.client()
        return await client.start_task(
            spec, team=team, channel=channel, thread=thread,
            participants=participants, correlation_id=correlation_id,
        )  # fmt: skip

    async def snapshot(self, task_id: str) -> TaskSnapshot:
        """See :class:`Harness`."""
        return await (await self.client()).snapshot(task_id)

    async def send_command(self, ctx: CommandInvokedContext) -> str:
        """See :class:`Harness`."""
        return await (await self.client()).send_command(ctx)

    async def send_message(self, task_id: str, message: ChannelMessage) -> int:
        """See :class:`Harness`."""
        return await (await self.client()).send_message(task_id, message)
