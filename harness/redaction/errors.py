"""The redaction package's error: a value it cannot prove clean.

One class under the project's root (:mod:`harness.errors` draws the tree); the redactor
raises it, callers fail closed on it.
"""

from __future__ import annotations

from harness.errors import HarnessError


class RedactionError(HarnessError):
    """A value the redactor cannot prove clean (a cycle), so nothing of it may be sent.

    Callers meet it where a context or an output is scrubbed, and fail (closed); another
    attempt would meet the same value, so it is not retried.
    """

    def __init__(self, kind: str) -> None:
        self.kind = kind
        super().__init__(
            f"cannot redact a {kind} that refers to itself (or is nested too deep to walk): "
            "it is not sent, logged or stored; build it without cycles"
        )

    @property
    def retryable(self) -> bool:
        """No: the same value comes back on every attempt."""
        return False
