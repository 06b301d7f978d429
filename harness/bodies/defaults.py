"""register_defaults: the one table of what runs by default at each operation.

The bodies are found from the catalogue: the default body of ``thing.done`` is the
method ``thing_done`` of its family's bodies (:mod:`harness.bodies.<family>`), so adding an
operation adds no row here. Each row is ``(point, executor, priority)``. Bodies run at
``<operation>.in``,
:data:`~harness.hooks.BUILTIN_BODY_PRIORITY`, so any executor registered at a lower
priority that sets ``result`` replaces them (DESIGN.md, "Semantics"). Some rows are
not bodies but belong to the defaults: the worker's loop-defaults answer before the
store's read, the conversation guard before ``channel.received``, and the progress
reporter after the loop's operations (unless ``HARNESS_PROGRESS=off``). Slash commands
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
from harness.channels.progress_reporter import (
    POST_OPERATIONS,
    PRE_OPERATIONS,
    PROGRESS_PRIORITY,
    ProgressReporter,
)
from harness.channels.streams import Streams
from harness.hooks import (
    BUILTIN_BODY_PRIORITY,
    ROLE_GUARD_PRIORITY,
    HookManager,
    Registration,
    entries,
)

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
    streams = Streams(enabled=deps.progress == "stream")
    channel = ChannelBodies(channel=deps.channel, streams=streams)
    compaction = CompactionBodies(models=deps.models, keep_last=deps.keep_last)
    persistence = PersistenceBodies(store=deps.store, transcripts=deps.transcripts)
    activity = ActivityBodies(random=deps.random, retry=deps.retry)
    skill = SkillBodies(skills=deps.skills)
    agent = AgentBodies(
        manager=manager,
        agents=deps.agents,
        catalogue=catalogue_of(deps.tools),
        default_model=deps.models.default_model,
        prices=deps.loop.model_prices,
    )
    loop_defaults = LoopDefaultsAnswer(tools=deps.tools, loop=deps.loop, resources=deps.resources)
    guard = ConversationGuard(watchers_may_talk=deps.watchers_may_talk)
    families: dict[str, tuple[object, ...]] = {
        "task": (task,),
        "llm": (llm,),
        "tool": (tool,),
        "plan": (plan, agent),
        "help": (help_,),
        "channel": (channel,),
        "compaction": (compaction,),
        "persistence": (persistence,),
        "activity": (activity,),
        "skill": (skill,),
    }
    # Any: each body takes its own operation's context type, narrower than Executor's.
    table: list[tuple[str, Any, int]] = [
        ("channel.received.pre", guard, ROLE_GUARD_PRIORITY),
        ("persistence.read.in", loop_defaults, LOOP_DEFAULTS_PRIORITY),
    ]
    if deps.progress != "off":
        reporter = ProgressReporter(
            channel=deps.channel, streams=streams, interval=deps.progress_interval
        )
        table += [(f"{op}.post", reporter, PROGRESS_PRIORITY) for op in POST_OPERATIONS]
        table += [(f"{op}.pre", reporter.before, PROGRESS_PRIORITY) for op in PRE_OPERATIONS]
    for entry in entries():
        method = entry.operation.replace(".", "_")
        for bodies in families.get(entry.family, ()):
            if hasattr(bodies, method):
                table.append((f"{entry.operation}.in", getattr(bodies, method), BODY))
    return [manager.register(point, body, priority=priority) for point, body, priority in table]
