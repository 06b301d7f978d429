"""Interactive payloads: a click on a help request's button becomes a ``help`` update to its task.

The worker posts each question with buttons whose action id is
``help:<request id>:<option>`` (:func:`harness.channels.help_blocks`); the click is
acked at once and forwarded with the clicker's user id. Whether that person may
decide is the task's call (``help.decided`` in the worker), which answers a refused
click with an ephemeral ``refused: …`` in the thread; a click the task cannot take
(the question is closed, the task ended) is answered here, to the clicker only.
A click is taken once, on whichever replica it reaches first: its ``trigger_id``
(Slack's, one per interaction) is claimed in the shared ledger, so a payload Slack
delivers again (a Socket Mode envelope whose ack was lost) is neither forwarded nor
answered twice.
"""

from __future__ import annotations

import logging
import re
from typing import Any, Final, final

from slack_bolt.async_app import AsyncAck, AsyncApp, AsyncRespond

from bot import replies
from bot.gateway import Harness, task_id
from bot.ledger import Ledger
from bot.payloads import obj, text
from harness.channels.slack import HELP_ACTION_PREFIX
from harness.hooks import Redactor
from harness.temporal.errors import TaskError, TaskTimedOut
from harness.temporal.models import HelpClick

log = logging.getLogger(__name__)

HELP_ACTION: Final = re.compile("^" + re.escape(HELP_ACTION_PREFIX))


def help_click(body: dict[str, Any]) -> tuple[str, str, HelpClick] | None:
    """``(team/channel/thread place, channel task id, click)`` of a ``block_actions`` payload.

    Takes any JSON: a value of the wrong type reads as absent.
    """
    actions = body.get("actions")
    ours = [obj(a) for a in actions if text(obj(a).get("action_id")).startswith(
        HELP_ACTION_PREFIX)] if isinstance(actions, list) else []  # fmt: skip
    if not ours:
        return None
    action = ours[0]
    request_id = text(action.get("action_id"))[len(HELP_ACTION_PREFIX) :].rsplit(":", 1)[0]
    team = text(obj(body.get("team")).get("id"))
    container, message = obj(body.get("container")), obj(body.get("message"))
    channel = text(obj(body.get("channel")).get("id")) or text(container.get("channel_id"))
    thread = (text(message.get("thread_ts")) or text(container.get("thread_ts"))
              or text(message.get("ts")))  # fmt: skip
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
            log.info("help click %s delivered again (trigger %s): taken once", click.request_id,
                     trigger)  # fmt: skip
            return
        target = await self.ledger.task_of(place) or channel_task
        try:
            await self.harness.answer_help(target, click)
        except TaskError as error:
            log.info("help click %s not taken: %s", click.request_id, error)
            # A timeout is not a refusal: the click may still count.
            timed_out = isinstance(error, TaskTimedOut)
            said = error.reason if timed_out else replies.refused(error.reason)
            await respond(text=self.redact(said), response_type="ephemeral", replace_original=False)


def register(app: AsyncApp, buttons: HelpButtons) -> None:
    """Register the help buttons' listener on ``app``."""
    app.action(HELP_ACTION)(buttons)
