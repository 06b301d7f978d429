"""The loop watchdog: a thread that notices the event loop has stopped answering, and says who.

Every hooked activity, every heartbeat and every poll of a worker runs on one asyncio loop;
an ``async def`` executor that blocks it (``time.sleep``, a synchronous HTTP call, heavy
CPU) stops all of them, and an activity whose heartbeats stop long enough is re-run as lost
(issue 26). The Temporal SDK sends heartbeats of async activities through that loop (it
encodes them with the payload codec there), so nothing can keep them going while it is
blocked: this watchdog makes the block visible instead. Its thread asks the loop to answer
(:meth:`~asyncio.AbstractEventLoop.call_soon_threadsafe`) a few times per ``warn_after``;
when no answer comes in time it samples the loop thread's stack (``sys._current_frames()``),
names the hook executor and point it is in (:func:`harness.hooks.executor_on_stack`) and,
once the loop answers, logs one WARNING with how long it was blocked. Nothing runs on the
hot path; the loop pays one callback per probe.
"""

from __future__ import annotations

import asyncio
import logging
import sys
import threading
import time
from types import FrameType, TracebackType
from typing import Final, final

from harness.hooks import executor_on_stack

log = logging.getLogger(__name__)

PROBES_PER_WARNING: Final = 4
"""Probes sent per ``warn_after``: a block is seen at most a quarter of it late."""

STUCK_FACTOR: Final = 10
"""A loop still blocked after this many ``warn_after`` is reported at once, before it answers
(it may never): a worker that hangs says so while it hangs."""


@final
class LoopWatchdog:
    """Watches the running event loop from a thread of its own; a context manager.

    Enter it on the loop it watches (``async with LoopWatchdog(warn_after=1.0):``); leaving
    stops and joins the thread.

    Args:
        warn_after: seconds the loop may leave a probe unanswered before the block is
            reported (``HARNESS_LOOP_BLOCK_WARN_SECONDS``); ``0`` watches nothing.
        logger: where the warnings go.
    """

    __slots__ = (
        "_loop",
        "_loop_thread",
        "_probe",
        "_stopping",
        "_thread",
        "logger",
        "warn_after",
    )

    def __init__(self, *, warn_after: float, logger: logging.Logger = log) -> None:
        if warn_after < 0:
            raise ValueError(f"warn_after must be 0 (off) or more, not {warn_after}")
        self.warn_after = warn_after
        self.logger = logger
        self._stopping = threading.Event()
        self._probe = threading.Event()
        self._thread: threading.Thread | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._loop_thread = 0

    async def __aenter__(self) -> LoopWatchdog:
        self.start()
        return self

    async def __aexit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.stop()

    def start(self) -> None:
        """Start watching the loop running in this thread (a no-op when ``warn_after`` is 0).

        Raises:
            RuntimeError: no event loop runs in this thread, or it was started before.
        """
        if self.warn_after == 0:
            return
        if self._thread is not None or self._stopping.is_set():
            raise RuntimeError("a loop watchdog starts once")
        self._loop = asyncio.get_running_loop()
        self._loop_thread = threading.get_ident()
        self._thread = threading.Thread(target=self._watch, name="harness-loop-watch", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        """Stop the thread and wait for it; calling it again does nothing."""
        self._stopping.set()
        self._probe.set()  # a probe the loop cannot answer while it waits here
        thread, self._thread = self._thread, None
        if thread is not None:
            thread.join()

    def _watch(self) -> None:
        loop = self._loop
        assert loop is not None  # set by start(), before the thread exists
        interval = self.warn_after / PROBES_PER_WARNING
        while not self._stopping.wait(interval):
            answered = self._probe = threading.Event()
            if self._stopping.is_set():  # stop() set the previous probe: it sees this one or we it
                return
            sent = time.monotonic()
            try:
                loop.call_soon_threadsafe(answered.set)
            except RuntimeError:  # the loop closed before we were stopped: nothing to watch
                return
            if answered.wait(self.warn_after):
                continue
            culprit = self._culprit()
            told = False
            while not answered.wait(interval):
                blocked = time.monotonic() - sent
                if not told and blocked >= STUCK_FACTOR * self.warn_after:
                    told = True
                    self._report("has been blocked (and still is) for at least", blocked, culprit)
            if self._stopping.is_set():  # the stop answered, not the loop
                return
            self._report("was blocked for at least", time.monotonic() - sent, culprit)

    def _culprit(self) -> str:
        """Who holds the loop now: the hook executor and point, and the innermost code line."""
        frame = sys._current_frames().get(self._loop_thread)
        if frame is None:  # the loop's thread has ended
            return "by no code (its thread has ended)"
        reg = executor_on_stack(frame)
        inside = f"in {_where(frame)}"
        if reg is None:
            return f"outside any hook executor, {inside}"
        return f"by hook executor {reg.name} at {reg.point}, {inside}"

    def _report(self, state: str, blocked: float, culprit: str) -> None:
        self.logger.warning(
            "the event loop %s %.1f s %s: no heartbeat, poll or other activity of this "
            "worker ran meanwhile (an async executor must not block; run blocking work with "
            "asyncio.to_thread)",
            state,
            blocked,
            culprit,
        )


def _where(frame: FrameType) -> str:
    """``module.function:line`` of ``frame``: where a sampled stack was."""
    module = frame.f_globals.get("__name__", "?")
    return f"{module}.{frame.f_code.co_name}:{frame.f_lineno}"
