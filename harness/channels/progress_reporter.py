"""The progress reporter: a built-in channel-side observer keeping a turn's progress message live.

Contract (issue 14, point 1). The task workflow keeps a :class:`~harness.domain.TurnProgress`
per turn and puts it, as JSON, in ``entities[PROGRESS_ENTITY]`` of every loop context of
that turn: the durable state after the last finished operation. The reporter watches the
operations whose catalogue row says ``progress`` (plans and their steps, model and tool
calls and the thread's posts at ``post``; model and tool calls at ``pre``: ``thinking with
<model>``, ``running <tool>``); merges that state with what the context itself says
(the plan's steps, a step's outcome, a call just made: :func:`advanced`); and shows the
result on the message ``message_ts``:

- ``channel.sent`` post of the placeholder (entity with ``message_ts == ""``): the message
  is the result's ``ts``; ``channel.sent`` post with a final state (``answered``,
  ``failed``, ``stopped``, on the post of the turn's answer) is the final rendering.
- A context without the entity, or with an unreadable one, is left alone.
- Updates go through a per-message :class:`~harness.channels.coalescer.Coalescer`: at most
  one per ``interval`` (the latest rendering), the final one at once; in this process the
  final state is sticky per ``ts`` (nothing after it is sent).
- Reactions on the person's message (``request_ts``): ``eyes`` with the first update this
  process sends for the turn, then ``white_check_mark`` (answered), ``x`` (failed) or
  ``octagonal_sign`` (stopped), and ``eyes`` removed. ``assistant.threads.setStatus`` with
  one phrase (``is running calculator…``), cleared at the end; a channel that refuses it is
  not asked again by this process.
- It never changes or aborts the operation (returns ``None``), never raises, never waits
  for Slack: a failed Slack call is one log line naming the method and Slack's error word.

Everything it renders is in the context, so any worker can report any event. The limit
across hosts: stickiness and coalescing are per process, so a rendering still queued on
another worker (at most ``interval`` old) can land after the final one there; the next
turn's message is a new message, and the workflow's status view stays right.
"""

from __future__ import annotations

import logging
from collections import OrderedDict
from dataclasses import dataclass
from typing import Final, TypeVar, final

from harness import replies
from harness.channels.coalescer import Coalescer
from harness.channels.progress import FINAL_STATES, read_progress
from harness.channels.progress_state import advanced
from harness.channels.slack import ChannelError, SlackChannel
from harness.channels.streams import Streams, send_update
from harness.domain import TurnProgress
from harness.hooks import HookContext
from harness.hooks.contexts import (
    ChannelSentContext,
)
from harness.providers import Clock, SystemClock

log = logging.getLogger(__name__)

V = TypeVar("V")

PROGRESS_PRIORITY: Final = 5000
"""After every other executor of a point: the reporter sees what the chain decided (a pre
that vetoes a tool call stops the chain before "running <tool>" is shown)."""

KEPT: Final = 4096
"""Turns and channels remembered per process (reactions sent, statuses refused)."""

FINAL_REACTION: Final = {"answered": "white_check_mark", "failed": "x", "stopped": "octagonal_sign"}
IGNORED: Final = frozenset({"already_reacted", "no_reaction", "message_not_found"})


def status_phrase(progress: TurnProgress) -> str:
    """The assistant status of the thread: one honest phrase, ``""`` once the turn is over."""
    if progress.state in FINAL_STATES:
        return ""
    return replies.thread_status(progress.state, progress.doing)


@final
@dataclass(frozen=True)
class _Update:
    progress: TurnProgress
    task_id: str


