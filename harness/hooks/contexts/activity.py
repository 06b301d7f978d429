"""Contexts of the worker's own life: failed and retried activities, heartbeats, shutdown."""

from __future__ import annotations

from harness.domain import RetryDecision
from harness.hooks.contexts.base import HookContext


class ActivityFailedContext(HookContext, operation="activity.failed", local=True):
    """An activity attempt failed; the body decides whether and when to retry."""

    activity: str
    failed_operation: str = ""
    error_type: str = ""
    error_message: str = ""
    retryable: bool = True
    """False when the failure says trying again cannot help (an abort, an invalid context)."""
    max_attempts: int = 3
    result: RetryDecision | None = None


class ActivityRetriedContext(HookContext, operation="activity.retried", local=True):
    """An activity is about to be tried again; the body returns the backoff actually used."""

    activity: str
    failed_operation: str = ""
    backoff_seconds: float = 0.0
    result: float | None = None


class HeartbeatTickContext(HookContext, operation="heartbeat.tick", activity=None):
    """A running task or activity reports it is alive; the body returns whether to go on."""

    activity: str = ""
    elapsed_seconds: float = 0.0
    detail: str = ""
    result: bool | None = None


class ShutdownContext(HookContext, operation="shutdown", activity=None):
    """The worker is stopping; the body returns what it handed back or finished."""

    reason: str = ""
    in_flight: int = 0
    result: str | None = None
