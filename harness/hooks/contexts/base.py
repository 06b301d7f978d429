"""The fields every hook context carries: :class:`HookContext`, the base of every context.

A context is a frozen pydantic model: executors return ``ctx.model_copy(update=...)``
or ``None``. Per-operation subclasses live beside this module, one module per operation
family, and each declares its operation's catalogue row with its class keywords: the
class statement records the row (:func:`harness.hooks.catalogue.record`) and the class
(:func:`context_type` maps an operation or point name to it), so the class is the
operation's record and the catalogue a registry that imports no context. The value types
the contexts carry (``TaskRef``, ``Participant``, ``Frozen``, ...) are
:mod:`harness.domain`'s, not defined here.
"""

from __future__ import annotations

import difflib
from typing import Any, ClassVar, Final

from pydantic import Field

from harness.domain import EMPTY, Frozen, FrozenStrMap, Participant, Role, TaskRef
from harness.hooks.catalogue import COLUMNS, PHASES, Entry, check_operation, on_remove, record


class HookContext(Frozen):
    """Fields common to every operation's context (DESIGN.md, "Semantics").

    ``idempotency_key`` stays the same across retries of one operation so that
    executors with side effects can deduplicate; ``attempt`` counts from 1;
    ``lost_workers`` counts how often this attempt was started again because the worker
    running it died or stopped (it may have done its work already: check before
    repeating an effect when ``attempt > 1 or lost_workers``).
    ``result`` is empty until the operation's body sets it; subclasses narrow its type.

    A subclass that names its operation as a class keyword is that operation's context
    and its catalogue row: every other column of :class:`~harness.hooks.catalogue.Entry`
    is a keyword too (``COLUMNS``),
    ``class LlmInvokedContext(HookContext, operation="llm.invoked", calls_model=True)``,
    and ``family`` is the module's name unless given (a class in
    ``harness/hooks/contexts/`` must sit in its family's module). The class statement
    fails, as pluggy's ``check_pending`` does for a hook implementation, on an unknown
    keyword, a column of the wrong shape, an operation that has its class already, or an
    ``unechoed`` that names none of the class's fields. ``operation`` written as an
    attribute in a class body raises ``TypeError``: the keyword is the one form.
    """

    operation: ClassVar[str] = ""
    """The operation this class is the context of (set from the class keyword)."""

    task: TaskRef | None = None
    participants: tuple[Participant, ...] = ()
    entities: FrozenStrMap = EMPTY
    correlation_id: str = ""
    attempt: int = Field(default=1, ge=1)
    lost_workers: int = Field(default=0, ge=0)
    idempotency_key: str = ""
    result: Any = None

    def __init_subclass__(cls, **row: Any) -> None:  # noqa: ANN401  # the row's columns
        # Before pydantic builds the class; the row is recorded once it has its fields
        # (__pydantic_init_subclass__, which pydantic calls with the same keywords).
        if "operation" in cls.__dict__:
            raise TypeError(
                f"{cls.__qualname__}: name the operation as a class keyword, "
                f'class {cls.__name__}(HookContext, operation="..."), not as an attribute'
            )
        unknown = sorted(set(row) - {"operation", *COLUMNS})
        if unknown:
            hints = [difflib.get_close_matches(k, COLUMNS, n=1) for k in unknown]
            said = ", ".join(
                f"{k!r}" + (f" (did you mean {h[0]!r}?)" if h else "")
                for k, h in zip(unknown, hints, strict=True)
            )
            raise TypeError(
                f"{cls.__qualname__}: unknown catalogue column {said}; "
                f"the columns are operation, {', '.join(COLUMNS)}"
            )
        if row and not row.get("operation"):
            raise TypeError(f"{cls.__qualname__}: a row's columns need its operation=")
        super().__init_subclass__()

    @classmethod
    def __pydantic_init_subclass__(cls, **row: Any) -> None:  # noqa: ANN401  # the row's columns
        super().__pydantic_init_subclass__()
        if row:  # a subclass of a context without keywords is not another operation's
            _declare(cls, row)

    def role_of(self, user_id: str) -> Role:
        """The role ``user_id`` holds among this context's participants."""
        for participant in self.participants:
            if participant.user_id == user_id:
                return participant.role
        return Role.NONE


CONTEXT_TYPES: Final[dict[str, type[HookContext]]] = {}
"""Operation -> context class, filled as each context class is defined."""


def _declare(cls: type[HookContext], row: dict[str, Any]) -> None:
    """Record ``cls``'s row and ``cls`` as its operation's context, or neither.

    Raises:
        TypeError: a column of the wrong shape, an operation that has its class already,
            a class outside its family's module of this package, or an ``unechoed`` that
            names no field of ``cls``.
    """
    package, _, module = cls.__module__.rpartition(".")
    home = package == __package__
    family = row.pop("family", "") or module
    entry = Entry(family=family, **row)
    known = CONTEXT_TYPES.get(entry.operation)
    if known is not None:
        raise TypeError(f"{entry.operation} has a context class already: {known.__qualname__}")
    if home and module != family:
        raise TypeError(
            f"{cls.__qualname__}: the context of {entry.operation} belongs in "
            f"harness/hooks/contexts/{family}.py"
        )
    unknown = sorted(set(entry.unechoed) - set(cls.model_fields))
    if unknown:
        raise TypeError(
            f"{cls.__qualname__}: {entry.operation}'s unechoed names no field: {', '.join(unknown)}"
        )
    record(entry)
    cls.operation = entry.operation
    CONTEXT_TYPES[entry.operation] = cls


def _forget(operation: str) -> None:
    """Drop the class of an operation :func:`~harness.hooks.catalogue.forget_operation` removed."""
    CONTEXT_TYPES.pop(operation, None)


on_remove(_forget)


def context_type(name: str) -> type[HookContext]:
    """The context class of an operation, or of a point (``'tool.invoked.pre'``).

    Raises:
        UnknownHookPointError: the name is neither an operation nor a point.
    """
    cls = CONTEXT_TYPES.get(name)
    if cls is not None:
        return cls
    operation, dot, phase = name.rpartition(".")
    if dot and phase in PHASES and operation in CONTEXT_TYPES:
        return CONTEXT_TYPES[operation]
    return CONTEXT_TYPES[check_operation(name)]
