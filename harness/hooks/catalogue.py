"""The operation catalogue: the 30 operations of DESIGN.md, the phases and point names.

Only names and priorities live here; the typed context of each operation is in
:mod:`harness.hooks.contexts`, and what runs at a point in :mod:`harness.hooks.manager`.
"""

from __future__ import annotations

import difflib
from typing import Final, Literal

from harness.hooks.errors import UnknownHookPointError

OPERATIONS: Final[tuple[str, ...]] = (
    "request.received",
    "task.created",
    "task.state_changed",
    "task.complete",
    "context.created",
    "llm.invoked",
    "tool_calls.extracted",
    "tool.invoked",
    "system_one.invoked",
    "plan.created",
    "step.started",
    "step.finished",
    "subtask.spawned",
    "help.requested",
    "help.decided",
    "channel.sent",
    "channel.received",
    "compaction.trigger",
    "compaction.keep",
    "compaction.summarise",
    "persistence.read",
    "persistence.write",
    "activity.failed",
    "activity.retried",
    "heartbeat.tick",
    "shutdown",
    "skill.loaded",
    "skill.unloaded",
    "agent.invoked",
    "command.invoked",
)

Phase = Literal["pre", "in", "post"]
PHASES: Final[tuple[Phase, Phase, Phase]] = ("pre", "in", "post")

POINTS: Final[tuple[str, ...]] = tuple(f"{op}.{phase}" for op in OPERATIONS for phase in PHASES)

BUILTIN_BODY_PRIORITY: Final = 1000
"""Priority of the built-in default bodies; a lower number runs first and may replace them."""

ROLE_GUARD_PRIORITY: Final = 100
"""Priority of the built-in command.invoked pre executor that refuses senders without the role."""

DEFAULT_PRIORITY: Final = 500
"""Priority of an executor registered without one: after guards, before default bodies."""

OUTERMOST_PRIORITY: Final = -1_000_000_000
"""Runs before everything on a point: tracing opens its span here, so the span wraps all."""

INNERMOST_PRIORITY: Final = 1_000_000_000
"""Runs after everything on a point (as a validator, after validators too): spans close here."""

_OPERATION_SET: Final = frozenset(OPERATIONS)
_POINT_SET: Final = frozenset(POINTS)


def split_point(point: str) -> tuple[str, Phase]:
    """Split ``'<operation>.<phase>'`` into its parts.

    Raises:
        UnknownHookPointError: the operation or the phase is not in the catalogue.
    """
    if point not in _POINT_SET:
        hint = difflib.get_close_matches(point, POINTS, n=1)
        raise UnknownHookPointError(name=point, hint=hint[0] if hint else "")
    operation, _, phase = point.rpartition(".")
    return operation, phase  # type: ignore[return-value]  # membership in _POINT_SET proves the Literal


def check_operation(operation: str) -> str:
    """Return ``operation`` if it is in the catalogue.

    Raises:
        UnknownHookPointError: it is not.
    """
    if operation not in _OPERATION_SET:
        hint = difflib.get_close_matches(operation, OPERATIONS, n=1)
        raise UnknownHookPointError(name=operation, hint=hint[0] if hint else "")
    return operation


def point(operation: str, phase: Phase) -> str:
    """Build the point name of ``operation`` at ``phase``."""
    return f"{check_operation(operation)}.{phase}"
