"""The operation catalogue: the one record of each operation of DESIGN.md, and what derives from it.

Each row (:class:`Entry`) holds every per-operation fact: its name, its family (the module
of :mod:`harness.hooks.contexts` that holds its context and of :mod:`harness.bodies` that
holds its default body), the Temporal activity that runs it, whether it calls a model,
where the progress reporter watches it, which inputs its activity's result leaves out,
where policy rules may sit and whether it has a default body. ``OPERATIONS``, ``POINTS``,
the activities (:mod:`harness.temporal.activity.hooked`), the progress reporter's points and
the policy's points are all derived from the rows. The table names no class: each
``<Op>Context`` registers itself with its class keyword (``operation="..."``,
:class:`harness.hooks.contexts.base.HookContext`), and each default body with its marker
(:func:`harness.bodies.marker.body`); both are checked against the rows at import. So the
contexts import the catalogue and never the other way round. What runs at a point is
:mod:`harness.hooks.manager`'s.

Adding an operation is one row here, one context class and (unless ``body=False``) one
default body: ``docs/architecture.md``, "Adding an operation".
"""

from __future__ import annotations

import difflib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Final, Literal, final

from harness.hooks.errors import UnknownHookPointError

DISPATCH_HOOKS: Final = "dispatch-hooks-v1"
"""The activity ``activity.failed`` and ``activity.retried`` shared before issue 25 (a union
input, the input's type deciding). Each has its own activity now, so reordering them is a
nondeterminism error at replay; workers still register this one for histories and workers
from before (docs/deployment.md)."""


def activity_name(operation: str) -> str:
    """The naming rule: ``tool_calls.extracted`` -> ``tool-calls-extracted-v1``.

    A row whose payload changes incompatibly names its activity instead (``...-v2``,
    STYLE.md rule 10).
    """
    return operation.replace(".", "-").replace("_", "-") + "-v1"


_DERIVED: Final = "<derived>"


Phase = Literal["pre", "in", "post"]
PHASES: Final[tuple[Phase, Phase, Phase]] = ("pre", "in", "post")


@final
@dataclass(frozen=True, slots=True)
class Entry:
    """One row of the catalogue: the record of one operation.

    Attributes:
        operation: ``<noun>.<verb>``; its points are ``<operation>.<phase>``.
        family: the module of :mod:`harness.hooks.contexts` (and of :mod:`harness.bodies`)
            the operation belongs to.
        activity: the Temporal activity that runs it: :func:`activity_name` of the
            operation unless given; ``None`` when it runs inside another (``heartbeat.tick``
            in every activity, ``shutdown`` in the worker).
        calls_model: it calls a model, so a retry of it is said in the thread (issue 11).
        progress: the phases at which the progress reporter renders it (issue 14): ``post``
            shows what the operation left, ``pre`` what is about to happen.
        unechoed: input fields (sequences) its activity's result leaves empty, ``()``
            (issue 13): the model context, which the workflow sent and never reads back,
            would otherwise be written to history a second time in every result.
        policy: the phases at which the operator's policy rules may sit
            (:mod:`harness.hooks.monitors.policy`).
        attempts: how many attempts the workflow gives it, when not the task's policy
            (``command.invoked``: one; a person who typed a command is answered at once).
        body: it has a default body (:mod:`harness.bodies`); ``False`` when its bodies are a
            plugin's (``command.invoked``: each command's, ``commands/``).
    """

    operation: str
    family: str
    activity: str | None = _DERIVED
    calls_model: bool = False
    progress: tuple[Phase, ...] = ()
    unechoed: tuple[str, ...] = ()
    policy: tuple[Phase, ...] = ()
    attempts: int | None = None
    body: bool = True

    def __post_init__(self) -> None:
        if self.activity == _DERIVED:
            object.__setattr__(self, "activity", activity_name(self.operation))


CATALOGUE: Final[tuple[Entry, ...]] = (
    Entry("request.received", "task"),
    Entry("task.created", "task"),
    Entry("task.state_changed", "task"),
    Entry("task.complete", "task"),
    Entry("context.created", "llm", unechoed=("transcript",)),
    Entry("llm.invoked", "llm", calls_model=True, progress=("pre", "post"), unechoed=("messages",)),
    Entry("tool_calls.extracted", "llm"),
    Entry("tool.invoked", "tool", progress=("pre", "post"), policy=("pre",)),
    Entry("system_one.invoked", "llm", calls_model=True, unechoed=("transcript",)),
    Entry("plan.created", "plan", progress=("post",)),
    Entry("step.started", "plan", progress=("post",)),
    Entry("step.finished", "plan", progress=("post",)),
    Entry("subtask.spawned", "plan"),
    Entry("help.requested", "help"),
    Entry("help.decided", "help"),
    Entry("channel.sent", "channel", progress=("post",)),
    Entry("channel.received", "channel"),
    Entry("compaction.trigger", "compaction"),
    Entry("compaction.keep", "compaction", unechoed=("messages",)),
    Entry("compaction.summarise", "compaction", calls_model=True, unechoed=("messages",)),
    Entry("persistence.read", "persistence"),
    Entry("persistence.write", "persistence"),
    Entry("activity.failed", "activity"),
    Entry("activity.retried", "activity"),
    Entry("heartbeat.tick", "activity", activity=None),
    Entry("shutdown", "activity", activity=None),
    Entry("skill.loaded", "skill"),
    Entry("skill.unloaded", "skill"),
    Entry("agent.invoked", "plan"),
    Entry("command.invoked", "command", policy=("pre",), attempts=1, body=False),
)
"""The operations of DESIGN.md, in its order."""

