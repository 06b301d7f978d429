"""Placeholder while the remote executors are written (issue 2, in progress)."""

from __future__ import annotations


class McpExecutor:  # pragma: no cover - replaced by the real executor in this issue
    pass
