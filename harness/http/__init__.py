"""Concrete :class:`harness.providers.HttpClient` implementations and their one error type."""

from __future__ import annotations

from harness.http.errors import HTTP_ERROR_KINDS, HttpClientError, HttpErrorKind

__all__ = ["HTTP_ERROR_KINDS", "HttpClientError", "HttpErrorKind"]
