"""Structured work as values: plans and their steps, sub-task specs, a named agent's output.

Plain frozen values; the hook contexts of plans and sub-tasks live in
:mod:`harness.hooks.contexts.plan`.
"""

from __future__ import annotations

from typing import Literal

from harness.domain.frozen import Frozen
from harness.domain.llm import Usage
from harness.domain.progress import BudgetUsage
from harness.domain.task import DEFAULT_EFFORT, Effort


class PlanStep(Frozen):
    """One step of a plan."""

    title: str
    detail: str = ""
    agent: str = ""


class Plan(Frozen):
    """The steps the model wrote for a piece of work, and the tokens that took (for budgets)."""

    steps: tuple[PlanStep, ...]
    usage: Usage = Usage()


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
    effort: Effort = DEFAULT_EFFORT
    task_id: str = ""


class AgentOutput(Frozen):
    """What a named agent produced, and what its own loop used (counted in the task's budget)."""

    text: str
    model: str = ""
    usage: BudgetUsage = BudgetUsage()
