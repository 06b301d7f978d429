"""The operation catalogue: the one record of each operation of DESIGN.md, and what derives from it.

Each row (:class:`Entry`) holds every per-operation fact: its name, its family, the Temporal
activity that runs it, whether it calls a model, where the progress reporter watches it,
which inputs its activity's result leaves out, where policy rules may sit, the workflow's
attempts and whether it has a default body. There is no table here: the row is declared
by the operation's context class, with the columns as class keywords
(``class LlmInvokedContext(HookContext, operation="llm.invoked", calls_model=True)``,
:class:`harness.hooks.contexts.base.HookContext`), which :func:`record` s it here as
the class is defined. A plugin's operation is declared the same way, at run time.

This module is the registry and its lookups (:func:`entries`, :func:`entry_of`,
:func:`split_point`, :func:`points_at`, :func:`activity_of`, ...); it imports no context.
``OPERATIONS``, ``POINTS`` and ``ACTIVITIES`` are the built-in catalogue, fixed by
:func:`seal` once :mod:`harness.hooks.contexts` has loaded every family module (in load
order, each module's classes in definition order; nothing depends on it): reading them
earlier is an ``ImportError``. Adding an operation: ``docs/architecture.md``, "Adding an operation".
"""

from __future__ import annotations

import dataclasses
import difflib
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final, Literal, final

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


def changes_name(activity: str) -> str:
    """The activity answering with what changed: ``x-done-v1`` -> ``x-done-changes-v1``.

    The same chains as ``activity``; its result is only the fields the chains changed
    (:class:`harness.temporal.models.Changed`), so a history does not hold every
    context twice (issue 27). A result of another shape is another activity name
    (STYLE.md rule 10); the full one stays for histories from before.
    """
    base, _, version = activity.rpartition("-")
    if base and re.fullmatch(r"v\d+", version):
        return f"{base}-changes-{version}"
    return f"{activity}-changes"


def refs_name(activity: str) -> str:
    """The activity taking its messages by reference: ``x-done-v1`` -> ``x-done-refs-v1``.

    :func:`changes_name`'s chains and result, with an input whose message fields name each
    message by id (:mod:`harness.temporal.refs`, issue 27): another shape of input, so
    another name; the ``changes`` one stays for histories from before.
    """
    base, _, version = activity.rpartition("-")
    if base and re.fullmatch(r"v\d+", version):
        return f"{base}-refs-{version}"
    return f"{activity}-refs"


_DERIVED: Final = "<derived>"
_NAME: Final = re.compile(r"[a-z][a-z0-9_]*(\.[a-z][a-z0-9_]*)*")

Phase = Literal["pre", "in", "post"]
PHASES: Final[tuple[Phase, Phase, Phase]] = ("pre", "in", "post")