OPERATIONS: Final[tuple[str, ...]] = tuple(entry.operation for entry in CATALOGUE)

ACTIVITIES: Final[dict[str, str]] = {
    entry.operation: entry.activity for entry in CATALOGUE if entry.activity is not None
}
"""Operation -> the activity that runs it: ``tool.invoked`` -> ``tool-invoked-v1``.

Names only, for workflow code (import it inside ``imports_passed_through``); the
activities themselves are :mod:`harness.temporal.activity.hooked`'."""

POINTS: Final[tuple[str, ...]] = tuple(f"{op}.{phase}" for op in OPERATIONS for phase in PHASES)

BUILTIN_BODY_PRIORITY: Final = 1000
"""Priority of the built-in default bodies; a lower number runs first and may replace them."""

ROLE_GUARD_PRIORITY: Final = 100
"""Priority of the built-in command.invoked pre executor that refuses senders without the role."""

DEFAULT_PRIORITY: Final = 500
"""Priority of an executor registered without one: after guards, before default bodies."""

# The live catalogue: the table above, plus what extend() added in this process.
_ENTRIES: Final[dict[str, Entry]] = {entry.operation: entry for entry in CATALOGUE}
_POINT_SET: Final[set[str]] = set(POINTS)
_ON_REMOVE: Final[list[Callable[[str], None]]] = []


def entries() -> tuple[Entry, ...]:
    """Every row of the live catalogue: the table, then any added by :func:`extend`."""
    return tuple(_ENTRIES.values())


def points() -> tuple[str, ...]:
    """Every point of the live catalogue, in catalogue order."""
    return tuple(f"{entry.operation}.{phase}" for entry in _ENTRIES.values() for phase in PHASES)


def extend(entry: Entry) -> Callable[[], None]:
    """Add an operation to this process's catalogue; define its context class after this.

    Managers and activity hosts built afterwards know it; ``OPERATIONS`` and ``POINTS``
    stay the table's. Meant for tests (the "adding an operation" proof) and for plugins
    that bring operations of their own.

    Returns:
        The undo: removes the row and its context class.

    Raises:
        ValueError: the operation is in the catalogue already.
    """
    if entry.operation in _ENTRIES:
        raise ValueError(f"operation {entry.operation!r} is in the catalogue already")
    _ENTRIES[entry.operation] = entry
    added = {f"{entry.operation}.{phase}" for phase in PHASES}
    _POINT_SET.update(added)

    def undo() -> None:
        if _ENTRIES.pop(entry.operation, None) is not None:
            _POINT_SET.difference_update(added)
            for forget in _ON_REMOVE:
                forget(entry.operation)

    return undo


def on_remove(forget: Callable[[str], None]) -> None:
    """Call ``forget(operation)`` when an :func:`extend` is undone (the context registry does)."""
    _ON_REMOVE.append(forget)


def split_point(point: str) -> tuple[str, Phase]:
    """Split ``'<operation>.<phase>'`` into its parts.

    Raises:
        UnknownHookPointError: the operation or the phase is not in the catalogue.
    """
    if point not in _POINT_SET:
        hint = difflib.get_close_matches(point, points(), n=1)
        raise UnknownHookPointError(name=point, hint=hint[0] if hint else "")
    operation, _, phase = point.rpartition(".")
    return operation, phase  # type: ignore[return-value]  # membership in _POINT_SET proves the Literal


def check_operation(operation: str) -> str:
    """Return ``operation`` if it is in the catalogue.

    Raises:
        UnknownHookPointError: it is not.
    """
    if operation not in _ENTRIES:
        hint = difflib.get_close_matches(operation, list(_ENTRIES), n=1)
        raise UnknownHookPointError(name=operation, hint=hint[0] if hint else "")
    return operation


def entry_of(operation: str) -> Entry:
    """The row of ``operation`` in the live catalogue (runtime rows included).

    Raises:
        UnknownHookPointError: the operation is not in the catalogue.
    """
    return _ENTRIES[check_operation(operation)]


def points_at(phase: Phase, where: Callable[[Entry], tuple[Phase, ...]]) -> tuple[str, ...]:
    """The ``phase`` points of every live row whose ``where(row)`` holds ``phase``.

    ``points_at("post", lambda e: e.progress)``: where the progress reporter watches.
    """
    return tuple(f"{e.operation}.{phase}" for e in _ENTRIES.values() if phase in where(e))


def activity_of(operation: str) -> str:
    """The activity that runs ``operation``, from the live catalogue (runtime rows included).

    Raises:
        UnknownHookPointError: the operation is not in the catalogue.
        ValueError: it runs inside another activity (``heartbeat.tick``, ``shutdown``).
    """
    activity = entry_of(operation).activity
    if activity is None:
        raise ValueError(f"{operation} runs inside another activity, not as one of its own")
    return activity


def point(operation: str, phase: Phase) -> str:
    """Build the point name of ``operation`` at ``phase``."""
    return f"{check_operation(operation)}.{phase}"
