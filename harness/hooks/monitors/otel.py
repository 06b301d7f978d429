"""Tracing: a span per operation, and under it a span per executor call (STYLE rule 4).

:class:`TracingMonitor` wraps each operation on the manager's one seam
(:meth:`HookManager.add_monitor` with ``around="operation"``): the span opens before the
first pre executor and ends after the last post executor, or with the error that ended
the run, so none is left open (issue 6). A task lives for days across workers, so it
has no span of its own: its trace id and a virtual parent span id are derived from the
task id, and every operation of the task nests under them. Spans carry ids and redacted
reasons only, never context data.

Under it, :class:`DecisionSpans` (an executor monitor, ``around="executor"``) opens a child
span per executor call naming the executor, its point and kind, what it decided
(:mod:`harness.hooks.decisions`), how long it took and, redacted, why. It is the current span
while the executor runs, so a remote executor's call carries it as its W3C ``traceparent``
(:mod:`harness.hooks.remote.trace_context`); a worker that does not trace installs neither.
"""

from __future__ import annotations

import contextvars
import hashlib
import time
from typing import Final, final

from opentelemetry import context as otel_context
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

from harness.hooks.contexts import HookContext
from harness.hooks.decisions import Decision, decision_of, passed_over, reason_of
from harness.hooks.errors import HookAbort
from harness.hooks.monitor import CallProceed, ExecutorCall, Monitored, MonitorHandle, Proceed
from harness.redaction import Redactor

TRACER_NAME: Final = "harness.hooks"

# The spans open in this task, innermost last: an operation run inside another nests
# under its span. A ContextVar, so concurrent operations (other tasks) each see their own
# and a task spawned inside an operation inherits it.
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
        trace_id=trace_id,
        span_id=span_id,
        is_remote=True,
        trace_flags=TraceFlags(TraceFlags.SAMPLED),
    )


def operation_span() -> Span | None:
    """The span of the innermost operation :class:`TracingMonitor` has open here, if any.

    What a decision span (:class:`DecisionSpans`) is the child of.
    """
    stack = _OPEN.get()
    return stack[-1][1] if stack else None


@final
class TracingMonitor:
    """Runs each operation inside a span under the enclosing operation's or the task's.

    Args:
        tracer: where spans go.
        redactor: scrubs abort reasons and error texts put on spans.
    """

    __slots__ = ("redactor", "tracer")

    def __init__(self, tracer: Tracer, redactor: Redactor) -> None:
        self.tracer = tracer
        self.redactor = redactor

    async def __call__(self, point: str, ctx: HookContext, proceed: Proceed, /) -> HookContext:
        """Run the operation ``point`` in its span; end the span with the run's outcome."""
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
            point,
            context=parent,
            kind=SpanKind.INTERNAL,
            attributes={
                "harness.operation": point,
                "harness.point": f"{point}.pre",
                "harness.task_id": self.redactor.redact_text(ctx.task.task_id) if ctx.task else "",
                "harness.correlation_id": ctx.correlation_id,
                "harness.attempt": ctx.attempt,
            },
        )
        token = _OPEN.set((*stack, (point, span)))
        try:
            out = await proceed()
        except BaseException as error:
            self._failed(span, error)
            raise
        finally:
            _OPEN.reset(token)
        span.set_attribute("harness.outcome", "ok")
        span.set_status(Status(StatusCode.OK))
        span.end()
        return out

    def _failed(self, span: Span, error: BaseException) -> None:
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

    def __repr__(self) -> str:
        return "<TracingMonitor>"


FAILED: Final[frozenset[Decision]] = frozenset({"error", "timeout"})
"""Decisions whose span status is ERROR; a veto, an abort or an ask is the executor's verdict,
not its failure (the operation's span carries what it did to the operation)."""


@final
class DecisionSpans:
    """Runs each executor call inside a span that ends with the call's decision.

    Args:
        tracer: where spans go (the operation spans' tracer).
        redactor: scrubs reasons and error texts put on spans.
    """

    __slots__ = ("redactor", "tracer")

    def __init__(self, tracer: Tracer, redactor: Redactor) -> None:
        self.tracer = tracer
        self.redactor = redactor

    async def __call__(
        self, call: ExecutorCall, ctx: HookContext, proceed: CallProceed, /
    ) -> HookContext | None:
        """Run the executor of ``call`` in its span, current while it runs."""
        parent = operation_span()
        span = self.tracer.start_span(
            f"{call.point} {call.name}",
            context=trace.set_span_in_context(parent) if parent is not None else None,
            kind=SpanKind.INTERNAL,
            attributes={
                "harness.executor": call.name,
                "harness.point": call.point,
                "harness.kind": call.kind,
                "harness.mode": call.mode,
                "harness.correlation_id": ctx.correlation_id,
            },
        )
        token = otel_context.attach(trace.set_span_in_context(span))
        start = time.perf_counter()
        try:
            out = await proceed()
        except BaseException as error:
            self._end(span, start, decision_of(None, error), error)
            raise
        finally:
            otel_context.detach(token)
        passed = passed_over() if out is None else None
        self._end(span, start, decision_of(out, None, passed), passed)
        return out

    def _end(
        self, span: Span, start: float, decision: Decision, error: BaseException | None
    ) -> None:
        span.set_attribute("harness.decision", decision)
        span.set_attribute("harness.duration_ms", (time.perf_counter() - start) * 1000)
        if error is not None:
            reason = self.redactor.redact_text(reason_of(error))
            span.set_attribute("harness.reason", reason)
            span.set_attribute("harness.error_type", type(error).__name__)
            if decision in FAILED:
                span.set_status(Status(StatusCode.ERROR, reason))
        if decision not in FAILED:
            span.set_status(Status(StatusCode.OK))
        span.end()

    def __repr__(self) -> str:
        return "<DecisionSpans>"


def register_tracing(
    manager: Monitored, provider: TracerProvider | None = None
) -> MonitorHandle | None:
    """Trace every operation of ``manager``, and every executor call in it.

    Args:
        manager: whose operations to wrap in spans.
        provider: the tracer provider; the global one when omitted (a no-op until
            the process configures the OpenTelemetry SDK).

    Also a child span per executor call, with its decision (:class:`DecisionSpans`).

    Returns:
        The undo handle (it removes both); ``None`` when ``manager`` traces already (the
        hooks file's ``[observability] tracing`` and the worker's OTel set-up may both ask
        for it, and two monitors would make two spans per operation).
    """
    if any(isinstance(m, TracingMonitor) for m in manager.monitors("operation")):
        return None
    tracer = trace.get_tracer(TRACER_NAME, tracer_provider=provider)
    operations = manager.add_monitor(TracingMonitor(tracer, manager.redactor), around="operation")
    calls = manager.add_monitor(DecisionSpans(tracer, manager.redactor), around="executor")

    def remove(_: MonitorHandle) -> None:
        calls()
        operations()

    return MonitorHandle(operations.monitor, "operation", remove)
