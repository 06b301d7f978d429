"""The worker's telemetry: Temporal's runtime with a Prometheus endpoint, and what reports to it.

One endpoint serves both the SDK's series (``temporal_*``: requests, polls, workflow
and activity task latencies) and the harness counters of
:func:`harness.hooks.register_metrics`, because those are created on the same
runtime's meter: one scrape target, one ``service_name`` label, no second HTTP
server (prometheus_client would need one, or a bridge from Temporal's exporter).
With JSON logs, the SDK core's own log lines are forwarded into Python logging so
they are JSON (and redacted) too. Where spans go is :mod:`harness.tracing`'s; how the
worker connects is :mod:`harness.temporal.connection`'s (it takes this runtime).
"""

from __future__ import annotations

import logging
from typing import Final

from temporalio.runtime import (
    LogForwardingConfig,
    LoggingConfig,
    PrometheusConfig,
    Runtime,
    TelemetryConfig,
    TelemetryFilter,
)

from harness.config import Settings
from harness.errors import ConfigurationError
from harness.hooks import LATENCY_BUCKETS_MS, LATENCY_METRIC

CORE_LOGGER: Final = "temporalio.core"
"""Where the SDK core's log lines go with ``HARNESS_LOG_FORMAT=json``."""


class MetricsConfigError(ConfigurationError):
    """The metrics endpoint cannot be served where ``HARNESS_METRICS_ADDRESS`` says.

    Args:
        address: the configured ``IP:port``.
        problem: why (the port is taken, say) and what to do.
    """

    def __init__(self, *, address: str, problem: str) -> None:
        self.address = address
        self.problem = problem
        super().__init__(f"HARNESS_METRICS_ADDRESS={address}: {problem}")


def worker_runtime(settings: Settings) -> Runtime | None:
    """The runtime the worker's client connects in, or ``None`` for the SDK's default.

    A runtime of its own only when there is something to change: a metrics endpoint
    (``settings.metrics_address``) or JSON logs (core's lines forwarded to Python).

    Raises:
        MetricsConfigError: the endpoint cannot be bound (the port is in use).
    """
    if settings.metrics_address is None and settings.log_format != "json":
        return None
    logging_config = LoggingConfig.default
    if settings.log_format == "json":
        logging_config = LoggingConfig(
            filter=TelemetryFilter(core_level="WARN", other_level="ERROR"),
            forwarding=LogForwardingConfig(logger=logging.getLogger(CORE_LOGGER)),
        )
    metrics = None
    if settings.metrics_address is not None:
        # Counters end in _total, durations are seconds: what Prometheus conventions expect.
        metrics = PrometheusConfig(
            bind_address=settings.metrics_address,
            counters_total_suffix=True,
            durations_as_seconds=True,
            # The SDK's default buckets stop at 10: hook executors run up to their timeouts.
            histogram_bucket_overrides={LATENCY_METRIC: LATENCY_BUCKETS_MS},
        )
    try:
        return Runtime(telemetry=TelemetryConfig(logging=logging_config, metrics=metrics))
    except ValueError as error:  # the core's "Failed starting Prometheus exporter: ..."
        reason = str(error).partition(": ")[2] or str(error)
        raise MetricsConfigError(
            address=settings.metrics_address or "",
            problem=f"cannot serve metrics there ({reason}); choose a free port or unset it",
        ) from None
