"""Decision spans: a child span per executor call, under its operation's span (issue 15, point 4).

An executor monitor (``around="executor"`` on :meth:`HookManager.add_monitor`), installed with
the operation spans by :func:`~harness.hooks.monitors.otel.register_tracing`, so a worker that
does not trace pays nothing. Each span names the executor, its point and kind, what it decided
(:mod:`harness.hooks.decisions`), how long it took and, redacted, why; it is the current span
while the executor runs, so a remote executor's call carries it as its W3C ``traceparent``
(:mod:`harness.hooks.remote.trace_context`). Never context data: ids and reasons only.
"""

from __future__ import annotations

import time
from typing import Final, final

from opentelemetry import context as otel_context
from opentelemetry import trace
from opentelemetry.trace import Span, SpanKind, Status, StatusCode, Tracer

from harness.hooks.contexts import HookContext
from harness.hooks.decisions import Decision, decision_of, passed_over, reason_of
from harness.hooks.monitor import CallProceed, ExecutorCall
from harness.hooks.monitors.otel import operation_span
from harness.hooks.redactor import Redactor

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
