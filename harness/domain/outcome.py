"""Outcome: what performing one operation came to, as one value the caller reads.

``Done`` (the context after post), ``Refused`` (an executor said no: who, where, why),
``Asked`` (an executor wants a person to approve first, with how long to wait) or
``Failed`` (the operation could not be performed: retryable or final, and its cause).
A veto is an answer, not an exception re-wrapped at every layer (STYLE rule 17): the
activity returns ``Refused``/``Asked`` as its result, the workflow, the agent loop and the
command step read them, and only :mod:`harness.replies` words them for people.
Plain values (no hooks, no Temporal), so every layer and the workflow sandbox may use them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Generic, Literal, Protocol, TypeAlias, TypeVar

from harness.domain.frozen import Frozen

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class Done(Generic[T]):
    """The operation ran: ``context`` is its output (after pre, in and post)."""

    context: T


class Refused(Frozen):
    """An executor cancelled the operation (a ``HookAbort``), as the activity's result.

    ``deliberate`` is the abort's ``refusal`` flag: refused on purpose (policy, roles) rather
    than abandoned because something is wrong. ``point`` and ``executor`` are for logs and
    the status view's detail; a person never reads them.
    """

    outcome: Literal["refused"] = "refused"
    reason: str
    point: str = ""
    executor: str = ""
    deliberate: bool = True

    @property
    def on_purpose(self) -> bool:
        """A refusal rather than a failure: flagged so, or any abort of a pre executor."""
        return self.deliberate or self.point.endswith(".pre")


class Asked(Frozen):
    """An executor wants a person's approval first (``HookAbort(ask=True)``)."""

    outcome: Literal["asked"] = "asked"
    reason: str
    point: str = ""
    executor: str = ""
    timeout_seconds: float = 0.0
    """How long to wait for an answer (0: until answered)."""

    @property
    def on_purpose(self) -> bool:
        """Always: where nobody can be asked, an ask is a refusal."""
        return True


class Failed(Frozen):
    """The operation could not be performed: the last attempt's cause and whether to stop.

    ``error_type`` and ``error_message`` are technical (logs, the status view);
    ``user_message`` is the error's own human sentence, if it has one, and ``service``
    names the hook service that could not be reached (a transport failure), never its
    address.
    """

    outcome: Literal["failed"] = "failed"
    operation: str
    attempt: int = 1
    retryable: bool = False
    error_type: str = ""
    error_message: str = ""
    user_message: str = ""
    service: str = ""
    reason: str = ""
    """Why it stopped (the ``activity.failed`` decision), for logs."""

    @property
    def final(self) -> bool:
        """Retrying cannot help (the error says so)."""
        return not self.retryable


Stopped: TypeAlias = Refused | Asked
"""What an activity returns instead of its context when an executor aborted."""

Outcome: TypeAlias = Done[T] | Refused | Asked | Failed
"""What performing an operation came to."""


class AbortFacts(Protocol):
    """What :func:`stopped` reads of an abort (``harness.hooks.HookAbort`` has it)."""

    reason: str
    refusal: bool
    point: str | None
    executor: str | None
    ask: bool
    timeout_seconds: float


def stopped(abort: AbortFacts) -> Stopped:
    """The value an abort becomes: ``Asked`` for an ask, else ``Refused``.

    The one translation of an abort (its reason already redacted by the manager).
    """
    if abort.ask:
        return Asked(
            reason=abort.reason,
            point=abort.point or "",
            executor=abort.executor or "",
            timeout_seconds=abort.timeout_seconds,
        )
    return Refused(
        reason=abort.reason,
        point=abort.point or "",
        executor=abort.executor or "",
        deliberate=abort.refusal,
    )
