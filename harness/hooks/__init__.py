"""Hook points ``<operation>.<phase>`` for every operation, and what runs at them.

The public surface of DESIGN.md; code outside this package imports from here (or
from :mod:`harness.hooks.contexts` for the context classes), never from the modules
behind it.
"""

from __future__ import annotations

from harness.hooks.builtin import RetryDefaults, register_builtin
from harness.hooks.catalogue import (
    BUILTIN_BODY_PRIORITY,
    DEFAULT_PRIORITY,
    OPERATIONS,
    PHASES,
    POINTS,
    ROLE_GUARD_PRIORITY,
)
from harness.hooks.contexts import HookContext, context_type
from harness.hooks.errors import (
    HookAbort,
    HookError,
    HookTransportError,
    HookValidationError,
    UnknownHookPointError,
)
from harness.hooks.executor import AbandonObserver, Executor, Registration
from harness.hooks.manager import HookManager
from harness.hooks.redactor import Redactor
from harness.hooks.remote.jsonrpc import JsonRpcExecutor
from harness.hooks.remote.mcp import McpExecutor

__all__ = [
    "BUILTIN_BODY_PRIORITY",
    "DEFAULT_PRIORITY",
    "OPERATIONS",
    "PHASES",
    "POINTS",
    "ROLE_GUARD_PRIORITY",
    "AbandonObserver",
    "Executor",
    "HookAbort",
    "HookContext",
    "HookError",
    "HookManager",
    "HookTransportError",
    "HookValidationError",
    "JsonRpcExecutor",
    "McpExecutor",
    "Redactor",
    "Registration",
    "RetryDefaults",
    "UnknownHookPointError",
    "context_type",
    "register_builtin",
]
