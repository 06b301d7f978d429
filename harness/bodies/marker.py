"""The default-body marker: ``@body(ThingDoneContext)`` on a method of a :class:`Bodies` class.

A family's bodies are one class, a subclass of :class:`Bodies`, in
``harness/bodies/<family>.py``; each method marked with :func:`body` is the default body
of the marked context's operation. Subclassing collects the class and its marked methods
(the marker names a context class, so a misspelt operation is a ``NameError`` and a
context the catalogue does not hold failed at its own class statement); a second body for
one operation, a body of a row that says it has none, or a body outside its row's family
module raises there and then.
:func:`check_bodies` is the other half of pluggy's ``check_pending``: every row that says
``body`` has one (run when :mod:`harness.bodies` is imported, and by
:func:`~harness.bodies.defaults.register_defaults`). How each class is built from a
worker's dependencies is its :meth:`Bodies.wired`.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final, Self, TypeVar

from harness.hooks import HookContext, entries, entry_of, on_remove

if TYPE_CHECKING:
    from harness.bodies.deps import BodyDeps
    from harness.channels.streams import Streams
    from harness.hooks import HookManager

C = TypeVar("C", bound=HookContext)
S = TypeVar("S")

MARK: Final = "__default_body_of__"
"""Attribute a marked method carries: the operation it is the default body of."""

BODIES: Final[dict[str, tuple[type[Bodies], str]]] = {}
"""Operation -> (its bodies class, the method's name), filled as each class is defined."""


def body(
    context: type[C],
) -> Callable[[Callable[[S, C], Awaitable[C]]], Callable[[S, C], Awaitable[C]]]:
    """Mark a :class:`Bodies` method as the default body of ``context``'s operation.

    Raises:
        TypeError: ``context`` is not an operation's context class.
    """
    if not context.operation:
        raise TypeError(f"{context.__qualname__} is not the context of an operation")
    operation = context.operation

    def mark(method: Callable[[S, C], Awaitable[C]]) -> Callable[[S, C], Awaitable[C]]:
        setattr(method, MARK, operation)
        return method

    return mark


@dataclass(frozen=True, slots=True)
class Wiring:
    """What a bodies class is built from: the worker's manager and dependencies.

    Attributes:
        manager: where the bodies are registered (named agents run their loops through it).
        deps: what the bodies need.
        streams: the Slack streams the channel bodies and the progress reporter share.
    """

    manager: HookManager
    deps: BodyDeps
    streams: Streams


class Bodies:
    """Base of a family's default bodies: a subclass is collected with its marked methods."""

    def __init_subclass__(cls, **kwargs: Any) -> None:  # noqa: ANN401  # class keywords
        super().__init_subclass__(**kwargs)
        found: dict[str, tuple[type[Bodies], str]] = {}  # all checked before any is recorded
        for name, value in vars(cls).items():
            operation = getattr(value, MARK, None)
            if operation is None:
                continue
            entry = entry_of(operation)
            family = entry.family
            if not entry.body:
                raise TypeError(f"{operation}'s row says it has no default body (body=False)")
            home = cls.__module__.rpartition(".")
            if home[0] == "harness.bodies" and home[2] != family:
                raise TypeError(
                    f"{cls.__qualname__}.{name}: the body of {operation} belongs in "
                    f"harness/bodies/{family}.py"
                )
            known = BODIES.get(operation) or found.get(operation)
            if known is not None:
                raise TypeError(
                    f"{operation} has a default body already: {known[0].__qualname__}.{known[1]}"
                )
            found[operation] = (cls, name)
        BODIES.update(found)

    @classmethod
    def wired(cls, wiring: Wiring) -> Self:
        """Build the bodies from a worker's wiring (override when they need any of it)."""
        return cls()


def check_bodies() -> None:
    """Raise unless every live row that says ``body`` has its default body.

    Raises:
        TypeError: naming each row without one (mark a method of a :class:`Bodies`
            subclass in ``harness/bodies/<family>.py`` with ``@body(<Op>Context)``).
    """
    missing = [
        f"{e.operation} ({e.family})" for e in entries() if e.body and e.operation not in BODIES
    ]
    if missing:
        raise TypeError(f"catalogue rows without a default body: {', '.join(missing)}")


def _forget(operation: str) -> None:
    """Drop the body of an operation :func:`~harness.hooks.catalogue.forget_operation` removed."""
    BODIES.pop(operation, None)


on_remove(_forget)
