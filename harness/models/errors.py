"""The one error a model provider raises, whatever vendor or transport failed.

Each provider maps its own failures here (HTTP status with the vendor's error
message, timeouts, transport breaks, bodies it cannot read), so the default body of
``llm.invoked`` and the workflow's retry path see one type. The message is built
from redacted fields, because it travels into logs, Slack replies and Temporal's
history. Where it sits in the tree is drawn in :mod:`harness.errors`.
"""

from __future__ import annotations

import re
from typing import Final, Literal, get_args

from harness.errors import ServiceError
from harness.http import HttpClientError

ModelErrorKind = Literal["status", "timeout", "transport", "malformed", "config"]
"""``status``: the vendor answered with an HTTP error; ``timeout``: no complete answer in
time; ``transport``: no answer at all (connect, reset, oversized); ``malformed``: a 2xx
body that is not the vendor's shape; ``config``: the provider cannot be used as configured."""

MODEL_ERROR_KINDS: Final[tuple[ModelErrorKind, ...]] = get_args(ModelErrorKind)

RETRYABLE_STATUSES: Final = frozenset({408, 409, 425, 429, 500, 502, 503, 504, 529})
"""Statuses worth another attempt (rate limits, overload, gateway trouble); 4xx otherwise not."""

_SECRET: Final = re.compile(
    r"(sk-[A-Za-z0-9_\-]{6,}|Bearer\s+[A-Za-z0-9._\-]+|key-[A-Za-z0-9]{6,}|"
    r"(?i:api[_-]?key)[\"'=:\s]+[A-Za-z0-9._\-]{6,})"
)
_MAX_MESSAGE: Final = 500


def redact(text: str) -> str:
    """``text`` with anything shaped like an API key or bearer token replaced, and capped.

    Vendors echo part of a rejected key in their error messages ("Incorrect API key
    provided: sk-abc...") and that text is what we surface.
    """
    scrubbed = _SECRET.sub("[redacted]", text)
    return scrubbed if len(scrubbed) <= _MAX_MESSAGE else scrubbed[:_MAX_MESSAGE] + "…"


class ModelError(ServiceError):
    """A model call did not produce a usable response.

    Args:
        provider: ``"openai"``, ``"anthropic"``, ``"offline"`` or a registry name.
        kind: one of :data:`MODEL_ERROR_KINDS`.
        message: what went wrong, in the vendor's words where it gave any (redacted here).
        status: the HTTP status, for ``kind="status"``.
        vendor_type: the vendor's own error type or code (``"rate_limit_error"``).
    """

    def __init__(
        self,
        *,
        provider: str,
        kind: ModelErrorKind,
        message: str,
        status: int | None = None,
        vendor_type: str = "",
    ) -> None:
        if kind not in MODEL_ERROR_KINDS:
            raise ValueError(f"unknown ModelError kind {kind!r}")
        self.provider = provider
        self.kind = kind
        self.message = redact(message)
        self.status = status
        self.vendor_type = vendor_type
        where = f" HTTP {status}" if status is not None else ""
        what = f" ({vendor_type})" if vendor_type else ""
        super().__init__(f"{provider} model call failed: {kind}{where}{what}: {self.message}")

    @property
    def retryable(self) -> bool:
        """Whether another attempt may succeed (the workflow's retry policy reads this)."""
        if self.kind == "status":
            return self.status in RETRYABLE_STATUSES
        return self.kind in ("timeout", "transport")

    @property
    def user_message(self) -> str:
        """What went wrong, as a person in the thread can act on it (issue 11)."""
        who = f"the model provider ({self.provider})"
        if self.kind == "config":
            return self.message
        if self.kind == "timeout":
            return f"{who} did not answer in time"
        if self.kind == "transport":
            return f"{who} could not be reached"
        if self.kind == "malformed":
            return f"{who} sent an answer that could not be read"
        status = self.status or 0
        if status in (401, 403):
            return f"{who} refused the API key (HTTP {status}); check the key it is configured with"
        if status == 429:
            return f"{who} is limiting how often it may be called (HTTP 429)"
        if status in RETRYABLE_STATUSES:
            return f"{who} is failing or overloaded (HTTP {status})"
        return f"{who} rejected the request (HTTP {status}): {self.message}"

    def __reduce__(self) -> tuple[object, ...]:
        return (
            _rebuild,
            (self.provider, self.kind, self.message, self.status, self.vendor_type),
        )

    @classmethod
    def from_http(cls, provider: str, error: HttpClientError) -> ModelError:
        """Map an HTTP provider's failure (the one foreign-error boundary for models)."""
        kind: ModelErrorKind = "timeout" if error.kind == "timeout" else "transport"
        return cls(provider=provider, kind=kind, message=f"{error.kind}: {error.detail}")


def _rebuild(
    provider: str, kind: ModelErrorKind, message: str, status: int | None, vendor_type: str
) -> ModelError:
    return ModelError(
        provider=provider, kind=kind, message=message, status=status, vendor_type=vendor_type
    )
