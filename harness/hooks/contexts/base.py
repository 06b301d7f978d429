"""The fields every hook context carries: :class:`HookContext`, the base of every context.

A context is a frozen pydantic model: executors return ``ctx.model_copy(update=...)``
or ``None``. Per-operation subclasses live beside this module, one per operation
family; :func:`harness.hooks.contexts.context_type` maps names to them. The value types
the contexts carry (``TaskRef``, ``Participant``, ``Frozen``, ...) are
:mod:`harness.domain`'s, not defined here.
"""

from __future__ import annotations

from typing import Any, ClassVar

from pydantic import Field

from harness.domain import EMPTY, Frozen, FrozenStrMap, Participant, Role, TaskRef
from harness.hooks.catalogue import register_context


class HookContext(Frozen):
    """Fields common to every operation's context (DESIGN.md, "Semantics").

    ``idempotency_key`` stays the same across retries of one operation so that
    executors with side effects can deduplicate; ``attempt`` counts from 1;
    ``lost_workers`` counts how often this attempt was started again because the worker
    running it died or stopped (it may have done its work already: check before
    repeating an effect when ``attempt > 1 or lost_workers``).
    ``result`` is empty until the operation's body sets it; subclasses narrow its type.
    A subclass that declares its ``operation`` is that operation's context: it registers
    itself in the catalogue (:func:`harness.hooks.catalogue.context_type` finds it).
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
