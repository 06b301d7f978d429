"""Slash command listeners: ack within Slack's 3 s whatever the task does, reply when it answers.

Each command is sent as one Temporal update. If the answer comes within the ack
budget it *is* the ack; otherwise the ack says "working on it" and the answer
follows through ``response_url``, taking that note's place. The update id is Slack's
``trigger_id``, so a slow update is still applied at most once, and Temporal being
down is a clear reply.
The task says who sees a reply (:attr:`CommandResult.public`): changes go to the
channel (``in_channel``), everything else only to the sender (``ephemeral``).
Every text is redacted before it leaves (the "working on" note repeats the user's
arguments); where ``respond`` may post is :class:`bot.middleware.GuardResponseUrls`'s call.
"""

from __future__ import annotations

import asyncio
import logging
import re
from collections.abc import Iterable
from typing import Any, final

from slack_bolt.async_app import AsyncApp, AsyncRespond
from slack_bolt.context.ack.async_ack import AsyncAck

from bot import replies
from bot.config import BotSettings
from bot.gateway import Harness, task_id
from bot.payloads import command_context, slash_command, slash_place, slash_text, text
from commands import COMMANDS, help
from commands.registry import Registry
from commands.surface import slash_commands
from harness.domain import CommandResult
from harness.redaction import Redactor
from harness.temporal.errors import TaskBusy, TaskNotFound, TaskRejected

log = logging.getLogger(__name__)


@final
class SlashHandler:
    """The listener for every slash command.

    Args:
        harness: where commands go.
        settings: the ack budget and reply deadline.
        redactor: masks secrets in every text the listener writes.
        registry: the commands it routes (:data:`commands.COMMANDS`).
    """

    def __init__(
        self,
        harness: Harness,
        settings: BotSettings,
        redactor: Redactor,
        registry: Registry = COMMANDS,
    ) -> None:
        self.harness = harness
        self.registry = registry
        self.redact = redactor.redact_text
        self.budget = settings.ack_budget_seconds
        self.deadline = settings.reply_deadline_seconds
        self._followups: set[asyncio.Task[None]] = set()

    async def __call__(self, ack: AsyncAck, body: dict[str, Any], respond: AsyncRespond) -> None:
        """Ack with the reply if it is ready within the budget, else ack and follow up.

        What runs no command of the registry (``/task teleport``) is answered here,
        without asking the task.
        """
        if slash_command(body, self.registry) is None:
            said = replies.not_a_command(text(body.get("command")), slash_text(body))
            await ack(text=self.redact(said), response_type="ephemeral")
            return
        team, channel = slash_place(body)
        ctx = command_context(body, task_id=task_id(team, channel))
        pending = asyncio.ensure_future(self._reply(ctx.command, self.harness.send_command(ctx)))
        done, _ = await asyncio.wait({pending}, timeout=self.budget)
        if done:
            result = pending.result()
            await ack(text=self.redact(result.reply), response_type=response_type(result))
            return
        await ack(
            text=self.redact(replies.working(ctx.command, ctx.args)), response_type="ephemeral"
        )
        followup = asyncio.create_task(self._follow_up(ctx.command, pending, respond))
        self._followups.add(followup)
        followup.add_done_callback(self._followups.discard)

    async def _reply(self, command: str, sending: Any) -> CommandResult:  # noqa: ANN401  # the client's coroutine
        try:
            result: CommandResult = await sending
        except TaskNotFound as error:
            if command == help.NAME:  # help works anywhere: without a task, say how to start one
                return CommandResult(reply=help.render_without_task(self.registry.values()))
            log.info("/%s: %s", command, error)
            return CommandResult(reply=replies.for_error(command, error))
        except TaskRejected as error:
            if command == help.NAME and replies.ended(error):  # help works in an ended one too
                return CommandResult(
                    reply=help.render_without_task(self.registry.values(), ended=True)
                )
            log.info("/%s: %s", command, error)
            return CommandResult(reply=replies.for_error(command, error))
        except TaskBusy as error:  # an answer ("later"), not a fault
            log.info("/%s: %s", command, error)
            return CommandResult(reply=replies.for_error(command, error))
        except Exception as error:
            log.warning("/%s did not reach its task: %s", command, error)
            return CommandResult(reply=replies.for_error(command, error))
        return result

    async def _follow_up(
        self, command: str, pending: asyncio.Future[CommandResult], respond: AsyncRespond
    ) -> None:
        try:
            result = await asyncio.wait_for(asyncio.shield(pending), self.deadline - self.budget)
        except TimeoutError:
            result = CommandResult(reply=replies.timed_out(command, self.deadline))
        if result.public:
            # Slack cannot turn the private "working on …" note into a channel message by
            # replacing it: delete the note while it is the only message ("original" is
            # unambiguous), then post the reply for everyone, even if the delete failed.
            await self._respond(command, respond, delete_original=True)
            await self._respond(
                command, respond, text=self.redact(result.reply), response_type="in_channel"
            )
        else:
            await self._respond(
                command,
                respond,
                text=self.redact(result.reply),
                response_type="ephemeral",
                replace_original=True,
            )

    @staticmethod
    async def _respond(command: str, respond: AsyncRespond, **message: Any) -> None:  # noqa: ANN401  # bolt's respond keywords
        try:
            await respond(**message)
        except Exception:
            log.exception("could not post to the response_url of /%s", command)

    async def drain(self) -> None:
        """Wait for every follow-up in flight (graceful shutdown, tests)."""
        if self._followups:
            await asyncio.gather(*self._followups, return_exceptions=True)


def response_type(result: CommandResult) -> str:
    """Slack's ``response_type`` for a command's result."""
    return "in_channel" if result.public else "ephemeral"


@final
class UnknownCommand:
    """Acks a slash command this app does not declare: its new name, or a pointer to the help.

    Slack only sends declared commands, so this is a renamed one (``/status`` is
    ``/task status``) sent by a local tool, or a stale app configuration.

    Args:
        redactor: the name is the sender's text, repeated back.
    """

    def __init__(self, redactor: Redactor) -> None:
        self.redact = redactor.redact_text

    async def __call__(self, ack: AsyncAck, body: dict[str, Any]) -> None:
        """Ack with the pointer."""
        said = replies.not_a_command(text(body.get("command")), slash_text(body))
        await ack(text=self.redact(said), response_type="ephemeral")


def declared(registry: Registry = COMMANDS) -> tuple[str, ...]:
    """The slash commands the bot routes, as the manifest declares them (``/model``, ``/task``)."""
    return tuple(found.command for found in slash_commands(registry))


def register(
    app: AsyncApp, handler: SlashHandler, redactor: Redactor, commands: Iterable[str] | None = None
) -> None:
    """Register ``handler`` for each declared command, and :class:`UnknownCommand` for the rest."""
    for command in declared(handler.registry) if commands is None else commands:
        app.command(command)(handler)
    app.command(re.compile(r"^/"))(UnknownCommand(redactor))