@final
@dataclass(frozen=True, slots=True)
class Entry:
    """One row of the catalogue: the record of one operation.

    Every attribute but ``operation`` is a class keyword of the operation's context class
    (:data:`COLUMNS`); ``family`` defaults to the context module's name.

    Attributes:
        operation: ``<noun>.<verb>``; its points are ``<operation>.<phase>``.
        family: the module of :mod:`harness.hooks.contexts` (and of :mod:`harness.bodies`)
            the operation belongs to.
        activity: the Temporal activity that runs it: :func:`activity_name` of the
            operation unless given; ``None`` when it runs inside another (``heartbeat.tick``
            in every activity, ``shutdown`` in the worker).
        calls_model: it calls a model, so a retry of it is said in the thread (issue 11).
        local: a short step (milliseconds: in-process work, the database, one Slack call)
            that the task workflow runs as a Temporal *local* activity, in the worker that
            runs the workflow, with no task-queue round trip (issue 27). Model calls, tool
            calls and anything that may run for long stay ``False`` (the default): a local
            activity holds the workflow's task, so updates (``/task stop``) wait for it.
            The built-in short steps say it (:data:`LOCAL_BY_DEFAULT`; docs/architecture.md,
            "Where each operation runs").
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

    Raises:
        TypeError: a column of the wrong shape (``progress="post"`` for ``("post",)``).
    """

    operation: str
    family: str
    activity: str | None = _DERIVED
    calls_model: bool = False
    local: bool = False
    progress: tuple[Phase, ...] = ()
    unechoed: tuple[str, ...] = ()
    policy: tuple[Phase, ...] = ()
    attempts: int | None = None
    body: bool = True

    def __post_init__(self) -> None:
        if self.activity == _DERIVED:
            object.__setattr__(self, "activity", activity_name(self.operation))
        problems = [
            *_shape(self.operation, "operation", _is(str, self.operation, _NAME.fullmatch)),
            *_shape(self.family, "family", _is(str, self.family, str.isidentifier)),
            *_shape(self.activity, "activity", self.activity is None or bool(self.activity)),
            *_shape(self.calls_model, "calls_model", isinstance(self.calls_model, bool)),
            *_shape(self.local, "local", isinstance(self.local, bool)),
            *_shape(self.progress, "progress", _phases(self.progress)),
            *_shape(self.policy, "policy", _phases(self.policy)),
            *_shape(self.unechoed, "unechoed", _names(self.unechoed)),
            *_shape(
                self.attempts,
                "attempts",
                self.attempts is None or _is(int, self.attempts, (1).__le__),
            ),
            *_shape(self.body, "body", isinstance(self.body, bool)),
        ]
        if problems:
            raise TypeError(f"the row of {self.operation!r}: {'; '.join(problems)}")


COLUMNS: Final = tuple(f.name for f in dataclasses.fields(Entry) if f.name != "operation")
"""The class keywords a context class may give beside ``operation``."""


def _shape(value: object, column: str, ok: bool) -> list[str]:
    return [] if ok else [f"{column}={value!r} is not {_WANTED[column]}"]


def _is(kind: type, value: object, test: Callable[[Any], object] = bool) -> bool:
    """``value`` is a ``kind`` (never a bool standing for a number) that passes ``test``."""
    return isinstance(value, kind) and not isinstance(value, bool) and bool(test(value))


def _phases(value: object) -> bool:
    return isinstance(value, tuple) and all(p in PHASES for p in value)


def _names(value: object) -> bool:
    return isinstance(value, tuple) and all(isinstance(n, str) and n for n in value)


_WANTED: Final = {
    "operation": "lower-case words joined by dots (noun.verbed)",
    "family": "a module name (plan)",
    "activity": "an activity name or None",
    "calls_model": "True or False",
    "local": "True or False",
    "progress": "a tuple of phases, ('pre', 'post')",
    "policy": "a tuple of phases, ('pre',)",
    "unechoed": "a tuple of field names, ('messages',)",
    "attempts": "None or a number from 1",
    "body": "True or False",
}

BUILTIN_BODY_PRIORITY: Final = 1000
"""Priority of the built-in default bodies; a lower number runs first and may replace them."""

ROLE_GUARD_PRIORITY: Final = 100
"""Priority of the built-in command.invoked pre executor that refuses senders without the role."""

DEFAULT_PRIORITY: Final = 500
"""Priority of an executor registered without one: after guards, before default bodies."""

# The live catalogue: every row its context class recorded, built-in or a plugin's.
_ENTRIES: Final[dict[str, Entry]] = {}
_POINT_SET: Final[set[str]] = set()
_ON_REMOVE: Final[list[Callable[[str], None]]] = []
_BUILTIN: Final[set[str]] = set()

# The built-in catalogue, set by seal(): declared here for readers and type checkers.
OPERATIONS: tuple[str, ...]
"""The built-in operations, in the order their context classes were defined and loaded."""
POINTS: tuple[str, ...]
"""Every point ``<operation>.<phase>`` of :data:`OPERATIONS`."""
LOCAL_BY_DEFAULT: frozenset[str]
"""The built-in operations whose row says ``local``: short steps every worker runs as local
activities unless a plugin says otherwise (:func:`run_locally`)."""
ACTIVITIES: dict[str, str]
"""Operation -> the activity that runs it: ``tool.invoked`` -> ``tool-invoked-v1``.

Names only, for workflow code (import it inside ``imports_passed_through``); the
activities themselves are :mod:`harness.temporal.activity.hooked`'."""
_SEALED: Final = ("OPERATIONS", "POINTS", "ACTIVITIES", "LOCAL_BY_DEFAULT")


