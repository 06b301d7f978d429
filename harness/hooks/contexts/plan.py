"""Contexts of structured work: plans and their steps, sub-tasks, named agents."""

from __future__ import annotations

from harness.domain import (
    AgentOutput,
    ApprovalDefault,
    Plan,
    PlanStep,
    StepOutcome,
    SubtaskSpec,
)
from harness.hooks.contexts.base import HookContext


class PlanCreatedContext(
    HookContext, operation="plan.created", calls_model=True, progress=("post",)
):
    """The model writes a plan for a goal."""

    goal: str
    result: Plan | None = None


class StepStartedContext(HookContext, operation="step.started", local=True, progress=("post",)):
    """A plan step is about to run; the body returns the step as it will run."""

    index: int
    step: PlanStep
    result: PlanStep | None = None


class StepFinishedContext(HookContext, operation="step.finished", local=True, progress=("post",)):
    """A plan step ran; the body returns its outcome."""

    index: int
    step: PlanStep
    output: str = ""
    result: StepOutcome | None = None


class SubtaskSpawnedContext(HookContext, operation="subtask.spawned", local=True):
    """A sub-task is about to be spawned; the body returns the spec the workflow starts."""

    spec: SubtaskSpec
    result: SubtaskSpec | None = None


class AgentInvokedContext(HookContext, operation="agent.invoked"):
    """A named agent (its own instructions, model and tools) runs for a step or sub-task."""

    agent: str
    input: str
    model: str = ""
    approvals: ApprovalDefault | None = None
    """The task's effective approval default, which the agent's own tool calls follow."""
    approved_tools: tuple[str, ...] = ()
    """The task's standing approvals ("don't ask again"), which hold in the agent too."""
    result: AgentOutput | None = None
