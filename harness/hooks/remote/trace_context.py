"""The W3C trace context a remote executor's call carries: ``traceparent`` (and ``tracestate``).

The current span while an executor runs is its decision span
(:class:`harness.hooks.monitors.otel.DecisionSpans`), so the remote service can continue the trace
under it. Only the W3C trace context is sent, never baggage (it could carry anything the
process put there), and nothing at all when no span is recording here: a worker that does not
trace sends exactly what it sent before. JSON-RPC sends it as HTTP headers, MCP in the tool
call's ``_meta``.
"""

from __future__ import annotations

import functools
import sys
from typing import TYPE_CHECKING, Final

if TYPE_CHECKING:
    from opentelemetry.propagators.textmap import TextMapPropagator

TRACEPARENT: Final = "traceparent"
TRACESTATE: Final = "tracestate"


def trace_context() -> dict[str, str] | None:
    """``{"traceparent": ..., "tracestate": ...}`` of the current span, or ``None`` when there
    is none to continue (tracing off: the check costs one context lookup)."""
    # Read, never imported: a span needs the tracing API, so a process that has not loaded
    # it has no span to continue, and an executor's import loads no OpenTelemetry.
    trace = sys.modules.get("opentelemetry.trace")
    if trace is None or not trace.get_current_span().get_span_context().is_valid:
        return None
    carrier: dict[str, str] = {}
    _w3c().inject(carrier)
    return carrier or None


@functools.cache
def _w3c() -> TextMapPropagator:
    from opentelemetry.trace.propagation.tracecontext import TraceContextTextMapPropagator

    return TraceContextTextMapPropagator()
