"""Streamed progress messages: whether the workspace offers Slack's streaming, which are streams.

With ``HARNESS_PROGRESS=stream`` a turn's progress message is created with
``chat.startStream`` (task updates shown as a plan) instead of ``chat.postMessage``, and
followed with ``chat.appendStream`` / ``chat.stopStream``. What this process learned is
kept here, shared by the ``channel.sent`` body (creation) and the progress reporter
(updates): a workspace that refuses a stream once (``unknown_method``,
``not_allowed_token_type``, ...) is not asked again, and the reporter knows which
messages it must append to rather than ``chat.update``. Per process and bounded: a
worker on another host learns the same on its own, and a stream it does not know of is
tried as one first (a refusal makes it a plain update). A streamed message carries no
buttons until it stops, so while it streams Stop is the command, not a button.
"""

from __future__ import annotations

import logging
from collections import OrderedDict
from typing import Final, final

from harness.channels.progress import progress_chunks, progress_message
from harness.channels.slack import ChannelError, SlackChannel
from harness.domain import ChannelMessage, Role, TurnProgress
from harness.hooks.contexts import ChannelSentContext

log = logging.getLogger(__name__)

KEPT: Final = 4096
"""Streamed message ts remembered per process (oldest forgotten first)."""

TRANSIENT: Final = frozenset(
    {"ratelimited", "internal_error", "fatal_error", "service_unavailable", "request_timeout"}
)
"""Slack error words that say nothing about whether the workspace offers streams."""


@final
class Streams:
    """What this process knows of Slack's streaming.

    Args:
        enabled: ``HARNESS_PROGRESS=stream``: try streams at all.
    """

    def __init__(self, *, enabled: bool = False) -> None:
        self.enabled = enabled
        self.offered: bool | None = None
        """``None`` until a stream was started or refused."""
        self._streams: OrderedDict[str, bool] = OrderedDict()

    def may_stream(self) -> bool:
        """Whether a new progress message should be a stream."""
        return self.enabled and self.offered is not False

    def is_stream(self, ts: str) -> bool:
        """Whether updates of ``ts`` should go as stream appends (also for a ts this process did
        not create, while streams are on and not refused)."""
        known = self._streams.get(ts)
        return known if known is not None else self.may_stream()

    def mark(self, ts: str, *, stream: bool) -> None:
        """Remember what ``ts`` is (a stream that stopped or was refused is ``stream=False``)."""
        self._streams[ts] = stream
        self._streams.move_to_end(ts)
        while len(self._streams) > KEPT:
            self._streams.popitem(last=False)

    def refused(self, error: ChannelError) -> None:
        """A stream call failed: unless the failure was transient, the workspace has none."""
        if error.code and error.code not in TRANSIENT:
            if self.offered is not False:
                log.info(
                    "Slack refused streaming (%s): progress messages are posted and "
                    "updated instead",
                    error.code,
                )
            self.offered = False

    async def create(
        self, channel: SlackChannel, ctx: ChannelSentContext, progress: TurnProgress
    ) -> str:
        """Start the progress placeholder of ``ctx`` as a stream; its ts, or ``""`` to post instead.

        Not on a retry (a stream has no metadata to look its key up by until it stops, so a
        retry posts, and may leave the first attempt's stream behind), nor without someone to
        stream to (Slack needs the recipient in a channel: the task's first owner).

        Raises:
            ChannelError: Slack was not reached (a refusal returns ``""``).
        """
        owner = next((p.user_id for p in ctx.participants if p.role is Role.OWNER), "")
        team = ctx.task.team if ctx.task else ""
        if not self.may_stream() or ctx.attempt > 1 or ctx.lost_workers or not owner or not team:
            return ""
        message: ChannelMessage = ctx.message
        try:
            chunks = progress_chunks(progress, now=progress.started_at)
            ts = await channel.start_stream(message, chunks=chunks, team=team, recipient=owner)
        except ChannelError as error:
            if not error.code:
                raise
            self.refused(error)
            return ""
        self.offered = True
        if ts:
            self.mark(ts, stream=True)
        return ts


async def send_update(
    channel: SlackChannel, streams: Streams, progress: TurnProgress, *, task_id: str, now: float
) -> None:
    """Show ``progress`` on its message: a stream append (a stop, when final), else ``chat.update``.

    A stream call Slack refuses (the stream timed out, the ts is no stream, the workspace
    has none) is done again as ``chat.update``, and that message is updated so from then on.

    Raises:
        ChannelError: Slack did not take the update.
    """
    message = progress_message(progress, task_id=task_id, now=now)
    final = progress.state in ("answered", "failed", "stopped")
    if streams.is_stream(progress.message_ts):
        chunks = progress_chunks(progress, now=now)
        try:
            if final:
                await channel.stop_stream(message, chunks=chunks)
            else:
                await channel.append_stream(progress.channel, progress.message_ts, chunks)
        except ChannelError as error:
            if not error.code:
                raise
            streams.mark(progress.message_ts, stream=False)
        else:
            if final:
                streams.mark(progress.message_ts, stream=False)
            return
    await channel.update(message)
