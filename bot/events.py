"""Event listeners: mentions and thread replies become requests to a task, once each.

A mention outside a task's thread starts (or reaches) the channel's task and binds
the mention's thread to it; a plain reply in a bound thread is a message to that
task. Bots (including this one) and edits are never requests: an edit would repeat
what the task already has, a bot could start a loop. Duplicates are stopped earlier,
by :class:`bot.middleware.DedupeEvents`.
"""

from __future__ import annotations

import logging
from typing import Any, final

from slack_bolt.async_app import AsyncApp, AsyncSay

from bot import replies
from bot.config import BotSettings
from bot.gateway import Harness, task_id
from bot.ledger import Ledger
from bot.payloads import (
    EventKind,
    channel_message,
    classify,
    event_place,
    mentions,
    request_context,
)
from harness.hooks.contexts import TaskSpec
from harness.temporal.errors import TaskError

log = logging.getLogger(__name__)


@final
class EventRouter:
    """Routes message-like events to tasks.

    Args:
        harness: where requests go.
        ledger: thread -> task bindings.
        settings: the bot's own user id in local mode.
    """

    def __init__(self, harness: Harness, ledger: Ledger, settings: BotSettings) -> None:
        self.harness = harness
        self.ledger = ledger
        self.default_bot_user = settings.bot_user_id

    async def on_mention(self, body: dict[str, Any], say: AsyncSay, context: Any) -> None:  # noqa: ANN401  # bolt's context object
        """``app_mention``: a request, unless a bot or an edit."""
        if classify(body.get("event") or {}) is EventKind.USER:
            await self.route(body, say, self._bot_user(context))

    async def on_message(self, body: dict[str, Any], say: AsyncSay, context: Any) -> None:  # noqa: ANN401  # bolt's context object
        """``message``: a request if it mentions the bot or sits in a task's thread."""
        event = body.get("event") or {}
        if classify(event) is not EventKind.USER:
            return
        bot_user = self._bot_user(context)
        team, channel, thread, _ = event_place(body)
        bound = await self.ledger.task_of(f"{team}/{channel}/{thread}")
        if mentions(event, bot_user) or bound is not None:
            await self.route(body, say, bot_user)

    async def route(self, body: dict[str, Any], say: AsyncSay, bot_user: str) -> None:
        """Send the message to its thread's task, starting the channel's task if needed."""
        team, channel, thread, ts = event_place(body)
        place = f"{team}/{channel}/{thread}"
        bound = await self.ledger.task_of(place)
        ctx = request_context(body, bot_user_id=bot_user, task_id=bound or task_id(team, channel))
        if not ctx.text:
            return
        try:
            if bound is None:
                spec = TaskSpec(title=ctx.text[:80], prompt=ctx.text, owner=ctx.sender)
                ref = await self.harness.start_task(
                    spec, team=team, channel=channel, correlation_id=ctx.correlation_id
                )
                await self.ledger.bind(place, ref.task_id)
                await say(text=replies.task_started(ref.task_id), thread_ts=thread)
                bound = ref.task_id
            await self.harness.send_message(bound, channel_message(ctx, ts))
        except TaskError as error:
            log.warning("request %s not delivered: %s", ctx.event_id, error)
            await say(text=replies.for_error("request", error), thread_ts=thread)

    def _bot_user(self, context: Any) -> str:  # noqa: ANN401  # bolt's context object
        found = getattr(context, "bot_user_id", None)
        return found if isinstance(found, str) and found else self.default_bot_user


def register(app: AsyncApp, router: EventRouter) -> None:
    """Register the router's listeners on ``app``."""
    app.event("app_mention")(router.on_mention)
    app.event("message")(router.on_message)
