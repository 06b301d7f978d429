"""The effects of slash commands, as the task workflow applies them (workflows act).

Workflow code (sandboxed, deterministic). A command's body only *says* what should
change (one of :data:`~harness.domain.EFFECTS`, typed); :class:`TaskEffects`, mixed into
:class:`~harness.temporal.workflow.task.TaskWorkflow`, changes the task's state: its model,
effort, people, skills, sub-tasks, the turn running now, its settings, its end.
"""

from __future__ import annotations

from typing import Any

from temporalio import workflow

with workflow.unsafe.imports_passed_through():
    from harness.agent.budget import with_limit
    from harness.domain import (
        CancelTask,
        CommandEffect,
        Effort,
        FinishTask,
        GrantRole,
        LoadSkill,
        MidTurn,
        Participant,
        Role,
        SetApprovals,
        SetBudget,
        SetEffort,
        SetMidTurn,
        SetModel,
        SpawnSubtask,
        StopTurn,
        TaskStatus,
        UnloadSkill,
    )
    from harness.hooks.contexts import CommandInvokedContext
    from harness.temporal.models import FinishRequest
    from harness.temporal.workflow.conversation import Conversation
    from harness.temporal.workflow.subtasks import Children


class TaskEffects:
    """Applies command effects to the task workflow's state (a mixin of TaskWorkflow)."""

    _model: str
    _effort: Effort
    _mid_turn: MidTurn
    _participants: dict[str, Participant]
    _finish: FinishRequest | None
    _conversation: Conversation
    _children: Children

    def _common(self, correlation_id: str = "") -> dict[str, Any]:  # pragma: no cover
        raise NotImplementedError

    async def _apply(self, effect: CommandEffect, ctx: CommandInvokedContext) -> CommandEffect:
        """Apply one effect; returns it as applied (a sub-task with its final id).

        Each effect was validated where it was made (its types say what it may hold), so
        nothing is checked again here: applying is only assigning, or asking the activity
        that does it.
        """
        state = self._conversation.state
        match effect:
            case SetModel():
                self._model = effect.model
            case SetEffort():
                self._effort = effect.effort
            case GrantRole():
                role = Role(effect.role)
                self._participants[effect.user_id] = Participant(user_id=effect.user_id, role=role)
            case LoadSkill() | UnloadSkill():
                await self._conversation.skill(effect.skill, load=isinstance(effect, LoadSkill))
            case StopTurn() if effect.subtask_id:  # /task stop sub-N (issue 26)
                by = effect.user_id or ctx.sender
                if not await self._children.stop_turn(effect.subtask_id, by):
                    return effect.model_copy(update={"idle": True})
            case StopTurn():
                if not self._conversation.stop_turn(effect.user_id or ctx.sender):
                    return effect.model_copy(update={"idle": True})
            case FinishTask() | CancelTask():
                self._end(effect, ctx)
            case SetMidTurn():
                self._mid_turn = effect.mid_turn
            case SetApprovals():
                state.approvals = effect.approvals
            case SetBudget():
                state.budget = with_limit(state.budget, effect.limit, effect.amount)
            case SpawnSubtask():
                final = await self._children.spawn(
                    effect.subtask,
                    self._common(ctx.correlation_id),
                    model=self._model,
                    participants=tuple(self._participants.values()),
                    thread=self._conversation.latest_thread,
                )
                return effect.model_copy(update={"subtask": final})
        return effect

    def _end(self, effect: FinishTask | CancelTask, ctx: CommandInvokedContext) -> None:
        """``/task finish`` or ``/task cancel``: stop the turn running now, then end the task."""
        who = effect.user_id or ctx.sender
        finished = isinstance(effect, FinishTask)
        status = TaskStatus.SUCCEEDED if finished else TaskStatus.CANCELLED
        said = "finished" if finished else "cancelled"
        summary = effect.summary or f"{said} by <@{who}>"
        self._conversation.stop_turn(who, f"the task was {said}")
        self._finish = FinishRequest(status=status, summary=summary, requested_by=who)
