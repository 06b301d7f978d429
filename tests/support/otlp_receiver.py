"""A local OTLP/HTTP trace receiver: what a collector is to the exporter, on a loopback port.

It accepts ``POST /v1/traces`` with a protobuf ``ExportTraceServiceRequest`` (decoded
with ``opentelemetry-proto``, which the exporter itself depends on), keeps every span
with its resource's attributes and the request headers, and answers as a collector
does. Nothing here is the exporter's code: a span arrives only if the SDK sent it.
"""

from __future__ import annotations

import asyncio
import gzip
from collections.abc import Callable
from dataclasses import dataclass, field

from aiohttp import web
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
    ExportTraceServiceRequest,
    ExportTraceServiceResponse,
)
from opentelemetry.proto.common.v1.common_pb2 import AnyValue


@dataclass(frozen=True)
class ReceivedSpan:
    """One span as it arrived: its name, attributes, ids, and its resource's attributes."""

    name: str
    attributes: dict[str, object]
    resource: dict[str, object]
    trace_id: str
    status_code: int
    span_id: str = ""
    """16 hex digits, as a W3C ``traceparent`` names a span."""
    parent_span_id: str = ""
    """The parent's span id (hex), empty for a root span."""


@dataclass
class OtlpReceiver:
    """Spans and request headers received so far; :meth:`wait_for` awaits a condition on them."""

    spans: list[ReceivedSpan] = field(default_factory=list)
    headers: list[dict[str, str]] = field(default_factory=list)
    url: str = ""
    _changed: asyncio.Condition = field(default_factory=asyncio.Condition)

    async def handle(self, request: web.Request) -> web.Response:
        body = await request.read()
        if request.headers.get("Content-Encoding") == "gzip":
            body = gzip.decompress(body)
        if request.content_type != "application/x-protobuf":
            return web.Response(status=415, text="expected application/x-protobuf")
        export = ExportTraceServiceRequest.FromString(body)
        async with self._changed:
            self.headers.append(dict(request.headers))
            for resource_spans in export.resource_spans:
                resource = _attributes(resource_spans.resource.attributes)
                for scope in resource_spans.scope_spans:
                    for span in scope.spans:
                        self.spans.append(
                            ReceivedSpan(
                                name=span.name,
                                attributes=_attributes(span.attributes),
                                resource=resource,
                                trace_id=span.trace_id.hex(),
                                status_code=span.status.code,
                                span_id=span.span_id.hex(),
                                parent_span_id=span.parent_span_id.hex(),
                            )
                        )
            self._changed.notify_all()
        return web.Response(
            body=ExportTraceServiceResponse().SerializeToString(),
            content_type="application/x-protobuf",
        )

    async def wait_for(
        self, done: Callable[[list[ReceivedSpan]], bool], timeout: float = 15
    ) -> list[ReceivedSpan]:
        async with asyncio.timeout(timeout), self._changed:
            await self._changed.wait_for(lambda: done(self.spans))
        return self.spans


def _attributes(pairs: object) -> dict[str, object]:
    return {kv.key: _value(kv.value) for kv in pairs}  # type: ignore[attr-defined]


def _value(value: AnyValue) -> object:
    kind = value.WhichOneof("value")
    return getattr(value, kind) if kind else None


async def start_receiver() -> tuple[OtlpReceiver, web.AppRunner]:
    """Serve a receiver on a free loopback port; ``receiver.url`` is its base URL."""
    receiver = OtlpReceiver()
    app = web.Application()
    app.router.add_post("/v1/traces", receiver.handle)
    runner = web.AppRunner(app, access_log=None)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]  # aiohttp keeps it private
    receiver.url = f"http://127.0.0.1:{port}"
    return receiver, runner
