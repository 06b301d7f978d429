"""One MCP client session to one server, opened on first use and kept open across calls.

The mcp SDK's :class:`mcp.Client` is an async context manager whose task groups must
be entered and left by the same task, while hook calls arrive from many tasks. So a
private *owner* task holds each session open and callers only send requests through
it. A session whose server went away is retired and the next call opens a new one.
What a call means for hooks (tool names, the reply encoding, error mapping) lives in
:mod:`harness.hooks.remote.mcp`; this module knows nothing about hooks.
"""

from __future__ import annotations

import asyncio
import logging
import shlex
import ssl as _ssl
from collections.abc import AsyncIterator, Mapping, Sequence
from contextlib import asynccontextmanager
from pathlib import Path
from types import TracebackType
from typing import Any, Final, cast, final
from urllib.parse import urlsplit, urlunsplit

import httpx2
from mcp import Client, StdioServerParameters
from mcp.client import Transport
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError
from mcp.shared.message import SessionMessage
from mcp_types import CONNECTION_CLOSED, INVALID_REQUEST, CallToolResult, RequestParamsMeta, Tool
from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS

from harness.hooks.remote.mcp_strict import checked
from harness.hooks.remote.mcp_trace import PinnedTrace, pinned
from harness.hooks.remote.wire import WireError
from harness.http.errors import TLS_DROPPED_HINT

log = logging.getLogger(__name__)

DEFAULT_CONNECT_TIMEOUT: Final = 10.0
"""Bound on each request of the handshake; a stdio server pays its interpreter start here."""


@final
class McpConnection:
    """A lazily opened, shared MCP session to one server over stdio or streamable HTTP.

    Several executors (say ``pre`` and ``post`` of one operation) may share one
    connection, so one server process serves them all.

    Args:
        server: an ``http://`` or ``https://`` URL (streamable HTTP), or the command
            line of a stdio server as a sequence (``["python", "hooks.py"]``).
        env: extra environment variables for a stdio server.
        cwd: working directory of a stdio server.
        connect_timeout: bound on each handshake request, so a server that never
            answers cannot hold the owner task open forever.
        ssl: the TLS context of an ``https`` URL (client certificate, private CA; see
            :func:`harness.hooks.remote.tls.client_context`); the system's when omitted.

    A connection belongs to the event loop that first uses it; :meth:`aclose` it there.
    """

    def __init__(
        self,
        server: str | Sequence[str],
        *,
        env: Mapping[str, str] | None = None,
        cwd: str | Path | None = None,
        connect_timeout: float = DEFAULT_CONNECT_TIMEOUT,
        ssl: _ssl.SSLContext | None = None,
    ) -> None:
        self._ssl = ssl
        if isinstance(server, str):
            if urlsplit(server).scheme not in ("http", "https"):
                raise ValueError(
                    f"MCP server {server!r}: pass an http(s) URL, or a stdio command as a list"
                )
            self._params: StdioServerParameters | str = server
            self.endpoint = _display_url(server)
        else:
            argv = list(server)
            if not argv:
                raise ValueError("MCP stdio server command is empty")
            self._params = StdioServerParameters(
                command=argv[0], args=argv[1:], env=dict(env) if env else None, cwd=cwd
            )
            self.endpoint = shlex.join(argv)
        self._connect_timeout = connect_timeout
        self._owner: _Owner | None = None
        self._retired: set[asyncio.Task[None]] = set()
        self._lock = asyncio.Lock()

    async def call_tool(
        self,
        name: str,
        arguments: dict[str, Any],
        *,
        timeout: float | None = None,
        meta: dict[str, Any] | None = None,
    ) -> CallToolResult:
        """Call tool ``name`` over the shared session, opening it first if needed.

        Args:
            name: the tool.
            arguments: its arguments, JSON-ready.
            timeout: how long to wait for the reply once the request is written; the
                SDK then sends the server a courtesy cancel. Callers still bound the
                whole call (connecting included) with their own deadline; cancelling
                one call leaves the session open for the others.
            meta: the request's ``_meta``; if given, its trace keys, not the SDK's, are sent.

        Returns:
            The tool's result as the SDK parsed it; ``is_error`` results included.

        Raises:
            Exception: whatever the SDK raised (``MCPError``, transport or spawn
                errors); callers map it at their error boundary.
        """
        try:  # a try costs nothing until it catches
            owner, client = await self._ready_owner()
        except (httpx2.ReadError, httpx2.WriteError, httpx2.RemoteProtocolError) as error:
            if not self.endpoint.startswith("https:"):
                raise
            raise _dropped_over_tls(error) from error
        try:
            with pinned(meta):
                return await client.call_tool(
                    name,
                    arguments,
                    read_timeout_seconds=timeout,
                    meta=cast(RequestParamsMeta, meta) if meta else None,
                )
        except BaseException as error:
            if _session_is_gone(error, isinstance(self._params, str)):
                # The server exited or the transport broke: a new process (or HTTP
                # session) on the next call, rather than failing every call from now on.
                self._retire(owner)
            raise

    async def list_tools(self) -> list[Tool]:
        """Every tool the server offers (all pages), over the shared session.

        Raises:
            Exception: whatever the SDK raised; callers map it at their error boundary.
        """
        owner, client = await self._ready_owner()
        tools: list[Tool] = []
        cursor: str | None = None
        try:
            while True:
                page = await client.list_tools(cursor=cursor, cache_mode="refresh")
                tools.extend(page.tools)
                cursor = page.next_cursor
                if cursor is None:
                    return tools
        except BaseException as error:
            if _session_is_gone(error, isinstance(self._params, str)):
                self._retire(owner)
            raise

    async def connect(self) -> None:
        """Open the session now rather than on the first call (a stdio server's start
        then does not count against the first hook call's deadline).

        Raises:
            Exception: whatever spawning or the handshake raised.
        """
        await self._ready_owner()

    async def aclose(self) -> None:
        """Close the session and wait until its server process (if any) is stopped."""
        async with self._lock:
            if self._owner is not None:
                self._retire(self._owner)
            retired = list(self._retired)
        await asyncio.gather(*retired, return_exceptions=True)

    async def _ready_owner(self) -> tuple[_Owner, Client]:
        owner = self._owner
        if owner is not None and owner.usable():
            return owner, await owner.wait_ready()
        async with self._lock:
            owner = self._owner
            if owner is None or not owner.usable():
                if owner is not None:
                    self._retire(owner)
                owner = self._owner = _Owner(
                    self._params, self.endpoint, self._connect_timeout, self._ssl
                )
                self._retired.add(owner.task)
                owner.task.add_done_callback(self._retired.discard)
        return owner, await owner.wait_ready()

    def _retire(self, owner: _Owner) -> None:
        owner.close()
        if self._owner is owner:
            self._owner = None

    def __repr__(self) -> str:
        state = "open" if self._owner is not None and self._owner.usable() else "closed"
        return f"<McpConnection {self.endpoint} {state}>"


