"""Default body of agent.invoked: run the named agent's own loop.

``agent.invoked`` runs the named agent's own :class:`~harness.agent.loop.AgentLoop`
(its instructions, model and tools) through the same :class:`~harness.hooks.HookManager`,
so executors still see each of its model and tool calls. That nested loop runs
inside the one ``agent.invoked`` activity (it retries as a unit) and cannot ask
people: ``ask_human`` and tools needing approval are not offered to it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import final

from harness.agent.loop import AgentLoop
from harness.agent.loop_steps import HelpAnswer
from harness.agent.profiles import AgentProfile
from harness.agent.state import AgentState, LoopIdentity, ToolCatalogue
from harness.domain import (
    DEFAULT_EFFORT,
    AgentOutput,
    HelpDecision,
    HelpRequest,
    Message,
    TaskRef,
)
from harness.hooks import HookAbort, HookManager
from harness.hooks.contexts import AgentInvokedContext


@final
class AgentBodies:
    """The named agents' body.

    Args:
        manager: runs the named agent's operations (with every executor registered).
        agents: the configured named agents.
        catalogue: the worker's tools, for the agents' tool lists.
        default_model: the model of an agent, and of the task, that names none.
    """

    def __init__(
        self,
        *,
        manager: HookManager,
        agents: Mapping[str, AgentProfile],
        catalogue: ToolCatalogue,
        default_model: str,
    ) -> None:
        self.manager = manager
        self.agents = dict(agents)
        self.catalogue = catalogue
        self.default_model = default_model

    async def agent_invoked(self, ctx: AgentInvokedContext) -> AgentInvokedContext:
        """Run the named agent's own loop on ``ctx.input``.

        Raises:
            HookAbort: no agent of that name is configured.
        """
        profile = self.agents.get(ctx.agent)
        if profile is None:
            known = ", ".join(sorted(self.agents)) or "none"
            raise HookAbort(f"no agent named {ctx.agent!r} (configured: {known})")
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
        )
        task = ctx.task or TaskRef(task_id="agent")
        identity = LoopIdentity(
            task=task,
            participants=ctx.participants,
            correlation_id=f"{ctx.idempotency_key or ctx.correlation_id}/{ctx.agent}",
        )
        text = await AgentLoop(self.manager, _NoPeople(), state, identity).run_turns()
        return ctx.model_copy(update={"result": AgentOutput(text=text, model=model)})


@final
class _NoPeople:
    """A named agent's loop cannot ask people (see the module docstring)."""

    async def wait(self, request: HelpRequest) -> HelpAnswer:
        raise HookAbort("a named agent cannot ask people for help", refusal=True)

    async def refused(self, answer: HelpAnswer, reason: str) -> None:
        return None

    async def accepted(self, decision: HelpDecision) -> None:
        return None
