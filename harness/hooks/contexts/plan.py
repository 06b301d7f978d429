"""Contexts of structured work: plans and their steps, sub-tasks, named agents."""

from __future__ import annotations

from typing import ClassVar, Literal

from harness.hooks.contexts.base import Frozen, HookContext
from harness.hooks.contexts.task import Effort


class PlanStep(Frozen):
    """One step of a plan."""

    title: str
    detail: str = ""
    agent: str = ""


class Plan(Frozen):
    """The steps the model wrote for a piece of work."""

    steps: tuple[PlanStep, ...]


class StepOutcome(Frozen):
    """How a step ended."""

    status: Literal["done", "failed", "skipped"]
    summary: str = ""


class SubtaskSpec(Frozen):
    """A child task to spawn; ``task_id`` is filled in by the body."""

    title: str
    prompt: str = ""
    requested_by: str
    model: str = ""
    effort: Effort = "medium"
    task_id: str = ""


class AgentOutput(Frozen):
    """What a named agent produced."""

    text: str
    model: str = ""


class PlanCreatedContext(HookContext):
    """The model writes a plan for a goal."""

    operation: ClassVar[str] = "plan.created"
    goal: str
    result: Plan | None = None


class StepStartedContext(HookContext):
    """A plan step is about to run; the body returns the step as it will run."""

    operation: ClassVar[str] = "step.started"
    index: int
    step: PlanStep
    result: PlanStep | None = None


class StepFinishedContext(HookContext):
    """A plan step ran; the body returns its outcome."""

    operation: ClassVar[str] = "step.finished"
    index: int
    step: PlanStep
    output: str = ""
    result: StepOutcome | None = None


class SubtaskSpawnedContext(HookContext):
    """A sub-task is about to be spawned; the body returns the spec the workflow starts."""

    operation: ClassVar[str] = "subtask.spawned"
    spec: SubtaskSpec
    result: SubtaskSpec | None = None


class AgentInvokedContext(HookContext):
    """A named agent (its own instructions, model and tools) runs for a step or sub-task."""

    operation: ClassVar[str] = "agent.invoked"
    agent: str
    input: str
    model: str = ""
    result: AgentOutput | None = None