class _Owner:
    """The task that holds one :class:`mcp.Client` open until it is told to close."""

    def __init__(
        self,
        params: StdioServerParameters | str,
        endpoint: str,
        connect_timeout: float,
        ssl: _ssl.SSLContext | None = None,
    ) -> None:
        self._params = params
        self._ssl = ssl
        self._connect_timeout = connect_timeout
        loop = asyncio.get_running_loop()
        self._ready: asyncio.Future[Client] = loop.create_future()
        # A caller that timed out stops waiting; the outcome is still consumed here so
        # asyncio does not log "exception was never retrieved".
        self._ready.add_done_callback(lambda f: f.cancelled() or f.exception())
        # Set to close, and also by the transport when the server's side ended (a stdio
        # server exited): then the next call opens a new session instead of failing.
        self._stop = asyncio.Event()
        self.task = loop.create_task(self._run(), name=f"mcp-session {endpoint}")

    def usable(self) -> bool:
        return not self.task.done() and not self._stop.is_set()

    async def wait_ready(self) -> Client:
        # shield: one caller's deadline must not cancel the handshake others wait for.
        return await asyncio.shield(self._ready)

    def close(self) -> None:
        self._stop.set()
        if not self._ready.done():
            self.task.cancel()

    async def _run(self) -> None:
        transport = _watched(
            _http_without_redirects(self._params, self._ssl)
            if isinstance(self._params, str)
            else stdio_client(self._params),
            self._stop,
        )
        try:
            # The client-wide read timeout bounds the handshake (and the one tools/list
            # the SDK sends before a tool's first result); hook calls pass their own.
            async with Client(
                transport, cache=None, read_timeout_seconds=self._connect_timeout
            ) as client:
                self._ready.set_result(client)
                await self._stop.wait()
        except asyncio.CancelledError:
            raise
        except BaseException as error:  # handed to the waiting caller, mapped there
            if not self._ready.done():
                self._ready.set_exception(_unsupported_version(_first_leaf(error)))
            else:
                log.debug("MCP session ended: %r", error)
        finally:
            if not self._ready.done():
                # Closed while connecting: a plain error for the waiter, not its own
                # cancellation (which would read as the caller having been cancelled).
                self._ready.set_exception(ConnectionError("MCP session closed before it opened"))


