"""A task and its sub-tasks, as signals between them: reports up, answers and stops down.

Workflow code (sandboxed, deterministic); a mixin of
:class:`~harness.temporal.workflow.task.TaskWorkflow` (issue 26). A sub-task posts in a
thread of its parent's (its latest turn's), where the bot knows only the parent, so the
parent is the sub-task's door: a running sub-task reports what it used and what it asks
(:mod:`.parent`), the parent counts the usage in its own budget (its limit stops the
sub-task's turn), lists the questions as its own, and forwards the click or thread reply
that answers one. The bookkeeping is :class:`~harness.temporal.workflow.subtasks.Children`'s.

A sub-task answers one request, its prompt: nothing in the thread reaches it but answers
to its questions, so once the turn answering it is over and nothing is open it ends
(:meth:`TaskFamily._own_end`, ``subtask-ends-v1``): succeeded when it answered, cancelled
when its turn was stopped (``/task stop sub-N``, its Stop button, its parent's budget),
failed when the turn failed. It is not continued after: a new ``/sub-task`` starts another.
"""

from __future__ import annotations

import asyncio

from temporalio import workflow

with workflow.unsafe.imports_passed_through():
    from harness import replies
    from harness.agent.budget import added, exceeded
    from harness.agent.loop_steps import HelpAnswer
    from harness.domain import ChannelMessage, PendingQuestion, TaskRef, TaskStatus
    from harness.hooks import HookContext
    from harness.hooks.contexts import ChannelSentContext
    from harness.temporal import ANSWER_SIGNAL, STOP_SIGNAL, STOP_TURN_SIGNAL, SUBTASK_SIGNAL
    from harness.temporal.models import (
        ANSWER_CHARS,
        FinishRequest,
        HelpClick,
        SubtaskReport,
        TurnStop,
    )
    from harness.temporal.workflow.conversation import Conversation
    from harness.temporal.workflow.parent import ParentLink
    from harness.temporal.workflow.subtasks import Children


class TaskFamily:
    """Signals between a task, its parent and its sub-tasks (a mixin of TaskWorkflow)."""

    _ref: TaskRef
    _linked: bool
    _ends: bool
    _conversation: Conversation
    _children: Children
    _link: ParentLink

    async def _before_op(self, ctx: HookContext) -> None:
        """Before each loop operation: end a stopped turn whose cancellation the SDK could not
        deliver (the operation it cancelled had completed in the same activation), then
        report to the parent, if any."""
        if (
            self._linked
            and not isinstance(ctx, ChannelSentContext)
            and self._conversation.cut_off()
        ):
            raise asyncio.CancelledError
        await self._link.report()

    def _report(self) -> SubtaskReport:
        """What this task, as a sub-task, tells its parent now."""
        people = self._conversation.people
        question = people.open
        turn = self._conversation.turn
        return SubtaskReport(
            task_id=self._ref.task_id,
            usage=self._conversation.state.budget,
            pending=self._pending(),
            reply_to=question.request_id if question and not question.options else "",
            turn=turn.progress if turn is not None and self._ends else None,
        )

    def _own_end(self) -> FinishRequest | None:
        """How this sub-task ends by itself now, if it does: its request's turn is over (how it
        ended says how) and nothing is open, no question, no message queued."""
        conversation = self._conversation
        ended = conversation.ended
        if not self._ends or ended is None or conversation.turn is not None:
            return None
        if not conversation.idle:
            return None
        state, said = ended
        status = {"answered": TaskStatus.SUCCEEDED, "stopped": TaskStatus.CANCELLED}
        line = said.strip().splitlines()[0] if said.strip() else ""
        return FinishRequest(status=status.get(state, TaskStatus.FAILED), summary=line[:200])

    def _answer(self) -> str:
        """This sub-task's answer to its request, for its parent (``""``: it gave none)."""
        ended = self._conversation.ended
        if not self._ends or ended is None or ended[0] != "answered":
            return ""
        return ended[1][:ANSWER_CHARS]

    def _pending(self) -> tuple[PendingQuestion, ...]:
        """This task's open questions, then its running sub-tasks'."""
        return self._conversation.people.pending() + self._children.pending()

    def _answers_child(self, message: ChannelMessage) -> HelpClick | None:
        """The answer a reply in the thread gives a sub-task's question without buttons; never
        when this task's own such question is open (it takes the reply)."""
        own = self._conversation.people.open
        if own is not None and not own.options:
            return None
        return self._children.reply_for(message)

    def _waiting_for(self, request_id: str) -> bool:
        """Whether ``request_id`` is an open question of this task or of a running sub-task."""
        return self._conversation.waiting_for(request_id) or bool(self._children.asking(request_id))

    async def _answered(self, click: HelpClick) -> None:
        """A click (or a reply) on a question: this task's, or a sub-task's, forwarded."""
        if self._conversation.waiting_for(click.request_id):
            answer = HelpAnswer(decided_by=click.user, choice=click.choice)
            self._conversation.answer(click.request_id, answer)
        else:
            await self._children.forward(click)

    @workflow.signal(name=SUBTASK_SIGNAL)
    async def subtask_report(self, report: SubtaskReport) -> None:
        """A running sub-task's report: its usage counts here at once, and a limit of this
        task gone past stops its turn."""
        used = self._children.took(report)
        if used is None:
            return
        state = self._conversation.state
        state.budget = added(state.budget, used)
        if exceeded(state.budget) is not None:
            await self._children.stop(report.task_id, replies.PARENT_BUDGET_SPENT)

    @workflow.signal(name=ANSWER_SIGNAL)
    async def forwarded_answer(self, click: HelpClick) -> None:
        """The parent forwarded a click or reply answering a question of this task (or of a
        sub-task of its own); one no longer open is dropped (the parent checked it was)."""
        await self._answered(click)

    @workflow.signal(name=STOP_TURN_SIGNAL)
    def turn_stop(self, stop: TurnStop) -> None:
        """The parent stops this sub-task's turn in a person's name (``/task stop sub-N``)."""
        self._conversation.stop_turn(stop.by, stop.reason)

    @workflow.signal(name=STOP_SIGNAL)
    def parent_stop(self, reason: str) -> None:
        """The parent stops this sub-task's turn (its budget, which counts this one's, is spent)."""
        self._conversation.stop_turn("", reason)
