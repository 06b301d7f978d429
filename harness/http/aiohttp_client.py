"""AiohttpClient: the default :class:`~harness.providers.HttpClient`, on one aiohttp session.

Chosen as the default because it is the fastest client measured on loopback and its
pool holds up under 32 concurrent callers (issue 2, "Benchmarks"). It only POSTs
bytes and returns whole, capped responses; JSON and JSON-RPC live in
:mod:`harness.hooks.remote`. aiohttp's exceptions are mapped to
:class:`~harness.http.errors.HttpClientError` here, at the library's edge.
"""

from __future__ import annotations

import asyncio
import ssl as _ssl
from collections.abc import Mapping
from typing import Final, final

import aiohttp

from harness.http.errors import TLS_DROPPED_HINT, HttpClientError
from harness.providers import HttpResponse

DEFAULT_LIMIT: Final = 100
DEFAULT_KEEPALIVE: Final = 30.0


@final
class AiohttpClient:
    """POST bytes over pooled, kept-alive connections with a total deadline and a size cap.

    Redirects are never followed; a 3xx is returned as the response it is.

    The session is created on first use, inside the running loop, because aiohttp
    binds it to that loop; construction is therefore safe anywhere (a worker's
    ``__init__``, a test module).

    Args:
        limit: most connections open at once (all hosts).
        keepalive_timeout: seconds an idle connection stays in the pool. Kept below
            aiohttp server's 75 s default so the client, not the server, closes idle
            connections, and a reused connection is not one the server just dropped.
        ssl: the TLS context for https URLs (a client certificate, a private CA: see
            :func:`harness.hooks.remote.tls.client_context`); the system's defaults when
            omitted.
    """

    def __init__(
        self,
        *,
        limit: int = DEFAULT_LIMIT,
        keepalive_timeout: float = DEFAULT_KEEPALIVE,
        ssl: _ssl.SSLContext | None = None,
    ) -> None:
        self._limit = limit
        self._keepalive_timeout = keepalive_timeout
        self._ssl: _ssl.SSLContext | bool = ssl if ssl is not None else True
        self._session: aiohttp.ClientSession | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._closed = False

    def _session_for_this_loop(self, url: str) -> aiohttp.ClientSession:
        if self._closed:
            raise HttpClientError(kind="closed", url=url, detail="the HTTP client is closed")
        loop = asyncio.get_running_loop()
        if self._session is not None and self._loop is loop:
            return self._session
        if self._loop is not None and not self._loop.is_closed():
            raise RuntimeError("AiohttpClient is bound to another, still open, event loop")
        # A previous loop that has closed took its connections with it; start afresh.
        self._loop = loop
        self._session = aiohttp.ClientSession(
            connector=aiohttp.TCPConnector(
                limit=self._limit, keepalive_timeout=self._keepalive_timeout, ssl=self._ssl
            ),
            timeout=aiohttp.ClientTimeout(total=None),  # the deadline is ours, see post()
            cookie_jar=aiohttp.DummyCookieJar(),  # a hook call must not carry state to the next
            auto_decompress=False,  # so the size cap counts what we keep
            skip_auto_headers=("Accept-Encoding",),  # and the server has no reason to compress
            trust_env=False,
        )
        return self._session

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
            timeout: seconds for the whole call: connecting, sending and reading every
                byte. One aiohttp ``total`` timer covers all of it, so a server that
                drips a byte a second cannot stretch the call past it.
            max_bytes: largest body accepted; a longer one fails the call.

        Returns:
            Status, headers (case-insensitive) and body.

        Raises:
            HttpClientError: ``timeout``, ``connect``, ``closed``, ``too_large`` or
                ``protocol``; the aiohttp exception is its ``__cause__``.
        """
        session = self._session_for_this_loop(url)
        try:
            # aiohttp's ``total`` covers acquiring a connection, sending, and reading the
            # body inside this block (the timer stays armed until the response is read),
            # at a third of the cost of wrapping the call in ``asyncio.timeout``.
            # No redirects, ever: a 3xx would re-send the body (a hook context, a bearer
            # header) to a server nobody configured (issue 9). The caller sees the 3xx.
            async with session.post(
                url,
                data=body,
                headers=headers,
                timeout=aiohttp.ClientTimeout(total=timeout),
                allow_redirects=False,
            ) as resp:
                length = resp.content_length
                if length is not None:
                    if length > max_bytes:
                        raise _too_large(url, max_bytes, f"Content-Length {length}")
                    data = await resp.read()
                else:
                    data = await _read_capped(resp.content, url, max_bytes)
                return HttpResponse(status=resp.status, headers=resp.headers, body=data)
        except TimeoutError as exc:
            raise HttpClientError(
                kind="timeout", url=url, detail=f"no complete response within {timeout:g}s"
            ) from exc
        except aiohttp.ClientSSLError as exc:
            detail = f"TLS handshake failed: {exc}"
            raise HttpClientError(kind="connect", url=url, detail=detail) from exc
        except aiohttp.ClientConnectorError as exc:
            raise HttpClientError(kind="connect", url=url, detail=str(exc)) from exc
        except (aiohttp.ServerDisconnectedError, aiohttp.ClientPayloadError) as exc:
            raise HttpClientError(kind="closed", url=url, detail=_text(exc) + _tls(url)) from exc
        except (aiohttp.ClientOSError, OSError) as exc:
            raise HttpClientError(kind="closed", url=url, detail=_text(exc) + _tls(url)) from exc
        except aiohttp.ClientError as exc:
            raise HttpClientError(kind="protocol", url=url, detail=_text(exc)) from exc

    async def aclose(self) -> None:
        """Close the pooled connections; later calls fail with kind ``closed``."""
        self._closed = True
        session, self._session = self._session, None
        if session is not None and self._loop is asyncio.get_running_loop():
            await session.close()

    def __repr__(self) -> str:
        state = "closed" if self._closed else "open" if self._session else "idle"
        return f"<AiohttpClient {state} limit={self._limit}>"


async def _read_capped(stream: aiohttp.StreamReader, url: str, max_bytes: int) -> bytes:
    # Without a Content-Length (chunked, or read-until-close) the cap is checked as bytes arrive.
    chunks: list[bytes] = []
    size = 0
    while chunk := await stream.readany():
        size += len(chunk)
        if size > max_bytes:
            raise _too_large(url, max_bytes, f"over {size} bytes read")
        chunks.append(chunk)
    return b"".join(chunks)


def _too_large(url: str, max_bytes: int, seen: str) -> HttpClientError:
    return HttpClientError(
        kind="too_large", url=url, detail=f"reply exceeds the {max_bytes}-byte cap ({seen})"
    )


def _tls(url: str) -> str:
    return f" ({TLS_DROPPED_HINT})" if url.startswith("https:") else ""


def _text(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