def _session_is_gone(error: BaseException, over_http: bool) -> bool:
    """Whether a failed call means the session is unusable (inspected, not mapped, here)."""
    if isinstance(error, asyncio.CancelledError | TimeoutError):
        return False  # the caller gave up; the session itself may be fine
    if isinstance(error, MCPError):
        # INVALID_REQUEST is how the SDK reports an HTTP server that forgot our session
        # (404 after a restart); a stdio server sending it refused one request (another
        # schema in _meta): its process lives on. Anything else is the server answering.
        return error.code == CONNECTION_CLOSED or (over_http and error.code == INVALID_REQUEST)
    return True


@asynccontextmanager
async def _http_without_redirects(
    url: str, ssl: _ssl.SSLContext | None = None
) -> AsyncIterator[Any]:
    """Streamable HTTP on a client that follows no redirect, not even within the origin.

    The SDK follows same-origin 307/308s by itself; remote executors follow none
    (issue 9), so a 3xx fails the call like any other non-success, naming the status.
    """
    # The SDK's own defaults (create_mcp_http_client): 30 s, and 300 s to read a held stream.
    # max_redirects=0: the SDK stops following when that budget is spent, so at once.
    http = httpx2.AsyncClient(
        timeout=httpx2.Timeout(30.0, read=300.0),
        max_redirects=0,
        verify=ssl if ssl is not None else True,
        event_hooks={"response": [_refuse_redirect]},
    )
    async with http, streamable_http_client(url, http_client=http) as streams:
        yield streams


async def _refuse_redirect(response: httpx2.Response) -> None:
    """Fail a 3xx with its status and target, as the JSON-RPC executor words it."""
    if response.is_redirect:
        where = response.headers.get("location", "no Location")
        raise httpx2.HTTPStatusError(
            f"HTTP {response.status_code} redirect to {where}: remote executors do not "
            "follow redirects; configure the final URL",
            request=response.request,
            response=response,
        )


@asynccontextmanager
async def _watched(transport: Transport, ended: asyncio.Event) -> AsyncIterator[Any]:
    """``transport``: reads watched and checked (:class:`_EndWatch`), writes traced (.mcp_trace)."""
    async with transport as (read_stream, write_stream):
        yield _EndWatch(read_stream, ended), PinnedTrace(write_stream)


class _EndWatch:
    """A read stream that records its end (EOF, closed, broken) and checks results' isError."""

    def __init__(self, stream: Any, ended: asyncio.Event) -> None:  # noqa: ANN401  # ReadStream
        self._stream = stream
        self._ended = ended

    async def receive(self) -> SessionMessage | Exception:
        try:
            return checked(await self._stream.receive())
        except Exception:  # any end of the stream, whatever the library calls it
            self._ended.set()
            raise

    def __aiter__(self) -> _EndWatch:
        return self

    async def __anext__(self) -> SessionMessage | Exception:
        try:
            return checked(await self._stream.__anext__())
        except Exception:  # StopAsyncIteration included
            self._ended.set()
            raise

    async def aclose(self) -> None:
        await self._stream.aclose()

    async def __aenter__(self) -> _EndWatch:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc_val: BaseException | None,
        exc_tb: TracebackType | None,
    ) -> None:
        await self._stream.aclose()

    def __getattr__(self, name: str) -> Any:  # noqa: ANN401  # e.g. the SDK's last_context
        return getattr(self._stream, name)


def _dropped_over_tls(error: BaseException) -> ConnectionError:
    """A handshake that broke off over https, worded for what it may mean (issue 15)."""
    text = f"{type(error).__name__}: {error}" if str(error) else type(error).__name__
    return ConnectionError(f"{text} ({TLS_DROPPED_HINT})")


_SDK_VERSION_REFUSAL: Final = "Unsupported protocol version from the server: "


def _unsupported_version(error: BaseException) -> BaseException:
    """The SDK's bare ``RuntimeError`` for a server's protocol version, as a wire error
    naming both sides' versions (issue 26); any other error as it is."""
    text = str(error)
    if type(error) is not RuntimeError or not text.startswith(_SDK_VERSION_REFUSAL):
        return error
    theirs = text.removeprefix(_SDK_VERSION_REFUSAL)
    ours = ", ".join(HANDSHAKE_PROTOCOL_VERSIONS)
    return WireError(
        f"the MCP server speaks protocol version {theirs}, this client one of {ours}: "
        "upgrade the server or the harness's mcp package"
    )


def _first_leaf(error: BaseException) -> BaseException:
    """The first real error inside (possibly nested) task-group exception groups."""
    while isinstance(error, BaseExceptionGroup) and error.exceptions:
        error = error.exceptions[0]
    return error


def _display_url(url: str) -> str:
    """``url`` without credentials or query, fit for logs and Temporal history."""
    parts = urlsplit(url)
    host = parts.hostname or ""
    if parts.port is not None:
        host = f"{host}:{parts.port}"
    return urlunsplit((parts.scheme, host, parts.path, "", ""))
