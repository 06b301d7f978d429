"""The one error an :class:`harness.providers.HttpClient` raises, whatever library is behind it.

Each concrete client maps its own library's exceptions here, at its own edge, so
the JSON-RPC code above never sees aiohttp or httpx types; what a remote executor
makes of this error (a :class:`harness.hooks.HookTransportError`) is decided in
:mod:`harness.hooks.remote.wire`.
"""

from __future__ import annotations

from typing import Literal, get_args

from harness.errors import ServiceError

HttpErrorKind = Literal["timeout", "connect", "closed", "too_large", "protocol"]
"""Why a call failed: deadline passed; no connection; peer closed or reset it mid-call;
reply over the size cap; anything else the peer did out of HTTP's contract."""

HTTP_ERROR_KINDS: tuple[HttpErrorKind, ...] = get_args(HttpErrorKind)

TLS_DROPPED_HINT = (
    "over TLS: a server that requires a client certificate drops the connection when none, "
    "or one it does not trust, is offered"
)
"""Added to a dropped ``https`` call: under TLS 1.3 the server checks the client's certificate
after the client's handshake is done, so a refusal reads as a reset or an early close."""


class HttpClientError(ServiceError):
    """An HTTP call did not produce a complete response.

    Args:
        kind: the failure class, one of :data:`HTTP_ERROR_KINDS`.
        url: the URL called (callers redact it before showing it anywhere durable).
        detail: what the library said, as text; the library's exception is the
            ``__cause__``.
    """

    def __init__(self, *, kind: HttpErrorKind, url: str, detail: str) -> None:
        if kind not in HTTP_ERROR_KINDS:
            raise ValueError(f"unknown HttpClientError kind {kind!r}")
        self.kind = kind
        self.url = url
        self.detail = detail
        super().__init__(f"{kind}: {detail}")

    def __reduce__(self) -> tuple[object, ...]:
        return (_rebuild, (self.kind, self.url, self.detail))


def _rebuild(kind: HttpErrorKind, url: str, detail: str) -> HttpClientError:
    return HttpClientError(kind=kind, url=url, detail=detail)
