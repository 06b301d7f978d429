"""Default bodies of channel.sent and channel.received over :class:`~harness.channels.SlackChannel`.

``channel.sent`` posts once per idempotency key (the transport looks a possibly
repeated post up first, :meth:`~harness.channels.SlackChannel.post`);
``channel.received`` normalises what the bot forwarded. Who may talk to a task is
the :class:`~harness.channels.guard.ConversationGuard` at ``channel.received.pre``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, final

from harness.hooks.contexts import ChannelReceivedContext, ChannelSentContext

if TYPE_CHECKING:
    from harness.channels import SlackChannel


@final
class ChannelBodies:
    """Bodies of the channel operations.

    Args:
        channel: the Slack Web API (or its local stand-in).
    """

    def __init__(self, *, channel: SlackChannel) -> None:
        self.channel = channel

    async def channel_sent(self, ctx: ChannelSentContext) -> ChannelSentContext:
        """Post the message at most once; the result carries the ``ts`` Slack gave it.

        Raises:
            ChannelError: the API could not be reached or answered ``ok: false``.
        """
        message = ctx.message
        ts = await self.channel.post(
            message,
            idempotency_key=ctx.idempotency_key,
            maybe_posted=ctx.attempt > 1 or bool(ctx.lost_workers),
        )
        return ctx.model_copy(update={"result": message.model_copy(update={"ts": ts})})

    async def channel_received(self, ctx: ChannelReceivedContext) -> ChannelReceivedContext:
        """Trim the text (line breaks inside are the author's and stay)."""
        text = ctx.message.text.strip()
        return ctx.model_copy(update={"result": ctx.message.model_copy(update={"text": text})})