def record(entry: Entry) -> None:
    """Add a row to the live catalogue (what a context class's keywords call).

    Raises:
        TypeError: the operation is in the catalogue already.
    """
    if entry.operation in _ENTRIES:
        raise TypeError(f"operation {entry.operation!r} is in the catalogue already")
    _ENTRIES[entry.operation] = entry
    _POINT_SET.update(f"{entry.operation}.{phase}" for phase in PHASES)


def seal() -> None:
    """Fix the built-in catalogue: the rows recorded now are ``OPERATIONS``, ``POINTS``, ...

    :mod:`harness.hooks.contexts` calls it once every family module has loaded; rows
    recorded afterwards are plugins' (:func:`entries` has them, ``OPERATIONS`` not).
    """
    global OPERATIONS, POINTS, ACTIVITIES, LOCAL_BY_DEFAULT
    _BUILTIN.update(_ENTRIES)
    LOCAL_BY_DEFAULT = frozenset(e.operation for e in _ENTRIES.values() if e.local)
    OPERATIONS = tuple(_ENTRIES)
    POINTS = tuple(f"{op}.{phase}" for op in OPERATIONS for phase in PHASES)
    ACTIVITIES = {e.operation: e.activity for e in _ENTRIES.values() if e.activity is not None}


if not TYPE_CHECKING:  # a type checker reads the declarations above

    def __getattr__(name: str) -> object:
        if name in _SEALED:
            raise ImportError(
                f"harness.hooks.catalogue.{name} is read before every context module has "
                "loaded: import harness.hooks (or harness.hooks.contexts) first"
            )
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def forget_operation(operation: str) -> None:
    """Remove an operation declared at run time, its context class and its default body.

    The undo of a plugin's (or a test's) context class; a built-in row stays.

    Raises:
        ValueError: ``operation`` is a built-in one.
    """
    if operation in _BUILTIN:
        raise ValueError(f"{operation} is a built-in operation; only a run-time one is forgotten")
    if _ENTRIES.pop(operation, None) is not None:
        _POINT_SET.difference_update(f"{operation}.{phase}" for phase in PHASES)
        for forget in _ON_REMOVE:
            forget(operation)


def run_locally(operations: Iterable[str], local: bool = True) -> Callable[[], None]:
    """Set the ``local`` column of ``operations``' rows (issue 27); returns the undo.

    For a worker that runs its short steps as local activities (a plugin, a test). Every
    worker of a task queue must agree: the column decides which commands a workflow
    records, so a task begun under one setting fails its replay under the other.

    Raises:
        UnknownHookPointError: an operation is not in the catalogue.
    """
    before = {op: _ENTRIES[check_operation(op)] for op in operations}
    for op, entry in before.items():
        _ENTRIES[op] = dataclasses.replace(entry, local=local)

    def undo() -> None:
        _ENTRIES.update(before)

    return undo


def on_remove(forget: Callable[[str], None]) -> None:
    """Call ``forget(operation)`` on :func:`forget_operation` (the context and body registries)."""
    _ON_REMOVE.append(forget)


def entries() -> tuple[Entry, ...]:
    """Every row of the live catalogue: the built-in ones, then any a plugin declared."""
    return tuple(_ENTRIES.values())


def points() -> tuple[str, ...]:
    """Every point of the live catalogue, in catalogue order."""
    return tuple(f"{entry.operation}.{phase}" for entry in _ENTRIES.values() for phase in PHASES)


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


def changes_activity_of(operation: str) -> str:
    """The activity that runs ``operation`` and answers with what changed (:func:`changes_name`).

    Raises:
        UnknownHookPointError: the operation is not in the catalogue.
        ValueError: it runs inside another activity (``heartbeat.tick``, ``shutdown``).
    """
    return changes_name(activity_of(operation))


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
