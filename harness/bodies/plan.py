"""Default bodies of plans: plan.created, step.started, step.finished, subtask.spawned.

``plan.created`` is one model call (prompt and lenient parser in
:mod:`harness.agent.prompts`); the step bodies pass the plan through and summarise a
step's output; ``agent.invoked``, in the same context family, has its own module
(:mod:`harness.bodies.agent`) because it runs a whole nested loop.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from typing import Final, final

from harness.agent.prompts import PLAN_PROMPT, parse_plan
from harness.domain import Message, StepOutcome
from harness.hooks.contexts import (
    PlanCreatedContext,
    StepFinishedContext,
    StepStartedContext,
    SubtaskSpawnedContext,
)
from harness.models import ModelRegistry, ModelRequest

SUMMARY_CHARS: Final = 300


@final
class PlanBodies:
    """Bodies of plans and their steps.

    Args:
        models: for the planning call.
        agents: names and one-line descriptions of named agents, for the planner.
    """

    def __init__(self, *, models: ModelRegistry, agents: Mapping[str, str]) -> None:
        self.models = models
        self.agents = dict(agents)

    async def plan_created(self, ctx: PlanCreatedContext) -> PlanCreatedContext:
        """Ask the task's model (``entities["model"]``) for a plan of steps."""
        prompt = PLAN_PROMPT
        if self.agents:
            named = "; ".join(f"{n}: {d}" for n, d in sorted(self.agents.items()))
            prompt += f" Named agents: {named}."
        response = await self.models.complete(
            ModelRequest(
                model=ctx.entities.get("model", ""),
                messages=(
                    Message(role="system", content=prompt),
                    Message(role="user", content=ctx.goal),
                ),
                purpose="plan",
            )
        )
        return ctx.model_copy(update={"result": parse_plan(response.text, ctx.goal)})

    async def step_started(self, ctx: StepStartedContext) -> StepStartedContext:
        """Run the step as planned."""
        return ctx.model_copy(update={"result": ctx.step})

    async def step_finished(self, ctx: StepFinishedContext) -> StepFinishedContext:
        """Done with its output as the summary; an empty output counts as failed."""
        text = " ".join(ctx.output.split())
        if len(text) > SUMMARY_CHARS:
            text = text[: SUMMARY_CHARS - 1] + "…"
        status = "done" if text else "failed"
        outcome = StepOutcome(status=status, summary=text or "no output")
        return ctx.model_copy(update={"result": outcome})

    async def subtask_spawned(self, ctx: SubtaskSpawnedContext) -> SubtaskSpawnedContext:
        """Give the sub-task an id if it has none, stable across retries of this spawn."""
        spec = ctx.spec
        if not spec.task_id:
            parent = ctx.task.task_id if ctx.task else "task"
            digest = hashlib.sha256(ctx.idempotency_key.encode()).hexdigest()[:12]
            spec = spec.model_copy(update={"task_id": f"{parent}/sub-{digest}"})
        return ctx.model_copy(update={"result": spec})
