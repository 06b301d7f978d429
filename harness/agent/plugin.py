"""register_agent_builtin: the agent loop's default bodies, at BUILTIN_BODY_PRIORITY.

The companion of :func:`harness.hooks.register_builtin` (which registers the task,
persistence and retry bodies): together they give every operation of the catalogue
a default body that a lower-priority ``in`` executor may replace.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from harness.agent.bodies_agents import AgentBodies
from harness.agent.bodies_compaction import DEFAULT_KEEP_LAST, CompactionBodies
from harness.agent.bodies_llm import LlmBodies
from harness.agent.bodies_tools import ToolBodies
from harness.agent.profiles import AgentProfile
from harness.agent.state import ToolCatalogue
from harness.hooks import BUILTIN_BODY_PRIORITY, HookManager, Registration
from harness.models import ModelRegistry
from harness.skills import SkillLoader
from harness.tools import ToolRegistry


def catalogue_of(tools: ToolRegistry) -> ToolCatalogue:
    """The loop's view of a registry: every spec, and the names that need approval."""
    names = tools.names
    approval = tuple(n for n in names if (tool := tools.get(n)) and tool.requires_approval)
    return ToolCatalogue(specs=tools.specs(), approval=approval)


def register_agent_builtin(
    manager: HookManager,
    *,
    models: ModelRegistry,
    tools: ToolRegistry,
    skills: SkillLoader,
    agents: Mapping[str, AgentProfile] | None = None,
    keep_last: int = DEFAULT_KEEP_LAST,
) -> list[Registration]:
    """Register the default body of every agent-loop operation.

    Args:
        manager: where to register (and what named agents run their loops through).
        models: model providers by name.
        tools: the worker's tools.
        skills: the skills directory's loader.
        agents: named agents.
        keep_last: messages compaction keeps verbatim.

    Returns:
        The registrations, in the order made.
    """
    agents = dict(agents or {})
    llm = LlmBodies(
        models=models,
        skills=skills,
        agents={n: p.instructions.split("\n", 1)[0][:80] for n, p in agents.items()},
    )
    tool = ToolBodies(tools=tools)
    compaction = CompactionBodies(models=models, keep_last=keep_last)
    agent = AgentBodies(
        manager=manager,
        skills=skills,
        agents=agents,
        catalogue=catalogue_of(tools),
        default_model=models.default_model,
    )
    bodies: dict[str, Any] = {
        "context.created": llm.context_created,
        "llm.invoked": llm.llm_invoked,
        "system_one.invoked": llm.system_one_invoked,
        "tool_calls.extracted": llm.tool_calls_extracted,
        "plan.created": llm.plan_created,
        "tool.invoked": tool.tool_invoked,
        "help.requested": tool.help_requested,
        "help.decided": tool.help_decided,
        "step.started": tool.step_started,
        "step.finished": tool.step_finished,
        "compaction.trigger": compaction.trigger,
        "compaction.keep": compaction.keep,
        "compaction.summarise": compaction.summarise,
        "skill.loaded": agent.skill_loaded,
        "skill.unloaded": agent.skill_unloaded,
        "agent.invoked": agent.agent_invoked,
    }
    return [
        manager.register(f"{operation}.in", body, priority=BUILTIN_BODY_PRIORITY)
        for operation, body in bodies.items()
    ]
