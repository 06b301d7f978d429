"""Default bodies of plans: plan.created, step.started, step.finished, subtask.spawned,
agent.invoked.

``plan.created`` is one model call (prompt and lenient parser in
:mod:`harness.agent.prompts`); the step bodies pass the plan through and summarise a
step's output. ``agent.invoked`` runs the named agent's own
:class:`~harness.agent.loop.AgentLoop` (its instructions, model and tools) through the
same :class:`~harness.hooks.HookManager`, so executors still see each of its model and
tool calls. That nested loop runs inside the one ``agent.invoked`` activity (it
retries as a unit) and cannot ask people: ``ask_human`` and tools needing approval are
not offered to it. What it used (tokens, tool calls, cost) is returned with its output
and counted in the task's budget by the calling loop.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from typing import Final, Self, final

from harness import replies
from harness.agent.loop import AgentLoop
from harness.agent.loop_steps import HelpAnswer
from harness.agent.operations import InProcess
from harness.agent.profiles import AgentProfile
from harness.agent.prompts import PLAN_PROMPT, parse_plan
from harness.agent.state import AgentState, LoopIdentity, ToolCatalogue
from harness.bodies.marker import Bodies, Wiring, body
from harness.bodies.tool import catalogue_of
from harness.domain import (
    DEFAULT_EFFORT,
    AgentOutput,
    HelpDecision,
    HelpRequest,
    Message,
    ModelPrice,
    StepOutcome,
    TaskRef,
)
from harness.hooks import REQUESTED_BY, HookAbort, HookManager
from harness.hooks.contexts import (
    AgentInvokedContext,
    PlanCreatedContext,
    StepFinishedContext,
    StepStartedContext,
    SubtaskSpawnedContext,
)
from harness.models import ModelRegistry, ModelRequest

SUMMARY_CHARS: Final = 300


@final
class PlanBodies(Bodies):
    """Bodies of plans and their steps.

    Args:
        models: for the planning call.
        agents: names and one-line descriptions of named agents, for the planner.
    """

    def __init__(self, *, models: ModelRegistry, agents: Mapping[str, str]) -> None:
        self.models = models
        self.agents = dict(agents)

    @classmethod
    def wired(cls, wiring: Wiring) -> Self:
        """Built from the worker's models and named agents (their one-line descriptions)."""
        agents = wiring.deps.agents
        return cls(
            models=wiring.deps.models,
            agents={n: p.instructions.split("\n", 1)[0][:80] for n, p in agents.items()},
        )

    @body(PlanCreatedContext)
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
        plan = parse_plan(response.text, ctx.goal).model_copy(update={"usage": response.usage})
        return ctx.model_copy(update={"result": plan})

    @body(StepStartedContext)
    async def step_started(self, ctx: StepStartedContext) -> StepStartedContext:
        """Run the step as planned."""
        return ctx.model_copy(update={"result": ctx.step})

    @body(StepFinishedContext)
    async def step_finished(self, ctx: StepFinishedContext) -> StepFinishedContext:
        """Done with its output as the summary; an empty output counts as failed."""
        text = " ".join(ctx.output.split())
        if len(text) > SUMMARY_CHARS:
            text = text[: SUMMARY_CHARS - 1] + "…"
        status = "done" if text else "failed"
        outcome = StepOutcome(status=status, summary=text or "no output")
        return ctx.model_copy(update={"result": outcome})

    @body(SubtaskSpawnedContext)
    async def subtask_spawned(self, ctx: SubtaskSpawnedContext) -> SubtaskSpawnedContext:
        """Give the sub-task an id if it has none, stable across retries of this spawn."""
        spec = ctx.spec
        if not spec.task_id:
            parent = ctx.task.task_id if ctx.task else "task"
            digest = hashlib.sha256(ctx.idempotency_key.encode()).hexdigest()[:12]
            spec = spec.model_copy(update={"task_id": f"{parent}/sub-{digest}"})
        return ctx.model_copy(update={"result": spec})


@final
class AgentBodies(Bodies):
    """The named agents' body.

    Args:
        manager: runs the named agent's operations (with every executor registered).
        agents: the configured named agents.
        catalogue: the worker's tools, for the agents' tool lists.
        default_model: the model of an agent, and of the task, that names none.
        prices: the models' prices (``HARNESS_MODEL_PRICES``), so the agent's cost is counted.
    """

    def __init__(
        self,
        *,
        manager: HookManager,
        agents: Mapping[str, AgentProfile],
        catalogue: ToolCatalogue,
        default_model: str,
        prices: Mapping[str, ModelPrice] | None = None,
    ) -> None:
        self.manager = manager
        self.agents = dict(agents)
        self.catalogue = catalogue
        self.default_model = default_model
        self.prices = dict(prices or {})

    @classmethod
    def wired(cls, wiring: Wiring) -> Self:
        """Built on the worker's manager, with its named agents, tools, models and prices."""
        deps = wiring.deps
        return cls(
            manager=wiring.manager,
            agents=deps.agents,
            catalogue=catalogue_of(deps.tools),
            default_model=deps.models.default_model,
            prices=deps.loop.model_prices,
        )

    @body(AgentInvokedContext)
    async def agent_invoked(self, ctx: AgentInvokedContext) -> AgentInvokedContext:
        """Run the named agent's own loop on ``ctx.input``.

        Raises:
            HookAbort: no agent of that name is configured.
        """
        profile = self.agents.get(ctx.agent)
        if profile is None:
            raise HookAbort(replies.no_such_agent(ctx.agent, tuple(sorted(self.agents))))
        model = profile.model or ctx.model or self.default_model
        state = AgentState(
            model=model,
            effort=profile.effort or DEFAULT_EFFORT,
            agent=ctx.agent,
            instructions=profile.instructions,
            catalogue=self.catalogue,
            tools=list(profile.tools),
            can_ask=False,
            max_turns=profile.max_turns,
            transcript=[Message(role="user", content=ctx.input)],
            prices=self.prices,
            # The task's approval settings hold for its agent too (it cannot ask: an ask is
            # a refusal, and what would always be asked is not offered).
            approvals=ctx.approvals,
            approved_tools=list(ctx.approved_tools),
            requested_by=ctx.entities.get(REQUESTED_BY, ""),
        )
        task = ctx.task or TaskRef(task_id="agent")
        identity = LoopIdentity(
            task=task,
            participants=ctx.participants,
            correlation_id=f"{ctx.idempotency_key or ctx.correlation_id}/{ctx.agent}",
        )
        text = await AgentLoop(InProcess(self.manager), _NoPeople(), state, identity).run_turns()
        # No limits in here (it cannot ask); what it used comes back for the task's budget.
        output = AgentOutput(text=text, model=model, usage=state.budget)
        return ctx.model_copy(update={"result": output})


@final
class _NoPeople:
    """A named agent's loop cannot ask people (see the module docstring)."""

    async def wait(self, request: HelpRequest) -> HelpAnswer:
        raise HookAbort(replies.NAMED_AGENT_ASKS, refusal=True)

    async def refused(self, answer: HelpAnswer, reason: str) -> None:
        return None

    async def accepted(self, decision: HelpDecision) -> None:
        return None

    def steering(self) -> tuple[Message, ...]:
        return ()

    async def notify(self, text: str) -> None:
        return None
