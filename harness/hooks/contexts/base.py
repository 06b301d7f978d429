"""The fields every hook context carries: :class:`HookContext`, the base of every context.

A context is a frozen pydantic model: executors return ``ctx.model_copy(update=...)``
or ``None``. Per-operation subclasses live beside this module, one per operation
family, and register themselves here as they are defined: :func:`context_type` maps an
operation or point name to its class (this registry, not the catalogue, knows the classes,
so the catalogue stays a table that imports no context). The value types
the contexts carry (``TaskRef``, ``Participant``, ``Frozen``, ...) are
:mod:`harness.domain`'s, not defined here.
"""

from __future__ import annotations

from typing import Any, ClassVar, Final

from pydantic import Field

from harness.domain import EMPTY, Frozen, FrozenStrMap, Participant, Role, TaskRef
from harness.hooks.catalogue import PHASES, check_operation, on_remove


class HookContext(Frozen):
    """Fields common to every operation's context (DESIGN.md, "Semantics").

    ``idempotency_key`` stays the same across retries of one operation so that
    executors with side effects can deduplicate; ``attempt`` counts from 1;
    ``lost_workers`` counts how often this attempt was started again because the worker
    running it died or stopped (it may have done its work already: check before
    repeating an effect when ``attempt > 1 or lost_workers``).
    ``result`` is empty until the operation's body sets it; subclasses narrow its type.
    A subclass that declares its ``operation`` is that operation's context: it registers
    itself (:func:`context_type` finds it).
    """

    operation: ClassVar[str] = ""

    task: TaskRef | None = None
    participants: tuple[Participant, ...] = ()
    entities: FrozenStrMap = EMPTY
    correlation_id: str = ""
    attempt: int = Field(default=1, ge=1)
    lost_workers: int = Field(default=0, ge=0)
    idempotency_key: str = ""
    result: Any = None

    @classmethod
    def __pydantic_init_subclass__(cls, **kwargs: Any) -> None:  # noqa: ANN401  # pydantic's hook
        super().__pydantic_init_subclass__(**kwargs)
        if "operation" in cls.__dict__:  # a subclass of a context is not another operation's
            register_context(cls)

    def role_of(self, user_id: str) -> Role:
        """The role ``user_id`` holds among this context's participants."""
        for participant in self.participants:
            if participant.user_id == user_id:
                return participant.role
        return Role.NONE


CONTEXT_TYPES: Final[dict[str, type[HookContext]]] = {}
"""Operation -> context class, filled as each context class is defined."""


def _forget(operation: str) -> None:
    """Drop the class of an operation whose :func:`~harness.hooks.catalogue.extend` was undone."""
    CONTEXT_TYPES.pop(operation, None)


on_remove(_forget)


def register_context(cls: type[HookContext]) -> None:
    """Record ``cls`` as the context of its ``operation`` (``HookContext`` calls this).

    Raises:
        UnknownHookPointError: the operation is not in the catalogue.
        TypeError: the operation has a context class already.
    """
    operation = check_operation(cls.operation)
    known = CONTEXT_TYPES.get(operation)
    if known is not None:
        raise TypeError(f"{operation} has a context class already: {known.__qualname__}")
    CONTEXT_TYPES[operation] = cls


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
