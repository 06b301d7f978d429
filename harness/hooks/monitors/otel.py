"""Tracing as ordinary executors: a span per operation, opened in pre, closed in post or abandon.

One :class:`TracingExecutor` sits at every operation's pre point first
(:data:`OUTERMOST_PRIORITY`) and at its post point last (a validator at
:data:`INNERMOST_PRIORITY`, so after other validators too); when the body or any
executor fails, :meth:`HookManager.abandon` reaches it as an :class:`AbandonObserver`,
so no span is left open (issue 6). A task lives for days across workers, so it has no
span of its own: its trace id and a virtual parent span id are derived from the task
id, and every operation of the task nests under them. Nothing here is in the chain
loop (STYLE rule 4); spans carry ids and redacted reasons only, never context data.
"""

from __future__ import annotations

import contextvars
import hashlib
from typing import Final, final

from opentelemetry import trace
from opentelemetry.trace import (
    NonRecordingSpan,
    Span,
    SpanContext,
    SpanKind,
    Status,
    StatusCode,
    TraceFlags,
    Tracer,
    TracerProvider,
)

from harness.hooks.catalogue import INNERMOST_PRIORITY, OPERATIONS, OUTERMOST_PRIORITY
from harness.hooks.contexts import HookContext
from harness.hooks.errors import HookAbort
from harness.hooks.executor import Registration
from harness.hooks.manager import HookManager
from harness.hooks.redactor import Redactor

TRACER_NAME: Final = "harness.hooks"

# The spans open in this task, innermost last: post and abandon close the top one of
# their operation. A ContextVar, because the pre and post executors of one run are
# awaited in the same asyncio task, while concurrent operations run in other tasks.
_OPEN: contextvars.ContextVar[tuple[tuple[str, Span], ...]] = contextvars.ContextVar(
    "harness_hook_spans", default=()
)


def task_span_context(task_id: str) -> SpanContext:
    """The virtual parent of every span of ``task_id``: same trace id and span id on every worker.

    Args:
        task_id: the task's workflow id.

    Returns:
        A remote, sampled span context derived from a SHA-256 of the task id.
    """
    digest = hashlib.sha256(task_id.encode()).digest()
    trace_id = int.from_bytes(digest[:16], "big") or 1
    span_id = int.from_bytes(digest[16:24], "big") or 1
    return SpanContext(
        trace_id=trace_id, span_id=span_id, is_remote=True,
        trace_flags=TraceFlags(TraceFlags.SAMPLED),
    )  # fmt: skip


@final
class TracingExecutor:
    """Opens a span at an operation's pre point and closes it at its post point or on abandon.

    Args:
        tracer: where spans go.
        redactor: scrubs abort reasons and error texts put on spans.
    """

    name = "tracing"

    def __init__(self, tracer: Tracer, redactor: Redactor) -> None:
        self.tracer = tracer
        self.redactor = redactor

    async def open(self, ctx: HookContext) -> None:
        """The pre executor: start the operation's span under the enclosing one or the task's."""
        operation = type(ctx).operation
        stack = _OPEN.get()
        if stack:
            parent = trace.set_span_in_context(stack[-1][1])
        elif ctx.task is not None:
            parent = trace.set_span_in_context(
                NonRecordingSpan(task_span_context(ctx.task.task_id))
            )
        else:
            parent = None
        span = self.tracer.start_span(
            operation,
            context=parent,
            kind=SpanKind.INTERNAL,
            attributes={
                "harness.operation": operation,
                "harness.point": f"{operation}.pre",
                "harness.task_id": self.redactor.redact_text(ctx.task.task_id) if ctx.task else "",
                "harness.correlation_id": ctx.correlation_id,
                "harness.attempt": ctx.attempt,
            },
        )
        _OPEN.set((*stack, (operation, span)))

    async def close(self, ctx: HookContext) -> None:
        """The post executor (last of all): the operation succeeded."""
        span = self._pop(type(ctx).operation)
        if span is not None:
            span.set_attribute("harness.outcome", "ok")
            span.set_status(Status(StatusCode.OK))
            span.end()

    def abandon(self, point: str, ctx: HookContext, error: BaseException) -> None:
        """The operation failed after pre ran (an abort, the body, a post executor): close it."""
        span = self._pop(point.rpartition(".")[0])
        if span is None:
            return  # post already closed it (a later validator failed), or pre never ran
        if isinstance(error, HookAbort):
            outcome = "refusal" if error.refusal else "abort"
            span.set_attribute("harness.abort_reason", self.redactor.redact_text(error.reason))
            span.set_attribute("harness.abort_point", error.point or "")
        else:
            outcome = "error"
        span.set_attribute("harness.outcome", outcome)
        span.set_attribute("harness.error_type", type(error).__name__)
        message = self.redactor.redact_text(str(error))
        span.set_status(Status(StatusCode.ERROR, f"{type(error).__name__}: {message}"))
        span.end()

    def _pop(self, operation: str) -> Span | None:
        stack = _OPEN.get()
        if not stack or stack[-1][0] != operation:
            return None
        _OPEN.set(stack[:-1])
        return stack[-1][1]


@final
class _Phase:
    """Binds the tracer's open or close to one point; abandon goes to the tracer."""

    __slots__ = ("name", "run", "tracer")

    def __init__(self, tracer: TracingExecutor, closing: bool) -> None:
        self.tracer = tracer
        self.run = tracer.close if closing else tracer.open
        self.name = f"tracing.{'close' if closing else 'open'}"

    async def __call__(self, ctx: HookContext, /) -> None:
        await self.run(ctx)

    def abandon(self, point: str, ctx: HookContext, error: BaseException) -> None:
        self.tracer.abandon(point, ctx, error)


def register_tracing(
    manager: HookManager, provider: TracerProvider | None = None
) -> list[Registration]:
    """Trace every operation of ``manager``.

    Args:
        manager: where to register the span executors.
        provider: the tracer provider; the global one when omitted (a no-op until
            the process configures the OpenTelemetry SDK).

    Returns:
        The registrations (two per operation); none when ``manager`` traces already
        (the hooks file's ``[observability] tracing`` and the worker's OTel set-up may
        both ask for it, and two span executors would make two spans per operation).
    """
    if any(isinstance(reg.executor, _Phase) for reg in manager.registrations(
        f"{OPERATIONS[0]}.pre"
    )):  # fmt: skip
        return []
    tracer = TracingExecutor(trace.get_tracer(TRACER_NAME, tracer_provider=provider),
                             manager.redactor)  # fmt: skip
    opener, closer = _Phase(tracer, closing=False), _Phase(tracer, closing=True)
    registrations = []
    for operation in OPERATIONS:
        registrations.append(
            manager.register(f"{operation}.pre", opener, priority=OUTERMOST_PRIORITY)
        )
        registrations.append(
            manager.register(
                f"{operation}.post", closer, priority=INNERMOST_PRIORITY, mode="validator"
            )
        )
    return registrations
