"""register_defaults: the one table of what runs by default at each operation.

Each row is ``(point, executor, priority)``. Bodies run at ``<operation>.in``,
:data:`~harness.hooks.BUILTIN_BODY_PRIORITY`, so any executor registered at a lower
priority that sets ``result`` replaces them (DESIGN.md, "Semantics"). Two rows are
not bodies but belong to the defaults: the worker's loop-defaults answer before the
store's read, and the conversation guard before ``channel.received``. Slash commands
register their own bodies (``commands/``); ``command.invoked`` has none here.
"""

from __future__ import annotations

from typing import Any

from harness.bodies.activity import ActivityBodies
from harness.bodies.channel import ChannelBodies
from harness.bodies.compaction import CompactionBodies
from harness.bodies.deps import BodyDeps
from harness.bodies.help import HelpBodies
from harness.bodies.llm import LlmBodies
from harness.bodies.persistence import (
    LOOP_DEFAULTS_PRIORITY,
    LoopDefaultsAnswer,
    PersistenceBodies,
)
from harness.bodies.plan import AgentBodies, PlanBodies
from harness.bodies.skill import SkillBodies
from harness.bodies.task import TaskBodies
from harness.bodies.tool import ToolBodies, catalogue_of
from harness.channels.guard import ConversationGuard
from harness.hooks import BUILTIN_BODY_PRIORITY, ROLE_GUARD_PRIORITY, HookManager, Registration

BODY = BUILTIN_BODY_PRIORITY


def register_defaults(manager: HookManager, deps: BodyDeps) -> list[Registration]:
    """Register the default body of every operation (but ``command.invoked``), in catalogue order.

    Args:
        manager: where to register (and what named agents run their loops through).
        deps: what the bodies need.

    Returns:
        The registrations, in the order made (for logs and for unregistering).
    """
    task = TaskBodies()
    llm = LlmBodies(models=deps.models, skills=deps.skills)
    tool = ToolBodies(tools=deps.tools)
    plan = PlanBodies(
        models=deps.models,
        agents={n: p.instructions.split("\n", 1)[0][:80] for n, p in deps.agents.items()},
    )
    help_ = HelpBodies()
    channel = ChannelBodies(channel=deps.channel)
    compaction = CompactionBodies(models=deps.models, keep_last=deps.keep_last)
    persistence = PersistenceBodies(store=deps.store)
    activity = ActivityBodies(random=deps.random, retry=deps.retry)
    skill = SkillBodies(skills=deps.skills)
    agent = AgentBodies(manager=manager, agents=deps.agents, catalogue=catalogue_of(deps.tools),
                        default_model=deps.models.default_model)  # fmt: skip
    loop_defaults = LoopDefaultsAnswer(tools=deps.tools, loop=deps.loop, resources=deps.resources)
    guard = ConversationGuard(watchers_may_talk=deps.watchers_may_talk)
    # Any: each body takes its own operation's context type, narrower than Executor's.
    table: list[tuple[str, Any, int]] = [
        ("request.received.in", task.request_received, BODY),
        ("task.created.in", task.task_created, BODY),
        ("task.state_changed.in", task.task_state_changed, BODY),
        ("task.complete.in", task.task_complete, BODY),
        ("context.created.in", llm.context_created, BODY),
        ("llm.invoked.in", llm.llm_invoked, BODY),
        ("tool_calls.extracted.in", llm.tool_calls_extracted, BODY),
        ("tool.invoked.in", tool.tool_invoked, BODY),
        ("system_one.invoked.in", llm.system_one_invoked, BODY),
        ("plan.created.in", plan.plan_created, BODY),
        ("step.started.in", plan.step_started, BODY),
        ("step.finished.in", plan.step_finished, BODY),
        ("subtask.spawned.in", plan.subtask_spawned, BODY),
        ("help.requested.in", help_.help_requested, BODY),
        ("help.decided.in", help_.help_decided, BODY),
        ("channel.sent.in", channel.channel_sent, BODY),
        ("channel.received.pre", guard, ROLE_GUARD_PRIORITY),
        ("channel.received.in", channel.channel_received, BODY),
        ("compaction.trigger.in", compaction.trigger, BODY),
        ("compaction.keep.in", compaction.keep, BODY),
        ("compaction.summarise.in", compaction.summarise, BODY),
        ("persistence.read.in", loop_defaults, LOOP_DEFAULTS_PRIORITY),
        ("persistence.read.in", persistence.persistence_read, BODY),
        ("persistence.write.in", persistence.persistence_write, BODY),
        ("activity.failed.in", activity.activity_failed, BODY),
        ("activity.retried.in", activity.activity_retried, BODY),
        ("heartbeat.tick.in", activity.heartbeat_tick, BODY),
        ("shutdown.in", activity.shutdown, BODY),
        ("skill.loaded.in", skill.skill_loaded, BODY),
        ("skill.unloaded.in", skill.skill_unloaded, BODY),
        ("agent.invoked.in", agent.agent_invoked, BODY),
    ]
    return [manager.register(point, body, priority=priority) for point, body, priority in table]
