"""A retry decision as a value: whether to try an activity again, and after how long.

A plain frozen value; the hook contexts of failed and retried activities live in
:mod:`harness.hooks.contexts.activity`, the retrying in :mod:`harness.temporal.retries`.
"""

from __future__ import annotations

from harness.domain.frozen import Frozen


class RetryDecision(Frozen):
    """Whether to try an activity again, and after how long."""

    retry: bool
    backoff_seconds: float = 0.0
    reason: str = ""
