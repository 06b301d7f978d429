"""The role guard and the identity seal: who may run which command, and that nobody changes who.

The guard is the built-in ``command.invoked.pre`` executor at
``ROLE_GUARD_PRIORITY`` (DESIGN.md "command.invoked"): it refuses a sender with no
role, a watcher's mutating commands with arguments, and anyone but the owner on
owner-only commands. It trusts ``ctx.role`` because the workflow derived it from its
own participants; :class:`IdentitySeal` makes sure no executor changed it since.
"""

from __future__ import annotations

from collections import OrderedDict
from typing import Any, Final, final

from commands.spec import CommandSpec, Registry
from harness import replies
from harness.domain import Role
from harness.hooks import HookAbort, HookContext
from harness.hooks.contexts import CommandInvokedContext
from harness.replies.umbrella import command_name

SEAL_PRIORITY: Final = -(2**62)
"""Runs before any executor anyone would register, so it sees the workflow's context."""

SEAL_CHECK_PRIORITY: Final = 99
"""Right before the guard, so the guard never judges a forged role."""

SEAL_CLOSE_PRIORITY: Final = 2**62
"""Last on post, so a role changed between the guard and the reply is caught too."""


def refusal(spec: CommandSpec[Any], role: Role, args: str) -> str | None:
    """Why ``role`` may not run ``spec`` with ``args``, or ``None`` if it may.

    Also used by ``/help`` to list, per role, what each person can do.
    """
    with_args = bool(args.strip())
    if role is Role.NONE and not spec.open_to_all:
        return replies.not_a_participant()
    if spec.owner_only and role is not Role.OWNER and (with_args or not spec.bare_is_read_only):
        return replies.owner_only(spec.invocation)
    if role is Role.WATCHER and spec.mutating and (with_args or not spec.bare_is_read_only):
        form = f"{spec.invocation} …" if spec.bare_is_read_only else spec.invocation
        return replies.watchers_look(form)
    return None


@final
class RoleGuard:
    """``command.invoked.pre`` executor refusing what :func:`refusal` refuses.

    Args:
        commands: the registry by name; commands it does not know pass (the runner
            answers "unknown command"), except that a sender with no role is refused.
    """

    name: Final = "commands.guard.RoleGuard"

    def __init__(self, commands: Registry) -> None:
        self.commands = dict(commands)

    async def __call__(self, ctx: HookContext, /) -> HookContext | None:
        """Raise a refusal or pass through.

        Raises:
            HookAbort: ``refusal=True``, with the reason the reply shows.
        """
        if not isinstance(ctx, CommandInvokedContext):
            return None
        spec = self.commands.get(command_name(ctx.command))
        if spec is None:
            if ctx.role is Role.NONE:
                raise HookAbort(replies.NOT_IN_TASK, refusal=True)
            return None
        reason = refusal(spec, ctx.role, ctx.args)
        if reason is not None:
            raise HookAbort(reason, refusal=True)
        return None


def _identity(ctx: CommandInvokedContext) -> tuple[object, ...]:
    snapshot_people = ctx.snapshot.participants if ctx.snapshot else ()
    return (ctx.sender, ctx.role, ctx.participants, snapshot_people, ctx.task)


@final
class IdentitySeal:
    """Records who sent a command as the workflow said, and refuses any change to it.

    Why not trust the guard alone: an executor running before it could set
    ``role="owner"``, and one between the guard and the body could too. The seal
    opens first (:data:`SEAL_PRIORITY`) with the workflow's own context, is checked
    right before the guard and once more last on post; a mismatch or a missing seal
    is a refusal, so no effect of an escalated run is ever applied. The seals of one
    operation are keyed by its correlation id, idempotency key and attempt; an
    executor that changes those breaks its own seal and is refused the same way.
    """

    name: Final = "commands.guard.IdentitySeal"

    def __init__(self, capacity: int = 4096) -> None:
        self._open: OrderedDict[tuple[str, str, int], tuple[object, ...]] = OrderedDict()
        self.capacity = capacity

    def opener(self) -> _SealStep:
        """The pre executor recording the identity."""
        return _SealStep(self, "open")

    def checker(self) -> _SealStep:
        """The pre executor comparing before the guard."""
        return _SealStep(self, "check")

    def closer(self) -> _SealStep:
        """The post executor comparing last and forgetting the seal."""
        return _SealStep(self, "close")

    def step(self, phase: str, ctx: CommandInvokedContext) -> None:
        """Open, check or close the seal of ``ctx``.

        Raises:
            HookAbort: ``refusal=True`` when the identity changed or the seal is gone.
        """
        key = (ctx.correlation_id, ctx.idempotency_key, ctx.attempt)
        if phase == "open":
            self._open[key] = _identity(ctx)
            while len(self._open) > self.capacity:
                self._open.popitem(last=False)
            return
        sealed = self._open.pop(key, None) if phase == "close" else self._open.get(key)
        if sealed is None or sealed != _identity(ctx):
            self._open.pop(key, None)
            raise HookAbort(replies.SEAL_BROKEN, refusal=True)

    def abandon(self, point: str, ctx: HookContext, error: BaseException) -> None:
        """Forget the seal of an operation that failed (AbandonObserver)."""
        if isinstance(ctx, CommandInvokedContext):
            self._open.pop((ctx.correlation_id, ctx.idempotency_key, ctx.attempt), None)

    def __len__(self) -> int:
        return len(self._open)


@final
class _SealStep:
    __slots__ = ("name", "phase", "seal")

    def __init__(self, seal: IdentitySeal, phase: str) -> None:
        self.seal = seal
        self.phase = phase
        self.name = f"commands.guard.IdentitySeal.{phase}"

    async def __call__(self, ctx: HookContext, /) -> HookContext | None:
        if isinstance(ctx, CommandInvokedContext):
            self.seal.step(self.phase, ctx)
        return None

    def abandon(self, point: str, ctx: HookContext, error: BaseException) -> None:
        if self.phase == "open":
            self.seal.abandon(point, ctx, error)
