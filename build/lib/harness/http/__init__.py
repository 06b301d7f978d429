"""Concrete :class:`harness.providers.HttpClient` implementations and their one error type.

:class:`AiohttpClient` is the default (fastest on loopback, holds up under concurrency);
:class:`HttpxClient` wraps an ``httpx.AsyncClient`` for deployments configured around httpx.
"""

from __future__ import annotations

from harness.http.aiohttp_client import AiohttpClient
from harness.http.errors import HTTP_ERROR_KINDS, HttpClientError, HttpErrorKind
from harness.http.httpx_client import HttpxClient
from harness.http.loopback import is_loopback

__all__ = [
    "HTTP_ERROR_KINDS",
    "AiohttpClient",
    "HttpClientError",
    "HttpErrorKind",
    "HttpxClient",
    "is_loopback",
]
