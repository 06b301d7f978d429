"""The effects of slash commands, as the task workflow applies them (workflows act).

Workflow code (sandboxed, deterministic). A command's body only *says* what should
change (:class:`~harness.domain.CommandEffect`); :class:`TaskEffects`, mixed into
:class:`~harness.temporal.workflows.TaskWorkflow`, changes the task's state: its model,
effort, people, skills, sub-tasks, the turn running now, its settings, its end.
"""

from __future__ import annotations

from typing import Any, Final, TypeVar

from temporalio import workflow
from temporalio.exceptions import ApplicationError

with workflow.unsafe.imports_passed_through():
    from harness.agent.budget import LIMITS, with_limit
    from harness.domain import (
        APPROVAL_DEFAULTS,
        MID_TURN_MODES,
        CommandEffect,
        Effort,
        MidTurn,
        Participant,
        Role,
        TaskStatus,
    )
    from harness.domain.task import EFFORTS
    from harness.hooks.contexts import CommandInvokedContext
    from harness.temporal.conversation import Conversation
    from harness.temporal.models import FinishRequest
    from harness.temporal.subtasks import Children

T = TypeVar("T", bound=str)

IDLE: Final = "idle"
"""The ``value`` of a ``stop_turn`` effect as applied when no turn was running."""

ENDINGS: Final = {"finish": TaskStatus.SUCCEEDED, "cancel": TaskStatus.CANCELLED}


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
        """Apply one effect; returns it as applied (a sub-task with its final id)."""
        kind = effect.kind
        if kind == "set_model":
            self._model = effect.value
        elif kind == "set_effort":
            if effect.value not in EFFORTS:
                raise ApplicationError(f"effort must be one of {', '.join(EFFORTS)}")
            self._effort = effect.value  # narrowed to Effort by the check above
        elif kind == "grant_role":
            role = Role(effect.value)
            self._participants[effect.user_id] = Participant(user_id=effect.user_id, role=role)
        elif kind in ("load_skill", "unload_skill"):
            await self._conversation.skill(effect.value, load=kind == "load_skill")
        elif kind == "stop_turn":
            if not self._conversation.stop_turn(effect.user_id or ctx.sender):
                return effect.model_copy(update={"value": IDLE})
        elif kind in ENDINGS:
            self._end(effect, ctx)
        elif kind == "set_mid_turn":
            self._mid_turn = _one_of(effect.value, MID_TURN_MODES, "mid-turn mode")
        elif kind == "set_approvals":
            state = self._conversation.state
            state.approvals = _one_of(effect.value, APPROVAL_DEFAULTS, "approval default")
        elif kind == "set_budget":
            state = self._conversation.state
            limit = _one_of(effect.value, LIMITS, "budget limit")
            state.budget = with_limit(state.budget, limit, effect.amount)
        elif effect.subtask is not None:
            final = await self._children.spawn(
                effect.subtask,
                self._common(ctx.correlation_id),
                model=self._model,
                participants=tuple(self._participants.values()),
            )
            return effect.model_copy(update={"subtask": final})
        return effect

    def _end(self, effect: CommandEffect, ctx: CommandInvokedContext) -> None:
        """``/task finish`` or ``/task cancel``: stop the turn running now, then end the task."""
        who = effect.user_id or ctx.sender
        status = ENDINGS[effect.kind]
        said = "finished" if status is TaskStatus.SUCCEEDED else "cancelled"
        summary = effect.value or f"{said} by <@{who}>"
        self._conversation.stop_turn(who, f"the task was {said}")
        self._finish = FinishRequest(status=status, summary=summary, requested_by=who)


def _one_of(value: str, allowed: tuple[T, ...], what: str) -> T:
    for option in allowed:
        if value == option:
            return option
    raise ApplicationError(
        f"{what} must be one of {', '.join(allowed)}, not {value!r}", non_retryable=True
    )
