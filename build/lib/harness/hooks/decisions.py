"""What one executor call decided: the word a decision span and the per-executor stats carry.

An executor passes (``None``), rewrites (a replacement), vetoes (a refusal), aborts, asks a
person, times out, fails, or fails open (an ``on_failure = "ignore"`` executor whose failure
was passed over). This module only names and classifies; the watchers that time each call
are :class:`~harness.hooks.monitors.otel.DecisionSpans` and :mod:`.monitors.executor_stats`,
and what runs each call is :mod:`harness.hooks.monitor`'s executor scope.
"""

from __future__ import annotations

from contextvars import ContextVar, Token
from typing import Final, Literal

from harness.hooks.errors import HookAbort, HookTimeoutError, HookTransportError

Decision = Literal["pass", "rewrite", "veto", "abort", "ask", "timeout", "failed-open", "error"]
DECISIONS: Final[tuple[Decision, ...]] = Decision.__args__  # type: ignore[attr-defined]  # Literal keeps its values here

_PASSED_OVER: Final[ContextVar[BaseException | None]] = ContextVar(
    "harness_hooks_passed_over", default=None
)
"""The failure the configured executor being called passed over (``on_failure = "ignore"``).

A ContextVar, not an attribute: concurrent operations each see their own, and the executor is
awaited in its watchers' task, so what it sets there is what they read back. The watched call
starts it empty and restores it when its watchers are done (:func:`watching`), so an operation
nested inside the call cannot leave its own executors' pass-overs for the outer call's."""


def note_passed_over(error: BaseException) -> None:
    """Say that the executor being called failed and was passed over (it returns ``None``).

    Only the failure path pays for it; a watcher, if any, reads it as ``failed-open``.
    """
    _PASSED_OVER.set(error)


def passed_over() -> BaseException | None:
    """The failure the watched call passed over, if any (read after it returned ``None``)."""
    return _PASSED_OVER.get()


def watching() -> Token[BaseException | None]:
    """Start a watched call with nothing passed over; give the token to :func:`watched`."""
    return _PASSED_OVER.set(None)


def watched(token: Token[BaseException | None]) -> None:
    """End a watched call: what was noted before it is back."""
    _PASSED_OVER.reset(token)


def decision_of(
    out: object, error: BaseException | None, passed: BaseException | None = None
) -> Decision:
    """Classify one call: what it returned, or what it raised.

    Args:
        out: what the executor returned (ignored when ``error`` is set).
        error: what it raised, or ``None``.
        passed: the failure it passed over (:func:`passed_over`), for a ``None``.

    Returns:
        ``ask`` / ``veto`` (a refusal) / ``abort`` for a :class:`HookAbort`; ``timeout`` for its
        own deadline or a remote's (a transport error whose cause is a timeout); ``error`` for
        anything else raised; ``rewrite`` for a replacement; ``failed-open`` for a ``None``
        with a failure passed over; ``pass`` otherwise.
    """
    if error is None:
        if out is not None:
            return "rewrite"
        return "pass" if passed is None else "failed-open"
    if isinstance(error, HookAbort):
        return "ask" if error.ask else "veto" if error.refusal else "abort"
    if isinstance(error, HookTimeoutError | TimeoutError):
        return "timeout"
    if isinstance(error, HookTransportError) and error.cause.startswith("timeout"):
        return "timeout"
    return "error"


def reason_of(error: BaseException | None) -> str:
    """The text a decision carries (not yet redacted): an abort's reason, or the error's (the
    raised one, or the one passed over)."""
    if error is None:
        return ""
    if isinstance(error, HookAbort):
        return error.reason
    return f"{type(error).__name__}: {error}"
