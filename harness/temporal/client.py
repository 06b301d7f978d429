"""HarnessClient: the only harness API the bot uses to start, drive and read tasks.

It wraps a Temporal client; the bot never sees workflow names, update names or
Temporal exceptions (they become :mod:`harness.temporal.errors`). A task's id is
derived from where it lives in Slack, so the same thread always reaches the same task.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Sequence

from temporalio.client import Client, WorkflowFailureError, WorkflowUpdateFailedError
from temporalio.common import WorkflowIDConflictPolicy
from temporalio.contrib.pydantic import pydantic_data_converter
from temporalio.exceptions import ApplicationError
from temporalio.service import RPCError, RPCStatusCode

from harness.config import Settings
from harness.hooks.contexts import (
    ChannelMessage,
    CommandInvokedContext,
    Participant,
    TaskRef,
    TaskSnapshot,
    TaskSpec,
    TaskStatus,
)
from harness.temporal import TASK_WORKFLOW
from harness.temporal.errors import TaskRejected, TaskUnavailable
from harness.temporal.models import (
    ActivityPolicy,
    FinishRequest,
    TaskInput,
    TaskOutcome,
    task_id_for,
)


class HarnessClient:
    """Starts tasks and sends them messages, commands and queries.

    Args:
        client: a Temporal client using ``pydantic_data_converter``.
        settings: task queue and the activity policy given to new tasks.
    """

    def __init__(self, client: Client, settings: Settings) -> None:
        self.temporal = client
        self.settings = settings

    @classmethod
    async def connect(cls, settings: Settings) -> HarnessClient:
        """Connect to the Temporal server named in ``settings``.

        Raises:
            TaskUnavailable: the server cannot be reached.
        """
        try:
            client = await Client.connect(
                settings.temporal_address,
                namespace=settings.temporal_namespace,
                data_converter=pydantic_data_converter,
            )
        except RuntimeError as error:  # the SDK reports connection failures as RuntimeError
            raise TaskUnavailable(task_id="-", reason=str(error)) from error
        return cls(client, settings)

    @staticmethod
    def task_id(team: str, channel: str, thread: str = "") -> str:
        """The id of the task bound to a Slack team, channel and (optional) thread."""
        return task_id_for(team, channel, thread)

    async def start_task(
        self,
        spec: TaskSpec,
        *,
        team: str,
        channel: str,
        thread: str = "",
        participants: Sequence[Participant] = (),
        correlation_id: str = "",
    ) -> TaskRef:
        """Start the task bound to this Slack place, or return it if it is already running."""
        ref = TaskRef(task_id=self.task_id(team, channel, thread), team=team, channel=channel,
                      thread=thread)  # fmt: skip
        policy = ActivityPolicy(
            start_to_close_seconds=self.settings.activity_start_to_close_seconds,
            heartbeat_seconds=self.settings.activity_heartbeat_seconds,
            max_attempts=self.settings.retry_max_attempts,
        )
        task = TaskInput(ref=ref, spec=spec, participants=tuple(participants),
                         correlation_id=correlation_id, policy=policy)  # fmt: skip
        async with self._mapped(ref.task_id):
            await self.temporal.start_workflow(
                TASK_WORKFLOW,
                task,
                id=ref.task_id,
                task_queue=self.settings.task_queue,
                id_conflict_policy=WorkflowIDConflictPolicy.USE_EXISTING,
            )
        return ref

    async def snapshot(self, task_id: str) -> TaskSnapshot:
        """The task's current state (model, effort, status, participants, sub-tasks)."""
        async with self._mapped(task_id):
            handle = self.temporal.get_workflow_handle(task_id)
            snapshot: TaskSnapshot = await handle.query("snapshot", result_type=TaskSnapshot)
        return snapshot

    async def transcript(self, task_id: str) -> tuple[ChannelMessage, ...]:
        """The task's messages, oldest first."""
        async with self._mapped(task_id):
            handle = self.temporal.get_workflow_handle(task_id)
            messages: tuple[ChannelMessage, ...] = await handle.query(
                "transcript", result_type=tuple[ChannelMessage, ...]
            )
        return messages

    async def send_command(self, ctx: CommandInvokedContext) -> str:
        """Run a slash command on the task named by ``ctx.task``; returns the reply text.

        The sender's role on ``ctx`` is ignored: the task derives it from its participants.

        Raises:
            TaskRejected: the task has finished or the command targets another task.
        """
        if ctx.task is None:
            raise TaskRejected(task_id="-", reason="command has no target task")
        async with self._mapped(ctx.task.task_id):
            handle = self.temporal.get_workflow_handle(ctx.task.task_id)
            reply: str = await handle.execute_update(
                "command", ctx, result_type=str, id=ctx.correlation_id or None
            )
        return reply

    async def send_message(self, task_id: str, message: ChannelMessage) -> int:
        """Add a message to the task's transcript; returns its position (from 1).

        Sending the same message (same ``ts``) again returns its first position.
        """
        async with self._mapped(task_id):
            handle = self.temporal.get_workflow_handle(task_id)
            position: int = await handle.execute_update(
                "message",
                message,
                result_type=int,
                id=f"message/{message.ts}" if message.ts else None,
            )
        return position

    async def finish(
        self, task_id: str, status: TaskStatus = TaskStatus.SUCCEEDED, summary: str = "",
        *, requested_by: str = "",
    ) -> None:  # fmt: skip
        """Ask the task to end (once its sub-tasks have)."""
        request = FinishRequest(status=status, summary=summary, requested_by=requested_by)
        async with self._mapped(task_id):
            await self.temporal.get_workflow_handle(task_id).execute_update("finish", request)

    async def outcome(self, task_id: str) -> TaskOutcome:
        """Wait for the task to end and return how it ended (bound it with ``asyncio.timeout``).

        Raises:
            TaskRejected: the task failed (gave up); the reason is Temporal's failure message.
        """
        async with self._mapped(task_id):
            handle = self.temporal.get_workflow_handle(task_id, result_type=TaskOutcome)
            outcome: TaskOutcome = await handle.result()
        return outcome

    @contextlib.asynccontextmanager
    async def _mapped(self, task_id: str) -> AsyncIterator[None]:
        """Turn Temporal's exceptions into the harness's (STYLE.md rule 8: one boundary)."""
        try:
            yield
        except WorkflowUpdateFailedError as error:
            raise TaskRejected(task_id=task_id, reason=_message(error.cause)) from error
        except WorkflowFailureError as error:
            raise TaskRejected(task_id=task_id, reason=_message(error.cause)) from error
        except RPCError as error:
            if error.status == RPCStatusCode.NOT_FOUND and "completed" in error.message:
                # Temporal answers an update to a closed workflow this way.
                raise TaskRejected(task_id=task_id, reason="task has finished") from error
            raise TaskUnavailable(task_id=task_id, reason=error.message) from error


def _message(cause: BaseException) -> str:
    return cause.message if isinstance(cause, ApplicationError) else str(cause)