@final
class ProgressReporter:
    """Shows each turn's progress on its message (the module docstring is the contract).

    Register :meth:`__call__` at the ``post`` points and :meth:`before` at the ``pre``
    points of the catalogue rows whose ``progress`` names them
    (:func:`harness.bodies.register_defaults` does, unless ``HARNESS_PROGRESS=off``).

    Args:
        channel: the Slack Web API (or its stand-in).
        streams: what this process knows of Slack's streaming (shared with ``channel.sent``).
        interval: ``HARNESS_PROGRESS_INTERVAL_SECONDS``: the least time between two updates
            of one message.
        clock: the elapsed time's clock.
    """

    name: Final = "harness.channels.progress_reporter.ProgressReporter"

    def __init__(
        self,
        *,
        channel: SlackChannel,
        streams: Streams | None = None,
        interval: float = 1.0,
        clock: Clock | None = None,
    ) -> None:
        self.channel = channel
        self.streams = streams or Streams()
        self.clock: Clock = clock or SystemClock()
        self.coalescer: Coalescer[_Update] = Coalescer(
            self._send, interval=interval, clock=self.clock.monotonic
        )
        self._reacted: OrderedDict[str, None] = OrderedDict()
        self._status: OrderedDict[str, str] = OrderedDict()
        self._no_status: OrderedDict[str, None] = OrderedDict()

    async def __call__(self, ctx: HookContext, /) -> None:
        """At a ``post`` point: show the turn as the operation left it."""
        self._observe(ctx, pre=False)

    async def before(self, ctx: HookContext, /) -> None:
        """At a ``pre`` point: show what is about to run."""
        self._observe(ctx, pre=True)

    def _observe(self, ctx: HookContext, *, pre: bool) -> None:
        try:
            progress = read_progress(ctx.entities)
            if progress is None or (isinstance(ctx, ChannelSentContext) and pre):
                return
            progress = advanced(progress, ctx, pre=pre)
            if not progress.message_ts or not progress.channel:
                return
            final = isinstance(ctx, ChannelSentContext) and progress.state in FINAL_STATES
            task_id = ctx.task.task_id if ctx.task else ""
            self.coalescer.submit(progress.message_ts, _Update(progress, task_id), final=final)
        except Exception as error:  # an observer never fails the operation it watches
            log.warning("progress not reported: %s", type(error).__name__)

    async def _send(self, update: _Update) -> None:
        progress = update.progress
        if progress.request_ts and progress.request_ts not in self._reacted:
            _remember(self._reacted, progress.request_ts, None)
            await self._call(
                "reactions.add",
                channel=progress.channel,
                timestamp=progress.request_ts,
                name="eyes",
            )
        now = self.clock.now().timestamp()
        try:
            await send_update(self.channel, self.streams, progress, task_id=update.task_id, now=now)
        except ChannelError as error:
            _failed("the progress message", progress.message_ts, error)
        await self._set_status(progress)
        mark = FINAL_REACTION.get(progress.state)
        if mark and progress.request_ts:
            await self._call(
                "reactions.add", channel=progress.channel, timestamp=progress.request_ts, name=mark
            )
            await self._call(
                "reactions.remove",
                channel=progress.channel,
                timestamp=progress.request_ts,
                name="eyes",
            )

    async def _set_status(self, progress: TurnProgress) -> None:
        thread = progress.thread or progress.request_ts
        phrase = status_phrase(progress)
        if not thread or progress.channel in self._no_status:
            return
        if self._status.get(progress.message_ts) == phrase:
            return
        _remember(self._status, progress.message_ts, phrase)
        try:
            await self.channel.call(
                "assistant.threads.setStatus",
                {"channel_id": progress.channel, "thread_ts": thread, "status": phrase},
            )
        except ChannelError as error:
            _remember(self._no_status, progress.channel, None)
            log.info(
                "assistant.threads.setStatus not used in %s from now on: %s",
                progress.channel,
                error.code or "not reached",
            )

    async def _call(self, method: str, **args: str) -> None:
        try:
            await self.channel.call(method, dict(args))
        except ChannelError as error:
            if error.code not in IGNORED:
                _failed(method, args.get("timestamp", ""), error)

    async def aclose(self) -> None:
        """Let updates in flight finish briefly, then stop (the manager closes it at shutdown)."""
        await self.coalescer.aclose()


def _failed(what: str, ts: str, error: ChannelError) -> None:
    """One log line: Slack's error word only (the error's text may quote a URL)."""
    log.warning("progress: %s for %s not sent: %s", what, ts, error.code or "Slack not reached")


def _remember(kept: OrderedDict[str, V], key: str, value: V) -> None:
    kept[key] = value
    kept.move_to_end(key)
    while len(kept) > KEPT:
        kept.popitem(last=False)
