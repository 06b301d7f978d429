"""HarnessClient: the only harness API the bot uses to start, drive and read tasks.

It wraps a Temporal client; the bot never sees workflow names, update names or
Temporal exceptions (they become :mod:`harness.temporal.errors`). A task's id is
derived from its channel (one active task per channel, see
:func:`harness.temporal.models.task_id_for`); the thread it started in is kept on
its :class:`TaskRef`.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import timedelta
from typing import TypeVar

from temporalio.client import (
    Client,
)
from temporalio.common import WorkflowIDConflictPolicy
from temporalio.exceptions import WorkflowAlreadyStartedError
from temporalio.runtime import Runtime
from temporalio.service import RetryConfig

from harness.config import Settings
from harness.domain import (
    ChannelMessage,
    CommandResult,
    Participant,
    TaskRef,
    TaskSnapshot,
    TaskSpec,
    TaskStatus,
)
from harness.hooks import load_redaction
from harness.hooks.contexts import CommandInvokedContext, RequestReceivedContext
from harness.storage import PayloadStore, TranscriptStore
from harness.temporal import TASK_WORKFLOW
from harness.temporal.client import routing
from harness.temporal.client.error_mapping import mapped
from harness.temporal.codec import data_converter
from harness.temporal.connection import explain, open_client, resolve
from harness.temporal.errors import (
    TaskRejected,
    TaskUnavailable,
)
from harness.temporal.keys import load_keys
from harness.temporal.models import (
    ActivityPolicy,
    Delivery,
    FinishRequest,
    HelpClick,
    RequestInput,
    TaskInput,
    TaskOutcome,
    task_id_for,
    transcript_key,
)

T = TypeVar("T")


def rpc_retries(seconds: float) -> RetryConfig:
    """How the client retries one request Temporal does not take (unreachable, or busy):
    for ``seconds`` (``temporal_rpc_seconds``). The SDK's default is ~10 s: far past Slack's
    3 s; a request that cannot get through fails in this budget."""
    return RetryConfig(max_elapsed_time_millis=int(seconds * 1000), max_interval_millis=500)


class HarnessClient:
    """Starts tasks and sends them messages, commands and queries.

    Everything it sends is redacted first (every known token shape, the settings' own
    secrets, and the hooks file's ``[redaction]`` table): what a task is told is written to
    Temporal's history, and a token pasted into Slack must not be, even encrypted
    (DESIGN, "Nothing readable at rest").

    Args:
        client: a Temporal client using :func:`harness.temporal.codec.data_converter`.
        settings: task queue and the activity policy given to new tasks.

    Raises:
        HookConfigError: ``settings.hooks_config`` cannot be read or is not of the schema.
    """

    def __init__(self, client: Client, settings: Settings) -> None:
        self.temporal = client
        self.settings = settings
        # What goes into an update or a workflow start is redacted first (issue 9): the
        # known families, every secret this process is configured with, and the hooks
        # file's [redaction] table, as the worker masks (issue 26).
        table = load_redaction(settings.hooks_config)
        self._redactor = table.redactor(secrets=settings.secret_values())

    @classmethod
    async def connect(cls, settings: Settings, *, runtime: Runtime | None = None) -> HarnessClient:
        """Connect to Temporal as ``settings`` and ``TEMPORAL_*`` say, encrypting payloads.

        Where and how (TLS, API key, a profile) is :func:`harness.temporal.connection.resolve`.

        Args:
            settings: the harness settings.
            runtime: the SDK runtime to connect in (its telemetry); the SDK's default when ``None``.

        Raises:
            PayloadKeyError: no payload key is configured, or one is malformed; checked
                before connecting, so nothing is ever sent unencrypted.
            TemporalConfigError: the connection settings are wrong (named, nothing secret).
            TaskUnavailable: the server cannot be reached, or the TLS handshake failed.
        """
        converter = data_converter(load_keys(settings), PayloadStore(settings.database))
        connection = resolve(settings)
        try:
            client = await open_client(
                connection,
                data_converter=converter,
                runtime=runtime,
                retry_config=rpc_retries(settings.temporal_rpc_seconds),
            )
        except RuntimeError as error:  # the SDK reports connection failures as RuntimeError
            raise TaskUnavailable(task_id="-", reason=explain(error, connection)) from error
        return cls(client, settings)

    @staticmethod
    def task_id(team: str, channel: str) -> str:
        """The id of the task of a Slack team and channel (one active task per channel)."""
        return task_id_for(team, channel)

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
        """Start the channel's task, bound to ``thread``; or return it if it is already running.

        Args:
            spec: what the task is asked to do, and its owner.
            team: the Slack team.
            channel: the channel; its task's id is :meth:`task_id` of team and channel.
            thread: the thread the task talks in (kept on its ref; not part of the id).
            participants: people and roles besides the owner.
            correlation_id: carried by every context of the task.

        Returns:
            The ref of the new task (of the running one, the thread may differ).
        """
        ref = TaskRef(
            task_id=self.task_id(team, channel), team=team, channel=channel, thread=thread
        )
        await self._start(ref, spec, participants, correlation_id)
        return ref

    async def _start(
        self,
        ref: TaskRef,
        spec: TaskSpec,
        participants: Sequence[Participant] = (),
        correlation_id: str = "",
    ) -> bool:
        """Start the task workflow; ``False`` if one with this id was running already.

        A spec naming no model gets :attr:`~harness.config.Settings.task_model`
        (``HARNESS_DEFAULT_MODEL``, else the first of ``HARNESS_MODELS``), so a task always
        shows (and runs on) a real model, e.g. the offline model in local mode.
        """
        if not spec.model:
            spec = spec.model_copy(update={"model": self.settings.task_model})
        policy = self._policy()
        task = TaskInput(
            ref=ref,
            spec=spec,
            participants=tuple(participants),
            correlation_id=correlation_id,
            policy=policy,
        )
        task = self._clean(task)
        async with mapped(ref.task_id):
            try:
                await self.temporal.start_workflow(
                    TASK_WORKFLOW,
                    task,
                    id=ref.task_id,
                    task_queue=self.settings.task_queue,
                    id_conflict_policy=WorkflowIDConflictPolicy.FAIL,
                    task_timeout=timedelta(seconds=self.settings.workflow_task_timeout_seconds),
                )
            except WorkflowAlreadyStartedError:
                return False
        return True

    async def receive(self, request: RequestReceivedContext) -> Delivery:
        """Route a plain message with ``request.received``, deliver it (in its task, if running).

        ``request.task`` names the task the caller believes it belongs to (see the
        built-in body); the route the chain returns decides. A route with
        ``new_task`` opens that task (owned by the sender) unless it runs already.
        Running the same request twice (same ``correlation_id``) routes it once, and
        the message (same ``ts``) is added once.

        Raises:
            TaskRejected: the chain refused the request, or the task has finished.
            TaskNotFound: the route names a task that does not exist.
            TaskNoWorker: no worker routed it within ``update_timeout_seconds`` (else
                :data:`~harness.temporal.client.routing.ROUTE_WAIT_SECONDS`); it was withdrawn.
            TaskUnavailable: Temporal could not be reached.
        """
        if request.task is None:
            raise TaskRejected(task_id="-", reason="request has no target task")
        target = request.task
        request = self._clean(request)
        # Per target too: an event id is unique in one Slack workspace, not across them.
        key = f"request/{target.task_id}/{request.correlation_id or request.event_id or request.ts}"
        timeout = self._update_timeout
        if delivered := await routing.to_running_task(
            self.temporal, request, key, timeout, mapped(target.task_id)
        ):
            return delivered
        route = await routing.route(
            self.temporal,
            RequestInput(request=request, policy=self._policy()),
            key=key,
            task_id=target.task_id,
            task_queue=self.settings.task_queue,
            wait=self.settings.update_timeout_seconds or routing.ROUTE_WAIT_SECONDS,
            rpc_seconds=self.settings.temporal_rpc_seconds,
            mapped=mapped(target.task_id),
        )
        started = False
        if route.new_task:
            spec = TaskSpec(
                title=route.text.splitlines()[0][:80], prompt=route.text, owner=request.sender
            )
            ref = target.model_copy(update={"task_id": route.task_id, "thread": request.thread})
            started = await self._start(ref, spec, correlation_id=request.correlation_id)
        message = ChannelMessage(
            channel=request.channel,
            thread=request.thread,
            user=request.sender,
            text=route.text,
            ts=request.ts,
        )
        position = await self.send_message(route.task_id, message)
        return Delivery(task_id=route.task_id, started=started, position=position)

    async def snapshot(self, task_id: str) -> TaskSnapshot:
        """The task's current state (model, effort, status, participants, sub-tasks)."""
        async with mapped(task_id):
            handle = self.temporal.get_workflow_handle(task_id)
            snapshot: TaskSnapshot = await handle.query("snapshot", result_type=TaskSnapshot)
        return snapshot

    async def transcript(self, task_id: str) -> tuple[ChannelMessage, ...]:
        """The task's messages, oldest first, from the store (else its workflow's, for one of
        the old way: they are not in the store yet)."""
        entries = await TranscriptStore.read_once(self.settings.database, transcript_key(task_id))
        if entries:
            return tuple(ChannelMessage.model_validate_json(e.content) for e in entries)
        async with mapped(task_id):
            handle = self.temporal.get_workflow_handle(task_id)
            return await handle.query("transcript", result_type=tuple[ChannelMessage, ...])  # type: ignore[no-any-return]  # the query's result type

    async def send_command(self, ctx: CommandInvokedContext) -> CommandResult:
        """Run a slash command on the task named by ``ctx.task``.

        The sender's role on ``ctx`` is ignored: the task derives it from its participants.

        Returns:
            The reply, the effects as the task applied them (a sub-task with its id) and
            ``public``: whether the reply is for the whole channel or only the sender.

        Raises:
            TaskNotFound: no task runs there (nothing was started in that channel).
            TaskRejected: the task has finished or the command targets another task.
            TaskBusy: the task had its limit of requests in flight (10) for too long.
            TaskTimedOut: no answer within ``update_timeout_seconds`` (it may still apply).
            TaskUnavailable: Temporal could not be reached.
        """
        if ctx.task is None:
            raise TaskRejected(task_id="-", reason="command has no target task")
        task_id = ctx.task.task_id
        ctx = self._clean(ctx)
        async with mapped(task_id):
            handle = self.temporal.get_workflow_handle(task_id)
            result: CommandResult = await handle.execute_update(
                "command",
                ctx,
                result_type=CommandResult,
                id=ctx.correlation_id or None,
                rpc_timeout=self._update_timeout,
            )
        return result

    async def send_message(self, task_id: str, message: ChannelMessage) -> int:
        """Add a message to the task's transcript; returns its position (from 1).

        Sending the same message (same ``ts``) again returns its first position.
        """
        message = self._clean(message)
        async with mapped(task_id):
            handle = self.temporal.get_workflow_handle(task_id)
            position: int = await handle.execute_update(
                "message",
                message,
                result_type=int,
                rpc_timeout=self._update_timeout,
                id=f"message/{message.ts}" if message.ts else None,
            )
        return position

    async def answer_help(self, task_id: str, click: HelpClick) -> None:
        """Deliver a click on a help request's button; the task's ``help.decided`` judges it.

        Raises:
            TaskRejected: the task has no such open question (answered already, or ended).
        """
        click = self._clean(click)
        async with mapped(task_id):
            handle = self.temporal.get_workflow_handle(task_id)
            await handle.execute_update("help", click, rpc_timeout=self._update_timeout)

    async def finish(
        self,
        task_id: str,
        status: TaskStatus = TaskStatus.SUCCEEDED,
        summary: str = "",
        *,
        requested_by: str = "",
        children_grace_seconds: float = 10.0,
    ) -> None:
        """Ask the task to end; sub-tasks still running after the grace period are cancelled."""
        request = FinishRequest(
            status=status,
            summary=summary,
            requested_by=requested_by,
            children_grace_seconds=children_grace_seconds,
        )
        request = self._clean(request)
        async with mapped(task_id):
            handle = self.temporal.get_workflow_handle(task_id)
            await handle.execute_update("finish", request, rpc_timeout=self._update_timeout)

    async def cancel(self, task_id: str) -> None:
        """Cancel the task: it runs its ``cancelled`` transition and ``task.complete``, and
        cancels its running sub-tasks; :meth:`outcome` then says ``cancelled``."""
        async with mapped(task_id):
            await self.temporal.get_workflow_handle(task_id).cancel()

    async def outcome(self, task_id: str) -> TaskOutcome:
        """Wait for the task to end and return how it ended (bound it with ``asyncio.timeout``).

        Raises:
            TaskRejected: the task failed (gave up); the reason is Temporal's failure message.
        """
        async with mapped(task_id):
            handle = self.temporal.get_workflow_handle(task_id, result_type=TaskOutcome)
            outcome: TaskOutcome = await handle.result()
        return outcome

    @property
    def _update_timeout(self) -> timedelta | None:
        seconds = self.settings.update_timeout_seconds
        return timedelta(seconds=seconds) if seconds else None

    def _clean(self, value: T) -> T:
        """``value`` with secrets masked: the one step before anything reaches Temporal."""
        return self._redactor.redact(value)

    def _policy(self) -> ActivityPolicy:
        """The activity policy new workflows get (workflow code cannot read settings)."""
        return ActivityPolicy(
            start_to_close_seconds=self.settings.activity_start_to_close_seconds,
            heartbeat_seconds=self.settings.activity_heartbeat_seconds,
            max_attempts=self.settings.retry_max_attempts,
            max_worker_losses=self.settings.retry_max_worker_losses,
        )
