"""Errors of the hook mechanism; the tree is drawn in :mod:`harness.errors`.

Constructors take typed keyword fields and build the message from them, so the
text that reaches a log, a Slack reply or Temporal's history is always complete.
"""

from __future__ import annotations

from harness.errors import HarnessError


class HookError(HarnessError):
    """Base class for errors of the hook mechanism."""


class HookAbort(HookError):
    """Raised by an executor to cancel the operation.

    ``refusal`` says the operation was refused on purpose (policy, permissions),
    as opposed to abandoned because something is wrong; callers turn a refusal
    into a ``refused: <reason>`` reply and anything else into a failure. ``point``
    and ``executor`` are filled in by the manager when the executor left them out.

    ``ask`` is the hook contract for "ask a person" (issue 14): a ``tool.invoked`` pre
    executor that neither allows nor denies a call raises ``HookAbort(reason, ask=True,
    timeout_seconds=N)``. The agent loop then asks the task's deciders and runs the call
    again with their approval on the context (``ToolInvokedContext.approval``); where
    nobody can be asked, or at any other point, an ask is a refusal (``refusal`` is
    always true for it). ``timeout_seconds`` is how long to wait for an answer (0: until
    answered).
    """

    def __init__(
        self,
        reason: str,
        *,
        refusal: bool = False,
        point: str | None = None,
        executor: str | None = None,
        ask: bool = False,
        timeout_seconds: float = 0.0,
    ) -> None:
        self.reason = reason
        self.refusal = refusal or ask
        self.point = point
        self.executor = executor
        self.ask = ask
        self.timeout_seconds = max(float(timeout_seconds), 0.0)
        super().__init__(reason)

    def __str__(self) -> str:
        where = f" at {self.point}" if self.point else ""
        who = f" by {self.executor}" if self.executor else ""
        kind = "asked" if self.ask else "refused" if self.refusal else "aborted"
        return f"{kind}{where}{who}: {self.reason}"

    def __reduce__(self) -> tuple[object, ...]:
        return (
            _rebuild_abort,
            (self.reason, self.refusal, self.point, self.executor, self.ask, self.timeout_seconds),
        )


def _rebuild_abort(
    reason: str,
    refusal: bool,
    point: str | None,
    executor: str | None,
    ask: bool = False,
    timeout_seconds: float = 0.0,
) -> HookAbort:
    return HookAbort(
        reason,
        refusal=refusal,
        point=point,
        executor=executor,
        ask=ask,
        timeout_seconds=timeout_seconds,
    )


class HookTransportError(HookError):
    """A remote executor failed: unreachable, too slow, or answered out of contract.

    Never swallowed: the operation fails, so Temporal's retry path and
    ``activity.failed`` run. ``cause`` is already redacted (it ends up in history).
    """

    def __init__(self, *, point: str, endpoint: str, cause: str, executor: str = "") -> None:
        self.point = point
        self.endpoint = endpoint
        self.cause = cause
        self.executor = executor
        """The registration's name (``<configured name>#<point>``), set by the chain."""
        super().__init__(f"remote executor {endpoint} failed at {point}: {cause}")

    def __reduce__(self) -> tuple[object, ...]:
        return (_rebuild_transport, (self.point, self.endpoint, self.cause))


def _rebuild_transport(point: str, endpoint: str, cause: str) -> HookTransportError:
    return HookTransportError(point=point, endpoint=endpoint, cause=cause)


class HookValidationError(HookError):
    """An executor returned something that is not a valid context for its point."""

    def __init__(self, *, point: str, executor: str, detail: str) -> None:
        self.point = point
        self.executor = executor
        self.detail = detail
        super().__init__(f"executor {executor} at {point} returned an invalid context: {detail}")

    @property
    def retryable(self) -> bool:
        """No: the same executor returns the same invalid context on every attempt."""
        return False

    def __reduce__(self) -> tuple[object, ...]:
        return (_rebuild_validation, (self.point, self.executor, self.detail))


def _rebuild_validation(point: str, executor: str, detail: str) -> HookValidationError:
    return HookValidationError(point=point, executor=executor, detail=detail)


class UnknownHookPointError(HookError, ValueError):
    """A point or operation name that is not in the catalogue."""

    def __init__(self, *, name: str, hint: str = "") -> None:
        self.name = name
        extra = f"; did you mean {hint!r}?" if hint else ""
        super().__init__(
            f"unknown hook point {name!r}: expected '<operation>.<phase>' with an operation "
            f"from the catalogue and a phase in pre, in, post{extra}"
        )

    @property
    def retryable(self) -> bool:
        """No: the name is wrong in code or configuration, and stays wrong."""
        return False

    def __reduce__(self) -> tuple[object, ...]:
        return (_rebuild_unknown, (self.name,))


def _rebuild_unknown(name: str) -> UnknownHookPointError:
    return UnknownHookPointError(name=name)


class HookTimeoutError(HookError, TimeoutError):
    """An executor, or a whole chain, ran past the time configured for it (issue 6).

    ``scope`` is ``"executor"`` (its own timeout) or ``"chain"`` (the point's overall
    budget); either way the operation fails, through the retry path like any failure.
    """

    def __init__(self, *, point: str, scope: str, seconds: float, executor: str = "") -> None:
        self.point = point
        self.scope = scope
        self.seconds = seconds
        self.executor = executor
        who = f"executor {executor}" if scope == "executor" else "the chain"
        super().__init__(f"{who} at {point} exceeded its time budget of {seconds:g}s")

    def __reduce__(self) -> tuple[object, ...]:
        return (_rebuild_timeout, (self.point, self.scope, self.seconds, self.executor))


def _rebuild_timeout(point: str, scope: str, seconds: float, executor: str) -> HookTimeoutError:
    return HookTimeoutError(point=point, scope=scope, seconds=seconds, executor=executor)


class HookConfigError(HookError, ValueError):
    """The executor configuration file is wrong; nothing from it was registered.

    ``problems`` holds one line per problem, each naming the line (when known), the
    entry and the field, so an operator fixes them all in one pass.
    """

    def __init__(self, *, source: str, problems: list[str]) -> None:
        self.source = source
        self.problems = problems
        listing = "\n".join(f"  - {p}" for p in problems)
        super().__init__(f"invalid hooks configuration {source}:\n{listing}")

    @property
    def retryable(self) -> bool:
        """No: the file stays wrong until an operator fixes it."""
        return False

    def __reduce__(self) -> tuple[object, ...]:
        return (_rebuild_config, (self.source, self.problems))


def _rebuild_config(source: str, problems: list[str]) -> HookConfigError:
    return HookConfigError(source=source, problems=problems)
