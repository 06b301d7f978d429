"""Executors configured without code: one TOML file of executors, policy, retries and limits.

``load_hooks_config(path)`` validates and resolves the file (or raises
``HookConfigError`` listing every problem); ``HooksConfig.apply(manager)`` builds
every executor and then registers them all. Example: ``examples/hooks.toml``.
"""

from __future__ import annotations

from harness.hooks.config.loader import load_hooks_config, load_redaction
from harness.hooks.config.plan import AppliedHooks, HooksConfig, describe_chains

__all__ = [
    "AppliedHooks",
    "HooksConfig",
    "describe_chains",
    "load_hooks_config",
    "load_redaction",
]
