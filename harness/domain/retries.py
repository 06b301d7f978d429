"""Retries as values: the backoff schedule, and whether to try an activity again, and when.

Plain frozen values; the hook contexts of failed and retried activities live in
:mod:`harness.hooks.contexts.activity`, the retrying in :mod:`harness.temporal.workflow.retries`.
"""

from __future__ import annotations

from dataclasses import dataclass

from harness.domain.frozen import Frozen


@dataclass(frozen=True, slots=True)
class RetryDefaults:
    """How the default ``activity.failed`` body spaces out attempts.

    The n-th retry waits ``initial * multiplier ** (n - 1)`` seconds, capped at
    ``maximum``, times a random factor in ``[1 - jitter, 1 + jitter]`` so that many
    tasks failing together do not retry in lockstep.
    """

    initial_seconds: float = 1.0
    multiplier: float = 2.0
    maximum_seconds: float = 60.0
    jitter: float = 0.2
    max_attempts: int | None = None
    """A cap on attempts (the hooks configuration's ``[retry]``); the context's own limit,
    e.g. one attempt for commands, still applies."""
    non_retryable: frozenset[str] = frozenset()
    """Error type names that are never retried."""


class RetryDecision(Frozen):
    """Whether to try an activity again, and after how long."""

    retry: bool
    backoff_seconds: float = 0.0
    reason: str = ""
