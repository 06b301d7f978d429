"""Where spans go: the OpenTelemetry SDK set up from the standard ``OTEL_*`` variables.

The spans themselves are made by :mod:`harness.hooks.monitors.otel` through the OpenTelemetry
API; without this module they go to the API's no-op provider. Each process (worker,
bot) calls :func:`configure_tracing` once at start. Nothing is exported unless the
environment asks for it (``OTEL_TRACES_EXPORTER``, or an OTLP endpoint); then spans go
to the OTLP exporter over HTTP/protobuf or gRPC, batched. Endpoint, headers, timeout,
TLS files, compression, batching, sampling, ``OTEL_SERVICE_NAME`` and
``OTEL_RESOURCE_ATTRIBUTES`` are read by the SDK itself, as its documentation says;
this module only decides whether and which exporter, and refuses values the SDK would
ignore with a warning (an unknown exporter or protocol, a header that is not
``name=value``), naming the variable and never its value: headers carry credentials,
and :meth:`harness.config.Settings.secret_values` masks them in every log line.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import TYPE_CHECKING, Final
from urllib.parse import unquote, urlsplit

from harness.errors import ConfigurationError
from harness.http import is_loopback

if TYPE_CHECKING:  # the SDK is imported where a provider is made: the settings need none of it
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SpanExporter

EXPORTERS: Final = ("otlp", "console", "none")
"""What ``OTEL_TRACES_EXPORTER`` may list (comma-separated)."""
PROTOCOLS: Final = ("http/protobuf", "grpc")
"""What ``OTEL_EXPORTER_OTLP_PROTOCOL`` (or ``_TRACES_PROTOCOL``) may say; HTTP is the default."""

_ENDPOINTS: Final = ("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "OTEL_EXPORTER_OTLP_ENDPOINT")
_PROTOCOLS: Final = ("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", "OTEL_EXPORTER_OTLP_PROTOCOL")
_HEADERS: Final = ("OTEL_EXPORTER_OTLP_TRACES_HEADERS", "OTEL_EXPORTER_OTLP_HEADERS")


class TracingConfigError(ConfigurationError):
    """An ``OTEL_*`` variable holds a value tracing cannot use.

    Args:
        variable: the variable to fix.
        problem: what is wrong with it and what to set; never its value.
    """

    def __init__(self, *, variable: str, problem: str) -> None:
        self.variable = variable
        self.problem = problem
        super().__init__(f"{variable}: {problem}")


def tracer_provider(env: Mapping[str, str] | None = None, *, service: str) -> TracerProvider | None:
    """The SDK provider the environment describes, or ``None`` when it describes no export.

    Args:
        env: the variables to read; the process's environment when ``None`` (the SDK's
            exporter reads endpoint, headers and the rest from there too).
        service: the service name when neither ``OTEL_SERVICE_NAME`` nor
            ``OTEL_RESOURCE_ATTRIBUTES`` gives one (``tiny-harness-worker``, say).

    Raises:
        TracingConfigError: a variable is wrong (named, with the values it may take).
    """
    env = os.environ if env is None else env
    exporters = _exporters(env)
    if not exporters:
        return None
    from opentelemetry.sdk.resources import SERVICE_NAME, Resource
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import BatchSpanProcessor

    resource = Resource.create()  # OTEL_SERVICE_NAME, OTEL_RESOURCE_ATTRIBUTES
    if str(resource.attributes.get(SERVICE_NAME, "")).startswith("unknown_service"):
        resource = resource.merge(Resource({SERVICE_NAME: service}))
    provider = TracerProvider(resource=resource)
    for name in exporters:
        provider.add_span_processor(BatchSpanProcessor(_exporter(name, env)))
    return provider


def configure_tracing(*, service: str) -> TracerProvider | None:
    """Make the environment's provider the process's global one (once, at start).

    Args:
        service: the default service name (see :func:`tracer_provider`).

    Returns:
        The provider, for :meth:`~TracerProvider.shutdown` at exit (which flushes
        what is batched), or ``None`` when nothing is exported.

    Raises:
        TracingConfigError: a variable is wrong.
    """
    provider = tracer_provider(service=service)
    if provider is not None:
        from opentelemetry import trace

        trace.set_tracer_provider(provider)
    return provider


def describe(provider: TracerProvider | None, env: Mapping[str, str] | None = None) -> str:
    """For the start log: where spans go (the endpoint's scheme, host and port, nothing more)."""
    if provider is None:
        return "tracing off (no OTEL_TRACES_EXPORTER or OTLP endpoint)"
    from opentelemetry.sdk.resources import SERVICE_NAME

    env = os.environ if env is None else env
    name = provider.resource.attributes.get(SERVICE_NAME, "")
    endpoint = next((env[v] for v in _ENDPOINTS if env.get(v)), "")
    parts = urlsplit(endpoint) if endpoint else None
    port = f":{parts.port}" if parts and parts.port else ""
    where = f"{parts.scheme}://{parts.hostname}{port}" if parts else "the SDK's default endpoint"
    return f"tracing to {', '.join(_exporters(env))} ({_protocol(env)}, {where}) as {name}"


def _exporters(env: Mapping[str, str]) -> tuple[str, ...]:
    disabled = env.get("OTEL_SDK_DISABLED", "").strip().lower()
    if disabled not in ("", "true", "false"):
        raise TracingConfigError(variable="OTEL_SDK_DISABLED", problem="must be true or false")
    if disabled == "true":
        return ()
    listed = env.get("OTEL_TRACES_EXPORTER", "").strip().lower()
    if not listed:
        # The spec's default is otlp; here nothing is exported until an endpoint is named,
        # so a fresh clone neither sends spans anywhere nor logs failed exports.
        return ("otlp",) if any(env.get(v, "").strip() for v in _ENDPOINTS) else ()
    names = tuple(dict.fromkeys(n.strip() for n in listed.split(",") if n.strip()))
    unknown = [n for n in names if n not in EXPORTERS]
    if unknown:
        raise TracingConfigError(
            variable="OTEL_TRACES_EXPORTER",
            problem=f"unknown exporter {', '.join(unknown)}; use {', '.join(EXPORTERS)}",
        )
    return tuple(n for n in names if n != "none")


def _exporter(name: str, env: Mapping[str, str]) -> SpanExporter:
    if name == "console":
        from opentelemetry.sdk.trace.export import ConsoleSpanExporter

        return ConsoleSpanExporter()
    _check_endpoint(env)
    _check_headers(env)
    if _protocol(env) == "grpc":
        from opentelemetry.exporter.otlp.proto.grpc.trace_exporter import (
            OTLPSpanExporter as GrpcSpanExporter,
        )

        return GrpcSpanExporter()
    from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter

    return OTLPSpanExporter()


def _protocol(env: Mapping[str, str]) -> str:
    for variable in _PROTOCOLS:
        value = env.get(variable, "").strip().lower()
        if not value:
            continue
        if value not in PROTOCOLS:
            raise TracingConfigError(
                variable=variable,
                problem=f"unsupported protocol {value!r}; use {' or '.join(PROTOCOLS)}",
            )
        return value
    return PROTOCOLS[0]


def _check_endpoint(env: Mapping[str, str]) -> None:
    for variable in _ENDPOINTS:
        value = env.get(variable, "").strip()
        if not value:
            continue
        parts = urlsplit(value)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise TracingConfigError(
                variable=variable,
                problem="must be an http:// or https:// URL, e.g. http://127.0.0.1:4318",
            )
        headers = [name for name in _HEADERS if env.get(name, "").strip()]
        if headers and parts.scheme == "http" and not is_loopback(parts.hostname):
            # Headers carry the collector's credentials: as for Slack's token, never in clear.
            raise TracingConfigError(
                variable=variable,
                problem=f"would send {headers[0]} over plain HTTP to {parts.hostname}, which "
                "is not a loopback host: use an https:// endpoint",
            )


def _check_headers(env: Mapping[str, str]) -> None:
    for variable in _HEADERS:
        entries = env.get(variable, "").split(",")
        for number, entry in enumerate(entries, 1):
            name, equals, _ = entry.partition("=")
            if entry.strip() and (not equals or not name.strip()):
                raise TracingConfigError(
                    variable=variable,
                    problem=f"entry {number} is not name=value (comma-separated entries, "
                    "URL-encoded values: x-tenant=acme,x-team=ops)",
                )


def header_values(text: str) -> list[str]:
    """Each value of an ``OTEL_EXPORTER_OTLP_*HEADERS`` text, raw and URL-decoded: to mask."""
    values: list[str] = []
    for entry in text.split(","):
        _, equals, value = entry.partition("=")
        value = value.strip()
        if equals and value:
            values += [value, unquote(value)]
        elif entry.strip():
            values.append(entry.strip())  # not name=value: the whole entry may be the secret
    return list(dict.fromkeys(values))
