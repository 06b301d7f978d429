"""TaskWorkflow: one durable workflow per task; it holds the task's state and applies decisions.

Workflow code never does I/O and never runs hooks: every hook-wrapped operation runs
as an activity through :class:`harness.temporal.workflow.retries.OperationRunner`, and the
workflow applies what comes back (DESIGN.md, "Where decisions and actions happen").
Roles are derived here from the task's own participants, never taken from a caller.
"""

from __future__ import annotations

import asyncio

from temporalio import workflow
from temporalio.exceptions import ApplicationError, is_cancelled_exception

with workflow.unsafe.imports_passed_through():
    from harness import replies
    from harness.agent.budget import added
    from harness.domain import (
        BudgetUsage,
        ChannelMessage,
        CommandResult,
        MidTurn,
        Participant,
        Role,
        StopTurn,
        TaskSnapshot,
        TaskStatus,
    )
    from harness.domain.outcome import Asked, Done, Refused
    from harness.domain.task import FINAL_STATUSES
    from harness.hooks.contexts import (
        ChannelReceivedContext,
        CommandInvokedContext,
        RequestReceivedContext,
        TaskCreatedContext,
    )
    from harness.temporal import (
        ALIVE_PATCH,
        REFUSED_ERROR_TYPE,
        SUBTASK_ENDS_PATCH,
        SUBTASKS_PATCH,
        TASK_WORKFLOW,
    )
    from harness.temporal.models import (
        Delivery,
        FinishRequest,
        HelpClick,
        TaskInput,
        TaskOutcome,
    )
    from harness.temporal.workflow import patches
    from harness.temporal.workflow.command_step import command_result
    from harness.temporal.workflow.conversation import Conversation
    from harness.temporal.workflow.effects import TaskEffects
    from harness.temporal.workflow.endings import TaskEndings
    from harness.temporal.workflow.failures import GaveUpError
    from harness.temporal.workflow.family import TaskFamily
    from harness.temporal.workflow.parent import ParentLink
    from harness.temporal.workflow.request import unrouted
    from harness.temporal.workflow.retries import OperationRunner
    from harness.temporal.workflow.subtasks import Children, with_cancelled
    from harness.temporal.workflow.task_state import TaskState
    from harness.temporal.workflow.transcript import Transcript


