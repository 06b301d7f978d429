"""The coalescer: one send per key per interval, always the latest item, the final one at once.

Slack rate-limits ``chat.update`` per message (about one a second), and a turn's
operations can fire dozens of events within one. Each key (a progress message's ts)
gets one background sender that sends the newest item submitted, then waits out the
interval; items submitted meanwhile replace each other. A *final* item is sent as soon
as the send in flight (if any) returns, ends that key, and is sticky: anything
submitted for the key afterwards is dropped, so a late, stale rendering never
overwrites the final one. Submitting never waits and never raises. Memory is bounded:
idle keys expire after ``ttl`` and at most ``max_keys`` are kept. Per process: a
coalescer on another host knows nothing of this one (the reporter's docstring says
what that means for the message).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Final, Generic, TypeVar, final

log = logging.getLogger(__name__)

T = TypeVar("T")

FINALS_KEPT: Final = 4096
"""Keys whose final item was sent, remembered so a late item for them is dropped."""


@dataclass
class _Key(Generic[T]):
    pending: T | None = None
    final: bool = False
    last_sent: float = float("-inf")
    touched: float = 0.0
    task: asyncio.Task[None] | None = None
    wake: asyncio.Event = field(default_factory=asyncio.Event)


@final
class Coalescer(Generic[T]):
    """Sends the latest item of each key, at most once per ``interval`` seconds.

    Args:
        send: sends one item; its failure is logged (one line) and the key goes on.
        interval: the least time between two sends of one key.
        ttl: seconds an idle key is kept before it is forgotten.
        max_keys: keys kept at most (the oldest idle ones go first).
        clock: monotonic seconds (a test may pass its own).
    """

    def __init__(
        self,
        send: Callable[[T], Awaitable[None]],
        *,
        interval: float = 1.0,
        ttl: float = 3600.0,
        max_keys: int = 1000,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.send = send
        self.interval = interval
        self.ttl = ttl
        self.max_keys = max_keys
        self.clock = clock
        self._keys: dict[str, _Key[T]] = {}
        self._finished: OrderedDict[str, None] = OrderedDict()

    def submit(self, key: str, item: T, *, final: bool = False) -> None:
        """Make ``item`` the next for ``key``; ``final`` sends it promptly and ends the key."""
        if key in self._finished:
            return
        entry = self._keys.get(key)
        if entry is None:
            self._expire()
            entry = self._keys[key] = _Key()
        entry.pending, entry.touched = item, self.clock()
        if final:
            entry.final = True
            self._finished[key] = None
            while len(self._finished) > FINALS_KEPT:
                self._finished.popitem(last=False)
            entry.wake.set()
        if entry.task is None:
            entry.task = asyncio.get_running_loop().create_task(self._run(key, entry))

    def is_final(self, key: str) -> bool:
        """Whether ``key``'s final item was submitted (in this process)."""
        return key in self._finished

    async def _run(self, key: str, entry: _Key[T]) -> None:
        try:
            while entry.pending is not None:
                wait = entry.last_sent + self.interval - self.clock()
                if wait > 0 and not entry.final:
                    entry.wake.clear()
                    with contextlib.suppress(TimeoutError):
                        await asyncio.wait_for(entry.wake.wait(), wait)
                item, entry.pending = entry.pending, None
                entry.last_sent = self.clock()
                try:
                    await self.send(item)
                except Exception as error:  # best-effort by contract: one line, never raised
                    log.warning(
                        "progress update for %s not sent: %s",
                        key,
                        f"{type(error).__name__}: {error}",
                    )
        finally:
            entry.task = None
            if entry.final and self._keys.get(key) is entry:
                del self._keys[key]

    def _expire(self) -> None:
        """Forget idle keys past ``ttl``, and the oldest idle ones over ``max_keys``."""
        now = self.clock()
        for key in [
            k for k, e in self._keys.items() if e.task is None and now - e.touched > self.ttl
        ]:
            del self._keys[key]
        if len(self._keys) >= self.max_keys:
            idle = sorted((e.touched, k) for k, e in self._keys.items() if e.task is None)
            for _, key in idle[: len(self._keys) - self.max_keys + 1]:
                del self._keys[key]

    def __len__(self) -> int:
        return len(self._keys)

    async def drain(self, timeout: float = 5.0) -> None:
        """Wait until every key's sender is idle (tests, and shutdown before :meth:`aclose`)."""
        tasks = [e.task for e in self._keys.values() if e.task is not None]
        if tasks:
            await asyncio.wait(tasks, timeout=timeout)

    async def aclose(self) -> None:
        """Give the senders a moment to finish (finals first), then cancel what is left."""
        await self.drain(timeout=2.0)
        tasks = [e.task for e in self._keys.values() if e.task is not None]
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(asyncio.CancelledError):
                await task
