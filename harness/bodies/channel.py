"""Default bodies of channel.sent and channel.received over :class:`~harness.channels.SlackChannel`.

``channel.sent`` posts once per idempotency key (the transport looks a possibly
repeated post up first, :meth:`~harness.channels.SlackChannel.post`), or edits the message
a ``ts`` names; a turn's progress placeholder (``entities[PROGRESS_ENTITY]`` with no
``message_ts`` yet) starts as a Slack stream instead where streaming is on and offered
(:class:`~harness.channels.streams.Streams`); ``channel.received`` normalises what the bot
forwarded. Who may talk to a task is
the :class:`~harness.channels.guard.ConversationGuard` at ``channel.received.pre``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Self, final

from harness.bodies.marker import Bodies, Wiring, body
from harness.channels.progress import read_progress
from harness.channels.streams import Streams
from harness.hooks.contexts import ChannelReceivedContext, ChannelSentContext

if TYPE_CHECKING:
    from harness.channels import SlackChannel


@final
class ChannelBodies(Bodies):
    """Bodies of the channel operations.

    Args:
        channel: the Slack Web API (or its local stand-in).
        streams: what this process knows of Slack's streaming (shared with the progress
            reporter); none: progress placeholders are posted like any message.
    """

    def __init__(self, *, channel: SlackChannel, streams: Streams | None = None) -> None:
        self.channel = channel
        self.streams = streams or Streams()

    @classmethod
    def wired(cls, wiring: Wiring) -> Self:
        """Built from the worker's dependencies."""
        return cls(channel=wiring.deps.channel, streams=wiring.streams)

    @body(ChannelSentContext)
    async def channel_sent(self, ctx: ChannelSentContext) -> ChannelSentContext:
        """Post the message at most once; the result carries the ``ts`` Slack gave it.

        A message that names its ``ts`` (and no ``user``) replaces the message posted
        there (``chat.update``, as a closed question loses its buttons): editing twice
        leaves the same message, so a retry needs no look-up.

        Raises:
            ChannelError: the API could not be reached or answered ``ok: false``.
        """
        message = ctx.message
        if message.ts and not message.user:
            await self.channel.update(message)
            return ctx.model_copy(update={"result": message})
        progress = read_progress(ctx.entities)
        if progress is not None and not progress.message_ts and not message.user:
            ts = await self.streams.create(self.channel, ctx, progress)
            if ts:
                return ctx.model_copy(update={"result": message.model_copy(update={"ts": ts})})
        ts = await self.channel.post(
            message,
            idempotency_key=ctx.idempotency_key,
            maybe_posted=ctx.attempt > 1 or bool(ctx.lost_workers),
        )
        return ctx.model_copy(update={"result": message.model_copy(update={"ts": ts})})

    @body(ChannelReceivedContext)
    async def channel_received(self, ctx: ChannelReceivedContext) -> ChannelReceivedContext:
        """Trim the text (line breaks inside are the author's and stay)."""
        text = ctx.message.text.strip()
        return ctx.model_copy(update={"result": ctx.message.model_copy(update={"text": text})})
