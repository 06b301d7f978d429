"""Hook points ``<operation>.<phase>`` for every operation, and what runs at them.

The public surface of DESIGN.md; code outside this package imports from here (or
from :mod:`harness.hooks.contexts` for the context classes), never from the modules
behind it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from harness.hooks.audit import AuditRecord
from harness.hooks.catalogue import (
    ACTIVITIES,
    BUILTIN_BODY_PRIORITY,
    DEFAULT_PRIORITY,
    DISPATCH_HOOKS,
    LOCAL_BY_DEFAULT,
    OPERATIONS,
    PHASES,
    POINTS,
    ROLE_GUARD_PRIORITY,
    Entry,
    activity_of,
    changes_activity_of,
    changes_name,
    entries,
    entry_of,
    forget_operation,
    on_remove,
    points_at,
    refs_name,
)
from harness.hooks.contexts import HookContext, context_type
from harness.hooks.errors import (
    HookAbort,
    HookConfigError,
    HookError,
    HookTimeoutError,
    HookTransportError,
    HookValidationError,
    UnknownHookPointError,
)
from harness.hooks.executor import AbandonObserver, Executor, Registration
from harness.hooks.latency import StatsRow
from harness.hooks.manager import HookManager
from harness.hooks.monitor import Monitor, MonitorHandle, Proceed
from harness.hooks.monitors.approvals import REQUESTED_BY, register_approvals
from harness.hooks.monitors.metrics import count_observer_drops, register_metrics
from harness.hooks.pure import DecisionStore, PureExecutor, RecordedDecision
from harness.hooks.running import RunningOperation, current_operation
from harness.hooks.stack import executor_on_stack
from harness.redaction import Redactor

if TYPE_CHECKING:
    from harness.hooks.config import (
        HooksConfig,
        describe_chains,
        load_hooks_config,
        load_redaction,
    )
    from harness.hooks.config.reload import HooksReload
    from harness.hooks.monitors.executor_stats import (
        LATENCY_BUCKETS_MS,
        LATENCY_METRIC,
        register_executor_stats,
    )
    from harness.hooks.monitors.otel import register_tracing
    from harness.hooks.remote.jsonrpc import JsonRpcExecutor
    from harness.hooks.remote.mcp import McpExecutor

# The remote executors pull in aiohttp, httpx and the MCP SDK (~0.5 s): loaded on first
# use, so a worker without remote executors, and every MCP hook server, starts fast.
_LAZY = {
    "JsonRpcExecutor": "harness.hooks.remote.jsonrpc",
    "McpExecutor": "harness.hooks.remote.mcp",
    # Configuration may build remote executors; it is only needed by a worker that has one.
    "HooksConfig": "harness.hooks.config",
    "describe_chains": "harness.hooks.config",
    "load_hooks_config": "harness.hooks.config",
    "load_redaction": "harness.hooks.config",
    "HooksReload": "harness.hooks.config.reload",
    # The OpenTelemetry API: only a worker that traces needs it.
    "register_tracing": "harness.hooks.monitors.otel",
    "register_executor_stats": "harness.hooks.monitors.executor_stats",
    "LATENCY_BUCKETS_MS": "harness.hooks.monitors.executor_stats",
    "LATENCY_METRIC": "harness.hooks.monitors.executor_stats",
}


def __getattr__(name: str) -> Any:  # noqa: ANN401  # module attribute protocol
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


__all__ = [
    "ACTIVITIES",
    "BUILTIN_BODY_PRIORITY",
    "DEFAULT_PRIORITY",
    "DISPATCH_HOOKS",
    "LATENCY_BUCKETS_MS",
    "LATENCY_METRIC",
    "LOCAL_BY_DEFAULT",
    "OPERATIONS",
    "PHASES",
    "POINTS",
    "REQUESTED_BY",
    "ROLE_GUARD_PRIORITY",
    "AbandonObserver",
    "AuditRecord",
    "DecisionStore",
    "Entry",
    "Executor",
    "HookAbort",
    "HookConfigError",
    "HookContext",
    "HookError",
    "HookManager",
    "HookTimeoutError",
    "HookTransportError",
    "HookValidationError",
    "HooksConfig",
    "HooksReload",
    "JsonRpcExecutor",
    "McpExecutor",
    "Monitor",
    "MonitorHandle",
    "Proceed",
    "PureExecutor",
    "RecordedDecision",
    "Redactor",
    "Registration",
    "RunningOperation",
    "StatsRow",
    "UnknownHookPointError",
    "activity_of",
    "changes_activity_of",
    "changes_name",
    "context_type",
    "count_observer_drops",
    "current_operation",
    "describe_chains",
    "entries",
    "entry_of",
    "executor_on_stack",
    "forget_operation",
    "load_hooks_config",
    "load_redaction",
    "on_remove",
    "points_at",
    "refs_name",
    "register_approvals",
    "register_executor_stats",
    "register_metrics",
    "register_tracing",
]
