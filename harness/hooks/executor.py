"""What can run at a hook point: the executor and observer protocols, and registration handles.

Executors are structural (like httpx transports): any async callable
``(ctx) -> ctx | None`` qualifies, local function or remote proxy alike.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Protocol, TypeVar, final, runtime_checkable

from harness.hooks.contexts import HookContext

C = TypeVar("C", bound=HookContext)


class Executor(Protocol):
    """An async callable taking the context and returning a replacement or ``None``."""

    async def __call__(self, ctx: HookContext, /) -> HookContext | None: ...


@runtime_checkable
class AbandonObserver(Protocol):
    """A pre executor that opened something (a span, a lock) and must hear when the body failed.

    Called synchronously by :meth:`HookManager.abandon`; what it raises is logged
    and suppressed, so one broken observer cannot hide the operation's own error.
    """

    def abandon(self, point: str, ctx: HookContext, error: BaseException) -> None: ...


def executor_name(executor: object) -> str:
    """A readable name for logs and errors: ``name`` attribute, qualified name, or class name."""
    name = getattr(executor, "name", None)
    if isinstance(name, str) and name:
        return name
    qualname = getattr(executor, "__qualname__", None)
    if isinstance(qualname, str):
        module = getattr(executor, "__module__", "")
        return f"{module}.{qualname}" if module else qualname
    return type(executor).__qualname__


Applies = Callable[[HookContext], bool]
"""Whether an executor runs for a context: a hooks file entry's ``match``, as a predicate."""


def applies_of(executor: object) -> Applies | None:
    """What tells whether ``executor`` runs for a context, or ``None`` when it runs for every one.

    An entry of the hooks file with a ``match`` (and a mode wrapper around one) has an
    ``applies`` predicate; a call it does not apply to passes without running. Watchers ask
    first (:mod:`harness.hooks.monitor`), so such a call makes no decision span and no stats
    call (issue 28): it never happened.
    """
    applies = getattr(executor, "applies", None)
    return applies if callable(applies) else None


def executor_kind(executor: object) -> str:
    """``local``, ``jsonrpc`` or ``mcp``, looking through mode and configuration wrappers.

    Where listings (``python -m harness.hooks list``) and decision traces read the kind from.
    """
    while True:
        kind = getattr(executor, "kind", None)
        if isinstance(kind, str):
            return kind
        inner = getattr(executor, "inner", None)
        if inner is None:
            break
        executor = inner
    name = type(executor).__name__
    return {"JsonRpcExecutor": "jsonrpc", "McpExecutor": "mcp"}.get(name, "local")


@final
class Registration:
    """Handle returned by :meth:`HookManager.register`; pass it to ``unregister``."""

    __slots__ = ("executor", "mode", "name", "point", "priority", "rank", "sequence")

    def __init__(
        self,
        point: str,
        executor: Executor,
        priority: int,
        sequence: int,
        name: str,
        mode: str = "normal",
        rank: int = 0,
    ) -> None:
        self.point = point
        self.executor = executor
        self.priority = priority
        self.sequence = sequence
        self.name = name
        self.mode = mode
        self.rank = rank

    @property
    def sort_key(self) -> tuple[int, int, int]:
        """Validators (rank 1) last, then lower priority first, then registration order."""
        return (self.rank, self.priority, self.sequence)

    def __repr__(self) -> str:
        mode = "" if self.mode == "normal" else f" mode={self.mode}"
        return f"<Registration {self.point} priority={self.priority}{mode} {self.name}>"


def check_shape(executor: object, point: str, name: str) -> None:
    """Refuse at registration what would fail, or silently do nothing, at the first call."""
    if isinstance(executor, AbandonObserver) and inspect.iscoroutinefunction(executor.abandon):
        raise TypeError(
            f"executor {name} for {point}: abandon must be a plain def, not async def; the "
            "manager calls it from finally blocks and cancellation and never awaits it"
        )
    try:
        signature = inspect.signature(executor)  # type: ignore[arg-type]  # any callable
    except (TypeError, ValueError):  # no signature to read (a builtin): the call will tell
        return
    try:
        signature.bind(object())
    except TypeError:
        raise TypeError(
            f"executor {name} for {point} must take one argument, the context; "
            f"its signature is {signature}"
        ) from None


def is_async_callable(obj: object) -> bool:
    """Whether ``obj`` is an ``async def`` or an object with an async ``__call__``."""
    if inspect.iscoroutinefunction(obj):
        return True
    call = getattr(obj, "__call__", None)  # noqa: B004  # objects with an async __call__ qualify
    return call is not None and inspect.iscoroutinefunction(call)
