"""register_defaults: registers what runs by default at each operation.

The bodies are found by their marker (:mod:`harness.bodies.marker`): the method marked
``@body(ThingDoneContext)`` of a :class:`~harness.bodies.marker.Bodies` class is the
default body of ``thing.done``, so adding an operation adds no row here. Bodies run at
``<operation>.in``, :data:`~harness.hooks.BUILTIN_BODY_PRIORITY`, so any executor
registered at a lower priority that sets ``result`` replaces them (DESIGN.md,
"Semantics"). Some registrations are not bodies but belong to the defaults: the worker's
loop-defaults answer before the store's read, the conversation guard before
``channel.received``, and the progress reporter where the catalogue rows say
``progress`` (unless ``HARNESS_PROGRESS=off``). Slash commands register their own bodies
(``commands/``); ``command.invoked``'s row says it has none here.
"""

from __future__ import annotations

from typing import Any

from harness.bodies.deps import BodyDeps
from harness.bodies.marker import BODIES, Bodies, Wiring, check_bodies
from harness.bodies.persistence import (
    LOOP_DEFAULTS_POINT,
    LOOP_DEFAULTS_PRIORITY,
    LoopDefaultsAnswer,
)
from harness.channels.guard import ConversationGuard
from harness.channels.progress_reporter import PROGRESS_PRIORITY, ProgressReporter
from harness.channels.streams import Streams
from harness.hooks import (
    BUILTIN_BODY_PRIORITY,
    ROLE_GUARD_PRIORITY,
    HookManager,
    Registration,
    entries,
    points_at,
)
from harness.hooks.contexts import ChannelReceivedContext

BODY = BUILTIN_BODY_PRIORITY


def register_defaults(manager: HookManager, deps: BodyDeps) -> list[Registration]:
    """Register the default body of every operation (but ``command.invoked``), in catalogue order.

    Args:
        manager: where to register (and what named agents run their loops through).
        deps: what the bodies need.

    Returns:
        The registrations, in the order made (for logs and for unregistering).
    """
    check_bodies()  # rows declared at run time (a plugin's context class) need theirs too
    streams = Streams(enabled=deps.progress == "stream")
    wiring = Wiring(manager=manager, deps=deps, streams=streams)
    loop_defaults = LoopDefaultsAnswer(tools=deps.tools, loop=deps.loop, resources=deps.resources)
    guard = ConversationGuard(watchers_may_talk=deps.watchers_may_talk)
    # Any: each body takes its own operation's context type, narrower than Executor's.
    table: list[tuple[str, Any, int]] = [
        (f"{ChannelReceivedContext.operation}.pre", guard, ROLE_GUARD_PRIORITY),
        (LOOP_DEFAULTS_POINT, loop_defaults, LOOP_DEFAULTS_PRIORITY),
    ]
    if deps.progress != "off":
        reporter = ProgressReporter(
            channel=deps.channel, streams=streams, interval=deps.progress_interval
        )
        shown = points_at("post", lambda e: e.progress), points_at("pre", lambda e: e.progress)
        table += [(p, reporter, PROGRESS_PRIORITY) for p in shown[0]]
        table += [(p, reporter.before, PROGRESS_PRIORITY) for p in shown[1]]
    built: dict[type[Bodies], Bodies] = {}
    for entry in entries():
        if entry.operation not in BODIES:  # a row without a body (check_bodies allowed it)
            continue
        cls, method = BODIES[entry.operation]
        bodies = built.get(cls) or built.setdefault(cls, cls.wired(wiring))
        table.append((f"{entry.operation}.in", getattr(bodies, method), BODY))
    return [manager.register(point, body, priority=priority) for point, body, priority in table]