@workflow.defn(name=TASK_WORKFLOW)
class TaskWorkflow(TaskState, TaskEffects, TaskEndings, TaskFamily):
    """A task: participants with roles, model, effort, status, transcript and sub-tasks."""

    @workflow.init
    def __init__(self, task: TaskInput) -> None:
        self._input = task
        self._ref = task.ref
        self._title = task.spec.title
        self._model = task.spec.model
        self._effort = task.spec.effort
        self._mid_turn = task.spec.mid_turn
        patches.settle()  # before anything that may run a step (patches.py says why)
        self._alive = workflow.patched(ALIVE_PATCH)
        self._linked = workflow.patched(SUBTASKS_PATCH)
        self._ends = bool(task.ref.parent_id) and workflow.patched(SUBTASK_ENDS_PATCH)
        self._status = TaskStatus.CREATED
        self._participants = {p.user_id: p for p in task.participants}
        self._participants.setdefault(
            task.spec.owner, Participant(user_id=task.spec.owner, role=Role.OWNER)
        )
        self._finish: FinishRequest | None = None
        self._cancelling = False
        self._started = False
        self._ops = OperationRunner(task.policy)
        self._children = Children(task, self._ops, self._used)
        self._transcript_lock = asyncio.Lock()
        self._link = ParentLink(task.ref, self._linked, self._report)
        self._conversation = Conversation(self, self._ops, task.agent, before=self._before_op)
        self._conversation.one_request = self._ends
        self._conversation.latest_thread = task.latest_thread
        self._transcript = Transcript(self._key, self._ops, self._common)

    @workflow.run
    async def run(self, task: TaskInput) -> TaskOutcome:
        """Create the task, run it until asked to finish, end its sub-tasks, complete it.

        Three ways out, each through ``task.state_changed`` and ``task.complete``:
        finished on request, cancelled (Temporal cancellation; the outcome says
        ``cancelled``), or failed when an operation gave up (then the workflow fails
        with the ``TaskGaveUp`` error after reporting it).
        """
        try:
            if task.continued:  # continue-as-new: the task exists, it is running
                self._status = TaskStatus.RUNNING
            else:
                created = await self._ops.run(TaskCreatedContext(**self._common(), spec=task.spec))
                self._apply_spec(created.result or task.spec)
            await self._transcript.load(task.transcript, continued=task.continued)
            if not task.continued:
                await self._transition(TaskStatus.RUNNING, "started")
                if task.spec.parent_id and task.spec.prompt:  # a sub-task works on its prompt
                    self._conversation.receive(
                        ChannelMessage(
                            channel=self._ref.channel,
                            thread=self._ref.thread,
                            user=task.spec.owner,
                            text=task.spec.prompt,
                        )
                    )
            self._started = True
            await self._conversation.run_until(
                lambda: self._finish is not None or self._own_end() is not None,
                self._children.running,
                self._continued,
                lambda: self._children.end(0),
            )
            own = None if self._finish else self._own_end()
            finish = self._finish or own or FinishRequest()
            await workflow.wait_condition(workflow.all_handlers_finished)
            left = await self._children.end(finish.children_grace_seconds)
            status, summary = finish.status, with_cancelled(finish.summary, left)
            answer = self._answer()
        except ApplicationError as error:
            await self._report_failure(error)
            raise
        except BaseException as error:
            if not is_cancelled_exception(error):
                raise
            self._cancelling = True
            self._conversation.stop(closing=self._linked)
            if self._linked:  # its turn posts how it ended: no progress message left live
                await self._turn_ended()
            left = await self._children.end(0)
            status, summary = TaskStatus.CANCELLED, with_cancelled("cancelled", left)
            own, answer = None, ""
        return await self._end_as(status, summary, answer=answer, own=own is not None)

    @workflow.query(name="snapshot")
    def snapshot(self) -> TaskSnapshot:
        """The task as it is now."""
        state = self._conversation.state
        return TaskSnapshot(
            ref=self._ref,
            title=self._title,
            status=self._status,
            model=self._model,
            effort=self._effort,
            participants=tuple(self._participants.values()),
            subtasks=self._children.summaries(),
            **{**self._conversation.view(), "pending": self._pending()},
            mid_turn=self._mid_turn,
            approvals=state.approvals,
            approved_tools=tuple(state.approved_tools),
            budget=state.budget,
        )

    @workflow.query(name="transcript")
    def transcript(self) -> tuple[ChannelMessage, ...]:
        """The task's last messages, oldest first (the store holds them all)."""
        return self._transcript.recent

    @workflow.update(name="message")
    async def message(self, message: ChannelMessage) -> int:
        """Append a message to the transcript and persist it; returns its position (from 1).

        A message whose ``ts`` is already in the transcript is not added again.
        """
        self._conversation.limits.took_update()
        return await self._deliver(message)

    @message.validator
    def _check_message(self, message: ChannelMessage) -> None:
        self._check_open()
        if not message.text.strip():
            raise ValueError(replies.EMPTY_MESSAGE)

    @workflow.update(name="request")
    async def request(self, request: RequestReceivedContext) -> Delivery:
        """Route a plain message with ``request.received`` here and take it if it is ours: no
        request workflow per message (issue 13). A retry (same ``ts``) is not routed again; a
        route to another task comes back undelivered (position 0), for the client to route."""
        self._conversation.limits.took_update()
        await workflow.wait_condition(lambda: self._started)
        ref = self._ref
        if seen := self._transcript.position_of(request.ts):
            return Delivery(task_id=ref.task_id, started=False, position=seen)
        route = (await self._ops.run(request)).result
        if route is None:
            raise unrouted()
        if route.task_id != ref.task_id:
            return Delivery(task_id=route.task_id, started=False, position=0)
        message = ChannelMessage(
            channel=request.channel,
            thread=request.thread,
            user=request.sender,
            text=route.text,
            ts=request.ts,
        )
        return Delivery(task_id=ref.task_id, started=False, position=await self._deliver(message))

    @request.validator
    def _check_request(self, request: RequestReceivedContext) -> None:
        self._check_open()

    async def _deliver(self, message: ChannelMessage) -> int:
        await workflow.wait_condition(lambda: self._started)
        async with self._transcript_lock:
            if seen := self._transcript.position_of(message.ts):
                return seen
            outcome = await self._ops.perform(
                ChannelReceivedContext(**self._common(message.ts), message=message)
            )
            if isinstance(outcome, Refused | Asked) and outcome.on_purpose:
                # Refused on purpose (a sender with no role): the update fails as a refusal,
                # nothing reaches the transcript or the agent, and the task goes on.
                raise ApplicationError(outcome.reason, type=REFUSED_ERROR_TYPE, non_retryable=True)
            if not isinstance(outcome, Done):
                raise GaveUpError(ChannelReceivedContext.operation, outcome)
            received = outcome.context
            message = received.result or message
            position, new = await self._transcript.add(message, message.ts)
            running = self._conversation.turn is not None
            child = self._answers_child(message) if new else None
            mode = self._conversation.receive(message) if new and child is None else None
        if child is not None:  # a sub-task's question without buttons: its answer (issue 26)
            await self._answered(child)
        if running and mode is not None and self._alive:
            await self._acknowledge(message, mode)
        return position

    async def _acknowledge(self, message: ChannelMessage, mode: MidTurn) -> None:
        """Tell the sender what became of a message that arrived mid-turn (only they see it)."""
        await self._conversation.post(
            ChannelMessage(
                channel=message.channel or self._ref.channel,
                thread=message.thread or self._ref.thread,
                user=message.user,
                text=replies.mid_turn(mode, self._conversation.queued),
            )
        )

    @workflow.update(name="command")
    async def command(self, ctx: CommandInvokedContext) -> CommandResult:
        """Run a slash command's hooks in an activity, apply its effects, return the result.

        The result is the reply, the effects as applied (a spawned sub-task carries
        its id) and whether the reply is for the channel or only the sender.
        """
        self._conversation.limits.took_update()
        await workflow.wait_condition(lambda: self._started)
        update = workflow.current_update_info()
        ctx = ctx.model_copy(
            update={
                **self._common(ctx.correlation_id or (update.id if update else "")),
                "role": self.role_of(ctx.sender),
                "snapshot": self.snapshot(),
            }
        )
        typed = replies.spelled(ctx.command, ctx.invocation)
        result = command_result(ctx, await self._ops.perform(ctx))
        try:
            applied = [await self._apply(effect, ctx) for effect in result.effects]
        except GaveUpError as error:
            return CommandResult(reply=replies.command(typed, error.outcome))
        except ApplicationError as error:
            return CommandResult(reply=replies.failed(typed, error.message))
        spawned = [e.subtask.task_id for e in applied if e.kind == "spawn_subtask"]
        reply = result.reply + "".join(replies.spawned(task_id) for task_id in spawned)
        public = result.public
        if idle := [e for e in applied if isinstance(e, StopTurn) and e.idle]:
            # Nothing was stopped by this one (a second stop, the turn just ended, a sub-task
            # with no turn running): the sender's answer alone, as any command changing nothing.
            of = idle[0].subtask_id
            running = self._conversation.turn is not None
            reply = replies.nothing_to_stop(of) if of else replies.not_stopped(running)
            public = False
        return result.model_copy(
            update={"reply": reply, "effects": tuple(applied), "public": public}
        )

    @command.validator
    def _check_command(self, ctx: CommandInvokedContext) -> None:
        self._check_open()
        if ctx.task is not None and ctx.task.task_id != self._ref.task_id:
            raise ValueError(replies.OTHER_TASK)  # said in Slack: no ids

    @workflow.update(name="help")
    async def help(self, click: HelpClick) -> None:
        """A click on a help request's button; ``help.decided`` judges it in the loop (of the
        sub-task that asked, when one did)."""
        self._conversation.limits.took_update()
        await self._answered(click)

    @help.validator
    def _check_help(self, click: HelpClick) -> None:
        self._check_open()
        if not self._waiting_for(click.request_id):
            note = self._conversation.people.closed(click.request_id)  # no id in the thread
            raise ValueError(replies.late_click(note) if note else replies.QUESTION_CLOSED)

    @workflow.update(name="finish")
    def finish(self, request: FinishRequest) -> None:
        """Ask the task to end with ``request.status`` once its sub-tasks ended."""
        self._conversation.limits.took_update()
        self._finish = request

    @finish.validator
    def _check_finish(self, request: FinishRequest) -> None:
        self._check_open()
        if request.status not in FINAL_STATUSES:
            raise ValueError(replies.not_final(request.status))

    async def transition(self, to: TaskStatus, reason: str) -> None:
        """Change status through ``task.state_changed`` (the conversation waits for people)."""
        await self._transition(to, reason)

    def _continued(self) -> TaskInput:
        """This task's input for its next run (continue-as-new), with everything it learnt."""
        spec = self._input.spec.model_copy(
            update={
                "title": self._title,
                "model": self._model,
                "effort": self._effort,
                "mid_turn": self._mid_turn,
            }
        )
        return self._input.model_copy(
            update={
                "spec": spec,
                "participants": tuple(self._participants.values()),
                "agent": self._conversation.state,
                "continued": True,
                "transcript": self._transcript.ref(),
                "latest_thread": self._conversation.latest_thread,
            }
        )

    async def _turn_ended(self) -> None:
        """Wait (a bounded time) for a cancelled turn to post how it ended."""
        try:
            await workflow.wait_condition(
                lambda: self._conversation.turn is None,
                timeout=self._input.policy.start_to_close_seconds,
            )
        except TimeoutError:
            workflow.logger.warning("the turn did not end after its task was cancelled")

    def _used(self, usage: BudgetUsage) -> None:
        """A sub-task ended: what it used counts against this task's budget."""
        state = self._conversation.state
        state.budget = added(state.budget, usage)
