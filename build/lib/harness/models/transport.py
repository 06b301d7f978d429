"""POST a JSON request to a vendor and get its JSON answer, or a :class:`ModelError` saying why not.

Shared by the vendor providers so that status handling, vendor error bodies and
malformed replies read the same whichever API failed. It sits on the harness's
:class:`~harness.providers.HttpClient` (not a vendor SDK) so the worker's one
connection pool, deadline and size cap apply to model calls too.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, Final

from harness.http import HttpClientError
from harness.models.errors import ModelError
from harness.providers import HttpClient

MAX_REPLY_BYTES: Final = 8 * 1024 * 1024
"""A model reply larger than this is a misbehaving server, not an answer."""


async def post_json(
    http: HttpClient,
    *,
    provider: str,
    url: str,
    payload: Mapping[str, Any],
    headers: Mapping[str, str],
    timeout: float,
) -> dict[str, Any]:
    """Send ``payload`` and return the decoded 2xx body.

    Raises:
        ModelError: ``timeout``/``transport`` when no complete reply came,
            ``status`` for a non-2xx reply (with the vendor's message and error type
            when the body carries them), ``malformed`` for a 2xx body that is not a
            JSON object.
    """
    body = json.dumps(payload, separators=(",", ":")).encode()
    try:
        response = await http.post(
            url,
            body=body,
            headers={"content-type": "application/json", **headers},
            timeout=timeout,
            max_bytes=MAX_REPLY_BYTES,
        )
    except HttpClientError as error:
        raise ModelError.from_http(provider, error) from error
    if not 200 <= response.status < 300:
        message, vendor_type = vendor_error(response.body)
        raise ModelError(
            provider=provider,
            kind="status",
            status=response.status,
            message=message,
            vendor_type=vendor_type,
        )
    try:
        decoded = json.loads(response.body)
    except (json.JSONDecodeError, UnicodeDecodeError) as error:
        raise ModelError(
            provider=provider,
            kind="malformed",
            message=f"reply is not JSON: {error}; starts {response.body[:80]!r}",
        ) from error
    if not isinstance(decoded, dict):
        raise ModelError(
            provider=provider, kind="malformed", message=f"reply is JSON {type(decoded).__name__}"
        )
    return decoded


def vendor_error(body: bytes) -> tuple[str, str]:
    """The message and error type from a vendor's error body, or the body's start as text.

    OpenAI-compatible servers send ``{"error": {"message", "type", "code"}}``, Anthropic
    ``{"type": "error", "error": {"type", "message"}}``; some proxies send a bare
    ``{"message": ...}`` or ``{"detail": ...}``, or HTML.
    """
    try:
        decoded = json.loads(body)
    except (json.JSONDecodeError, UnicodeDecodeError):
        text = body[:200].decode("utf-8", "replace").strip()
        return (text or "empty body"), ""
    if isinstance(decoded, dict):
        inner = decoded.get("error", decoded)
        if isinstance(inner, dict):
            message = inner.get("message") or inner.get("detail") or json.dumps(inner)[:200]
            vendor_type = inner.get("type") or inner.get("code") or ""
            return str(message), str(vendor_type)
        if isinstance(inner, str):
            return inner, ""
    return json.dumps(decoded)[:200], ""


def malformed(provider: str, detail: str) -> ModelError:
    """The error for a 2xx reply that is not the vendor's documented shape."""
    return ModelError(provider=provider, kind="malformed", message=detail)
