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
from harness.hooks.catalogue import PHASES, check_operation, entries, entry_of, on_remove


class HookContext(Frozen):
    """Fields common to every operation's context (DESIGN.md, "Semantics").

    ``idempotency_key`` stays the same across retries of one operation so that
    executors with side effects can deduplicate; ``attempt`` counts from 1;
    ``lost_workers`` counts how often this attempt was started again because the worker
    running it died or stopped (it may have done its work already: check before
    repeating an effect when ``attempt > 1 or lost_workers``).
    ``result`` is empty until the operation's body sets it; subclasses narrow its type.
    A subclass that names its operation as a class keyword,
    ``class ThingDoneContext(HookContext, operation="thing.done")``, is that operation's
    context: it registers itself (:func:`context_type` finds it), and an operation the
    catalogue does not hold raises there and then. That keyword is the one form: a
    ``operation`` attribute written in a class body raises ``TypeError``.
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

    def __init_subclass__(cls, *, operation: str = "", **kwargs: Any) -> None:  # noqa: ANN401  # the class keywords pydantic passes on
        # Before pydantic builds the class: a misspelt or duplicate operation fails here,
        # at the class statement, as pluggy's check_pending does for a hook implementation.
        if "operation" in cls.__dict__:
            raise TypeError(
                f"{cls.__qualname__}: name the operation as a class keyword, "
                f'class {cls.__name__}(HookContext, operation="..."), not as an attribute'
            )
        super().__init_subclass__(**kwargs)
        if operation:  # a subclass of a context without the keyword is not another operation's
            cls.operation = operation
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
        TypeError: the operation has a context class already, or its class is in another
            family's module of this package than its row says.
    """
    operation = check_operation(cls.operation)
    package, _, module = cls.__module__.rpartition(".")
    family = entry_of(operation).family
    if package == __package__ and module != family:
        raise TypeError(
            f"{cls.__qualname__}: the context of {operation} belongs in "
            f"harness/hooks/contexts/{family}.py"
        )
    known = CONTEXT_TYPES.get(operation)
    if known is not None:
        raise TypeError(f"{operation} has a context class already: {known.__qualname__}")
    CONTEXT_TYPES[operation] = cls


def check_contexts() -> None:
    """Raise unless every row of the live catalogue has its context class.

    Raises:
        TypeError: naming each row without one (define it, with its class keyword, in
            ``harness/hooks/contexts/<family>.py``), or a row whose ``unechoed`` names a
            field its context does not have.
    """
    missing = [f"{e.operation} ({e.family})" for e in entries() if e.operation not in CONTEXT_TYPES]
    if missing:
        raise TypeError(f"catalogue rows without a context class: {', '.join(missing)}")
    for entry in entries():
        unknown = set(entry.unechoed) - set(CONTEXT_TYPES[entry.operation].model_fields)
        if unknown:
            raise TypeError(f"{entry.operation}'s unechoed names no field: {', '.join(unknown)}")


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
    operation = check_operation(name)
    if operation not in CONTEXT_TYPES:
        check_contexts()
    return CONTEXT_TYPES[operation]
