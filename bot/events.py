"""Event listeners: mentions and thread replies become requests to a task, once each.

The bot only says which task a message seems to belong to (its thread's, from the
ledger, or else the channel's); ``request.received`` in the worker decides the route
(:meth:`HarnessClient.receive`). By the built-in route a mention outside a task's
thread starts (or reaches) the channel's task and the bot binds the mention's thread
to it; a plain reply in a bound thread is a message to that task.
Bots (including this one) and edits are never requests: an edit would repeat
what the task already has, a bot could start a loop. Duplicates are stopped earlier,
by :class:`bot.middleware.DedupeEvents`. A message the task refuses (its sender has
no role there, DESIGN.md "Roles guard every input") is answered to that sender
alone, ephemerally in the thread; nothing public is posted for it. A direct message
(``message.im``) reaches no task: the bot answers it with how to start one in a channel.
A request the task has not taken within the ack budget is finished in the background
(:class:`bot.lifecycle.Pending`), so Slack is answered within its 3 s whatever the task
does; with no worker the sender is told so in the thread (:class:`TaskNoWorker`).
Every replica reads and writes the same ledger (:mod:`bot.ledger`), so a reply may reach
any replica, and a thread's task is announced once, whichever replicas deliver into
it (a claim keyed by thread and task).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Coroutine
from typing import Any, Final, final

from slack_bolt.async_app import AsyncApp, AsyncSay
from slack_sdk.web.async_client import AsyncWebClient

from bot import replies
from bot.config import BotSettings
from bot.gateway import Harness, task_id
from bot.lifecycle import Pending
from bot.payloads import EventKind, classify, event_place, mentions, obj, request_context
from harness.redaction import Redactor
from harness.storage.ledger import Ledger
from harness.temporal.errors import TaskError, TaskRefused

log = logging.getLogger(__name__)


@final
class EventRouter:
    """Routes message-like events to tasks.

    Args:
        harness: where requests go.
        ledger: thread -> task bindings.
        settings: the bot's own user id in local mode, the ack budget.
        redactor: masks secrets in every text the router posts.
    """

    def __init__(
        self, harness: Harness, ledger: Ledger, settings: BotSettings, redactor: Redactor
    ) -> None:
        self.harness = harness
        self.ledger = ledger
        self.default_bot_user = settings.bot_user_id
        self.redact = redactor.redact_text
        self.budget = settings.ack_budget_seconds
        self.pending = Pending()
        """Requests still on their way to a task after their event was acked."""

    async def on_mention(
        self,
        body: dict[str, Any],
        say: AsyncSay,
        client: AsyncWebClient,
        context: Any,  # noqa: ANN401  # bolt's context object
    ) -> None:
        """``app_mention``: a request, unless a bot or an edit."""
        if classify(obj(body.get("event"))) is EventKind.USER:
            await self._within_budget(self.route(body, say, client, self._bot_user(context)))

    async def on_message(
        self,
        body: dict[str, Any],
        say: AsyncSay,
        client: AsyncWebClient,
        context: Any,  # noqa: ANN401  # bolt's context object
    ) -> None:
        """``message``: a request if it mentions the bot or sits in a task's thread."""
        event = obj(body.get("event"))
        if classify(event) is not EventKind.USER:
            return
        if event.get("channel_type") == "im":
            # Tasks live in channels (their people, roles and threads are a channel's):
            # a direct message is answered with how to start one, and goes to no task.
            await say(text=self.redact(replies.direct_message()))
            return
        bot_user = self._bot_user(context)
        team, channel, thread, _ = event_place(body)
        bound = await self.ledger.task_of(f"{team}/{channel}/{thread}")
        if mentions(event, bot_user) or bound is not None:
            await self._within_budget(self.route(body, say, client, bot_user))

    async def _within_budget(self, routing: Coroutine[Any, Any, None]) -> None:
        """Route, waiting at most the ack budget; past it, finish in the background.

        Slack retries an event not acked within 3 s; a task answering late, or no
        worker at all (:class:`TaskNoWorker`, after ``HARNESS_UPDATE_TIMEOUT_SECONDS``),
        must not hold the ack.
        """
        task = self.pending.spawn(routing)
        done, _ = await asyncio.wait({task}, timeout=self.budget)
        if done:
            task.result()  # a failure within the budget is the request's (bolt answers 400)
        else:
            task.add_done_callback(_log_failure)

    async def route(
        self, body: dict[str, Any], say: AsyncSay, client: AsyncWebClient, bot_user: str
    ) -> None:
        """Hand the message to the harness, bind its thread, and say when a task started.

        A refusal goes to the sender only (``chat.postEphemeral``); another failure
        is said in the thread, as before.
        """
        team, channel, thread, _ = event_place(body)
        place = f"{team}/{channel}/{thread}"
        bound = await self.ledger.task_of(place)
        ctx = request_context(
            body,
            bot_user_id=bot_user,
            task_id=bound or task_id(team, channel),
            bound=bound is not None,
        )
        if not ctx.text:
            return
        try:
            delivery = await self.harness.receive(ctx)
        except TaskRefused as error:
            log.info("request %s from %s refused: %s", ctx.event_id, ctx.sender, error.reason)
            said = self.redact(replies.refused(error.reason))
            await client.chat_postEphemeral(
                channel=channel, user=ctx.sender, thread_ts=thread, text=said
            )
            return
        except TaskError as error:
            log.warning("request %s not delivered: %s", ctx.event_id, error)
            await say(text=self.redact(replies.for_error("request", error)), thread_ts=thread)
            return
        if bound == delivery.task_id:
            return
        await self.ledger.bind(place, delivery.task_id)
        # Keyed, so messages of one new thread on several replicas announce its task once:
        # "started" by the one delivery that started it (Temporal says which), "joined" by
        # the first other one, and only if "started" was not said there first.
        announced = await self.ledger.claim([f"said:{place}:{delivery.task_id}"])
        if delivery.started:
            text = replies.task_started()
        elif announced:
            text = replies.task_joined()
        else:
            return
        await say(text=self.redact(text), thread_ts=thread)

    def _bot_user(self, context: Any) -> str:  # noqa: ANN401  # bolt's context object
        found = getattr(context, "bot_user_id", None)
        return found if isinstance(found, str) and found else self.default_bot_user


def _log_failure(task: asyncio.Task[None]) -> None:
    """One line for a request that failed after its event was acked (no traceback)."""
    if not task.cancelled() and (error := task.exception()) is not None:
        first = (str(error).splitlines() or [""])[0][:200]
        log.warning("message not handled after the ack (%s: %s)", type(error).__name__, first)


LISTENS: Final = ("app_mention", "message")
"""The event types the bot listens to (the manifest subscribes to these, :mod:`bot.manifest`)."""


def register(app: AsyncApp, router: EventRouter) -> None:
    """Register the router's listeners on ``app``, one per type of :data:`LISTENS`."""
    listeners = {"app_mention": router.on_mention, "message": router.on_message}
    for event_type in LISTENS:
        app.event(event_type)(listeners[event_type])
