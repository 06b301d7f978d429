"""Interactive payloads: a help request's button becomes a ``help`` update; Stop runs ``stop``.

The worker posts each question with buttons whose action id is
``help:<request id>:<option>`` (:func:`harness.channels.help_blocks`); the click is
acked at once and forwarded with the clicker's user id. Whether that person may
decide is the task's call (``help.decided`` in the worker), which answers a refused
click with an ephemeral ``refused: …`` in the thread; a click the task cannot take
(the question is closed, the task ended) is answered here, to the clicker only.
A click is taken once, on whichever replica it reaches first: its ``trigger_id``
(Slack's, one per interaction) is claimed in the shared ledger, so a payload Slack
delivers again (a Socket Mode envelope whose ack was lost) is neither forwarded nor
answered twice. The Stop button of a progress message (:data:`STOP_ACTION`) is the command
``stop`` run as the clicker, the path a slash command takes (``command.invoked``: the task's
role guard decides, and the reply goes to the clicker, or to the channel when public).
"""

from __future__ import annotations

import logging
import re
from typing import Any, Final, final

from slack_bolt.async_app import AsyncAck, AsyncApp, AsyncRespond

from bot import replies
from bot.gateway import Harness, task_id
from bot.payloads import obj, text
from commands import invocation_of
from harness.channels.progress import STOP_ACTION
from harness.channels.slack import HELP_ACTION_PREFIX
from harness.domain import CommandResult, Role, TaskRef
from harness.hooks.contexts import CommandInvokedContext
from harness.redaction import Redactor
from harness.storage.ledger import Ledger
from harness.temporal.errors import TaskError
from harness.temporal.models import HelpClick

log = logging.getLogger(__name__)

HELP_ACTION: Final = re.compile("^" + re.escape(HELP_ACTION_PREFIX))


def help_click(body: dict[str, Any]) -> tuple[str, str, HelpClick] | None:
    """``(team/channel/thread place, channel task id, click)`` of a ``block_actions`` payload.

    Takes any JSON: a value of the wrong type reads as absent.
    """
    actions = body.get("actions")
    ours = (
        [obj(a) for a in actions if text(obj(a).get("action_id")).startswith(HELP_ACTION_PREFIX)]
        if isinstance(actions, list)
        else []
    )
    if not ours:
        return None
    action = ours[0]
    request_id = text(action.get("action_id"))[len(HELP_ACTION_PREFIX) :].rsplit(":", 1)[0]
    team = text(obj(body.get("team")).get("id"))
    container, message = obj(body.get("container")), obj(body.get("message"))
    channel = text(obj(body.get("channel")).get("id")) or text(container.get("channel_id"))
    thread = (
        text(message.get("thread_ts"))
        or text(container.get("thread_ts"))
        or text(message.get("ts"))
    )
    user = text(obj(body.get("user")).get("id"))
    click = HelpClick(request_id=request_id, user=user, choice=text(action.get("value")))
    return f"{team}/{channel}/{thread}", task_id(team, channel), click


@final
class HelpButtons:
    """The listener for help buttons.

    Args:
        harness: where clicks go.
        ledger: thread -> task bindings (a question is asked in its task's thread).
        redactor: masks secrets in the texts posted back.
    """

    def __init__(self, harness: Harness, ledger: Ledger, redactor: Redactor) -> None:
        self.harness = harness
        self.ledger = ledger
        self.redact = redactor.redact_text

    async def __call__(self, ack: AsyncAck, body: dict[str, Any], respond: AsyncRespond) -> None:
        """Ack, then forward the click to the task the thread belongs to."""
        await ack()
        found = help_click(body)
        if found is None:
            return
        place, channel_task, click = found
        trigger = text(body.get("trigger_id"))
        if trigger and not await self.ledger.claim([f"click:{trigger}"]):
            log.info(
                "help click %s delivered again (trigger %s): taken once", click.request_id, trigger
            )
            return
        target = await self.ledger.task_of(place) or channel_task
        try:
            await self.harness.answer_help(target, click)
        except TaskError as error:
            log.info("help click %s not taken: %s", click.request_id, error)
            said = self.redact(replies.for_click(error))  # a timeout is not a refusal
            await respond(text=said, response_type="ephemeral", replace_original=False)


STOP_COMMAND: Final = "stop"


def stop_click(body: dict[str, Any]) -> tuple[str, CommandInvokedContext] | None:
    """``(thread place, the command)`` of a click on Stop, or ``None`` for another click.

    The command is ``stop`` with no arguments, sent by the clicker to the task the button
    names (its value), or the channel's task. Its role is left to the task (``none`` here).
    """
    actions = body.get("actions")
    ours = (
        [obj(a) for a in actions if text(obj(a).get("action_id")) == STOP_ACTION]
        if isinstance(actions, list)
        else []
    )
    if not ours:
        return None
    team = text(obj(body.get("team")).get("id"))
    container, message = obj(body.get("container")), obj(body.get("message"))
    channel = text(obj(body.get("channel")).get("id")) or text(container.get("channel_id"))
    thread = (
        text(message.get("thread_ts"))
        or text(container.get("thread_ts"))
        or text(message.get("ts"))
    )
    trigger = text(body.get("trigger_id"))
    target = text(ours[0].get("value"))[:200] or task_id(team, channel)
    ctx = CommandInvokedContext(
        task=TaskRef(task_id=target, team=team, channel=channel),
        correlation_id=f"click/{trigger}" if trigger else "",
        command=STOP_COMMAND,
        args="",
        invocation=invocation_of(STOP_COMMAND),
        sender=text(obj(body.get("user")).get("id")),
        role=Role.NONE,
    )
    return f"{team}/{channel}/{thread}", ctx


@final
class StopButton:
    """The listener for the Stop button of a progress message.

    Args:
        harness: where the command goes.
        ledger: claims each click once (its ``trigger_id``) across replicas.
        redactor: masks secrets in the reply.
    """

    def __init__(self, harness: Harness, ledger: Ledger, redactor: Redactor) -> None:
        self.harness = harness
        self.ledger = ledger
        self.redact = redactor.redact_text

    async def __call__(self, ack: AsyncAck, body: dict[str, Any], respond: AsyncRespond) -> None:
        """Ack, run ``stop`` as the clicker, and answer by the reply rule."""
        await ack()
        found = stop_click(body)
        if found is None:
            return
        _, ctx = found
        trigger = text(body.get("trigger_id"))
        if trigger and not await self.ledger.claim([f"click:{trigger}"]):
            log.info("stop click delivered again (trigger %s): taken once", trigger)
            return
        try:
            result = await self.harness.send_command(ctx)
        except TaskError as error:
            log.info("stop click not taken: %s", error)
            result = CommandResult(reply=replies.for_error(STOP_COMMAND, error))
        except Exception as error:  # as a slash command's: the clicker reads why, never silence
            log.warning("stop click did not reach its task: %s", type(error).__name__)
            result = CommandResult(reply=replies.for_error(STOP_COMMAND, error))
        kind = "in_channel" if result.public else "ephemeral"
        await respond(text=self.redact(result.reply), response_type=kind, replace_original=False)


def register(app: AsyncApp, buttons: HelpButtons, stop: StopButton | None = None) -> None:
    """Register the help buttons' and the Stop button's listeners on ``app``."""
    app.action(HELP_ACTION)(buttons)
    if stop is not None:
        app.action(STOP_ACTION)(stop)
