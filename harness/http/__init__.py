"""Concrete :class:`harness.providers.HttpClient` implementations and their one error type.

:class:`AiohttpClient` is the default (fastest on loopback, holds up under concurrency);
:class:`HttpxClient` wraps an ``httpx.AsyncClient`` for deployments configured around httpx.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from harness.http.errors import HTTP_ERROR_KINDS, HttpClientError, HttpErrorKind
from harness.http.loopback import is_loopback

if TYPE_CHECKING:
    from harness.http.aiohttp_client import AiohttpClient
    from harness.http.httpx_client import HttpxClient

# Each client loads its library on first use (aiohttp, httpx: ~0.1 s each): what only
# needs the error type or is_loopback, and a JSON-RPC executor until it makes its client,
# loads neither.
_LAZY = {
    "AiohttpClient": "harness.http.aiohttp_client",
    "HttpxClient": "harness.http.httpx_client",
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
    "HTTP_ERROR_KINDS",
    "AiohttpClient",
    "HttpClientError",
    "HttpErrorKind",
    "HttpxClient",
    "is_loopback",
]
