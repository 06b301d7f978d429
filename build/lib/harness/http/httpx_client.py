"""HttpxClient: an :class:`~harness.providers.HttpClient` over an ``httpx.AsyncClient``.

For deployments that already configure httpx (proxies, mTLS, mounts). It is not the
default: on loopback it is ~3x slower per call than aiohttp and its pool degrades
sharply at 32 concurrent callers (issue 2, "Benchmarks"). Same rules as
:class:`~harness.http.aiohttp_client.AiohttpClient`: total deadline, size cap,
kept-alive connections, and httpx's exceptions mapped here.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from typing import Final, final

import httpx

from harness.http.errors import HttpClientError, HttpErrorKind
from harness.providers import HttpResponse

DEFAULT_LIMITS: Final = httpx.Limits(
    max_connections=100, max_keepalive_connections=100, keepalive_expiry=30.0
)

# httpx asks for compressed replies by default; the size cap must count what we keep.
_IDENTITY: Final = {"accept-encoding": "identity"}


@final
class HttpxClient:
    """POST bytes through an ``httpx.AsyncClient`` with a total deadline and a size cap.

    Args:
        client: an ``httpx.AsyncClient`` to use; it stays the caller's to close.
            When omitted, one is made with :data:`DEFAULT_LIMITS`, no per-phase
            timeouts (the total deadline replaces them), no redirects and no
            environment proxies, and :meth:`aclose` closes it.
    """

    def __init__(self, client: httpx.AsyncClient | None = None) -> None:
        self._owns_client = client is None
        self._client = client or httpx.AsyncClient(
            timeout=httpx.Timeout(None),
            limits=DEFAULT_LIMITS,
            follow_redirects=False,
            trust_env=False,
        )
        self._closed = False

    async def post(
        self,
        url: str,
        *,
        body: bytes,
        headers: Mapping[str, str],
        timeout: float,
        max_bytes: int,
    ) -> HttpResponse:
        """POST ``body`` and return the whole response.

        Args:
            url: where to POST.
            body: the request body, sent as is.
            headers: request headers.
            timeout: seconds for the whole call (connect, send, every byte of the
                reply), enforced by one ``asyncio.timeout`` rather than httpx's
                per-read timeouts, which a dripping server resets with every byte.
            max_bytes: largest body accepted; a longer one fails the call.

        Returns:
            Status, headers (case-insensitive) and body.

        Raises:
            HttpClientError: ``timeout``, ``connect``, ``closed``, ``too_large`` or
                ``protocol``; the httpx exception is its ``__cause__``.
        """
        if self._closed:
            raise HttpClientError(kind="closed", url=url, detail="the HTTP client is closed")
        try:
            async with asyncio.timeout(timeout):
                async with self._client.stream(
                    "POST", url, content=body, headers={**_IDENTITY, **headers}
                ) as resp:
                    declared = resp.headers.get("content-length")
                    if declared is not None and declared.isdigit() and int(declared) > max_bytes:
                        raise _too_large(url, max_bytes, f"Content-Length {declared}")
                    chunks: list[bytes] = []
                    size = 0
                    async for chunk in resp.aiter_raw():
                        size += len(chunk)
                        if size > max_bytes:
                            raise _too_large(url, max_bytes, f"over {size} bytes read")
                        chunks.append(chunk)
                    return HttpResponse(
                        status=resp.status_code, headers=resp.headers, body=b"".join(chunks)
                    )
        except TimeoutError as exc:
            raise HttpClientError(
                kind="timeout", url=url, detail=f"no complete response within {timeout:g}s"
            ) from exc
        except httpx.TimeoutException as exc:  # only if the caller's client sets its own
            raise HttpClientError(kind="timeout", url=url, detail=_text(exc)) from exc
        except httpx.ConnectError as exc:
            raise HttpClientError(kind="connect", url=url, detail=_text(exc)) from exc
        except (httpx.ReadError, httpx.WriteError, httpx.CloseError) as exc:
            raise HttpClientError(kind="closed", url=url, detail=_text(exc)) from exc
        except httpx.RemoteProtocolError as exc:
            # httpx reports a peer that hung up mid-reply and a malformed reply alike.
            kind: HttpErrorKind = "closed" if _hung_up(exc) else "protocol"
            raise HttpClientError(kind=kind, url=url, detail=_text(exc)) from exc
        except (httpx.HTTPError, httpx.InvalidURL) as exc:
            raise HttpClientError(kind="protocol", url=url, detail=_text(exc)) from exc
        except OSError as exc:
            raise HttpClientError(kind="closed", url=url, detail=_text(exc)) from exc

    async def aclose(self) -> None:
        """Close the client if this object made it; later calls fail with kind ``closed``."""
        self._closed = True
        if self._owns_client:
            await self._client.aclose()

    def __repr__(self) -> str:
        return f"<HttpxClient {'closed' if self._closed else 'open'}>"


def _hung_up(exc: httpx.RemoteProtocolError) -> bool:
    text = str(exc).lower()
    return "closed" in text or "disconnected" in text or "incomplete" in text


def _too_large(url: str, max_bytes: int, seen: str) -> HttpClientError:
    return HttpClientError(
        kind="too_large", url=url, detail=f"reply exceeds the {max_bytes}-byte cap ({seen})"
    )


def _text(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
