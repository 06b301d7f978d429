"""Serve plain Python functions as hook tools ``hooks.<operation>.<phase>`` on an MCP server.

The server side of :class:`~harness.hooks.remote.mcp.McpExecutor`: each function
receives the point's typed context and returns a replacement or ``None``, or raises
:class:`~harness.hooks.errors.HookAbort` to veto, exactly like a local executor::

    async def confine(ctx: ToolInvokedContext) -> ToolInvokedContext | None: ...

    if __name__ == "__main__":
        serve_from_command_line({"tool.invoked.pre": confine})   # stdio, or --http --port N

Replies use :mod:`~harness.hooks.remote.reply` (which also runs the function); a
function that raises anything else answers with an ``isError`` result. Built on the
SDK's low-level ``Server`` so the result is exactly the encoding the executor reads,
nothing inferred from annotations. The conformance kit's probes are answered by
:mod:`.profile` at every point, never by the functions, and a call whose
``_meta`` names another schema version is refused.
"""

from __future__ import annotations

import argparse
import inspect
import warnings
from collections.abc import Mapping, Sequence
from typing import Any, Final, final

import anyio
from mcp.server import Server
from mcp.server.context import ServerRequestContext
from mcp.server.stdio import stdio_server
from mcp.shared.exceptions import MCPError
from mcp_types import (
    INVALID_PARAMS,
    INVALID_REQUEST,
    CallToolRequestParams,
    CallToolResult,
    ListToolsResult,
    PaginatedRequestParams,
    TextContent,
    Tool,
)
from pydantic.json_schema import PydanticJsonSchemaWarning

from harness.hook_server.profile import answer_probe, is_probe
from harness.hooks.catalogue import points, split_point
from harness.hooks.contexts import context_type
from harness.hooks.remote.reply import (
    TOOL_PREFIX,
    HookFunction,
    HookFunctionError,
    answer,
    dumps,
    tool_name,
)
from harness.hooks.remote.schema_version import SCHEMA_META_KEY, version_problem

DEFAULT_NAME: Final = "tiny-harness-hooks"
DEFAULT_PATH: Final = "/mcp"


@final
class HookTools:
    """Hook functions keyed by point, as the ``tools/list`` and ``tools/call`` handlers.

    Use :func:`hook_server` for a ready server; compose these handlers into your own
    low-level ``Server`` when it serves other tools too.

    Args:
        hooks: ``{"tool.invoked.pre": fn, ...}``.

    Raises:
        UnknownHookPointError: a key is not a point of the catalogue.
    """

    def __init__(self, hooks: Mapping[str, HookFunction]) -> None:
        self._hooks: dict[str, tuple[str, HookFunction]] = {}
        self._tools: list[Tool] = []
        for point, fn in hooks.items():
            split_point(point)
            name = tool_name(point)
            self._hooks[name] = (point, fn)
            self._tools.append(_tool(point, name, fn))

    @property
    def tool_names(self) -> tuple[str, ...]:
        """The names of the tools served, ``hooks.<point>`` each."""
        return tuple(self._hooks)

    async def list_tools(
        self, _request: ServerRequestContext[Any], _params: PaginatedRequestParams | None
    ) -> ListToolsResult:
        """Handler of ``tools/list``: one tool per hook point."""
        return ListToolsResult(tools=list(self._tools))

    async def call_tool(
        self, _request: ServerRequestContext[Any], params: CallToolRequestParams
    ) -> CallToolResult:
        """Handler of ``tools/call``: validate the context, run the function, encode its outcome.

        A conformance probe is answered by the profile at any ``hooks.<point>`` of the
        catalogue, listed or not.

        Raises:
            MCPError: ``INVALID_PARAMS`` for a tool this server does not serve (a
                protocol error, as the MCP spec asks for unknown tools);
                ``INVALID_REQUEST`` for a ``_meta`` naming another schema version.
        """
        meta: Mapping[str, Any] = params.meta or {}
        problem = version_problem(meta.get(SCHEMA_META_KEY), where=f"_meta {SCHEMA_META_KEY}")
        if problem is not None:
            raise MCPError(code=INVALID_REQUEST, message=problem)
        raw = (params.arguments or {}).get("context")
        entry = self._hooks.get(params.name)
        probed = params.name.removeprefix(TOOL_PREFIX)
        if is_probe(raw) and params.name.startswith(TOOL_PREFIX) and probed in points():
            entry = (probed, answer_probe)
        if entry is None:
            raise MCPError(code=INVALID_PARAMS, message=f"Unknown tool: {params.name}")
        point, fn = entry
        try:
            payload = await answer(point, fn, raw)
        except HookFunctionError as error:
            return _error(str(error))
        return _reply(payload)


def hook_server(hooks: Mapping[str, HookFunction], *, name: str = DEFAULT_NAME) -> Server[Any]:
    """An MCP server whose tools are ``hooks`` (see :class:`HookTools`)."""
    tools = HookTools(hooks)
    return Server(name, on_list_tools=tools.list_tools, on_call_tool=tools.call_tool)


async def serve_stdio(server: Server[Any]) -> None:
    """Serve ``server`` over this process's stdin and stdout until stdin closes."""
    async with stdio_server() as (read_stream, write_stream):
        await server.run(read_stream, write_stream, server.create_initialization_options())


async def serve_http(
    server: Server[Any],
    *,
    host: str = "127.0.0.1",
    port: int = 8000,
    path: str = DEFAULT_PATH,
    tls_cert: str | None = None,
    tls_key: str | None = None,
    tls_client_ca: str | None = None,
) -> None:
    """Serve ``server`` over streamable HTTP at ``http://host:port/path`` until cancelled.

    With ``tls_cert`` (and ``tls_key``) it is ``https``; with ``tls_client_ca`` too, every
    client must present a certificate signed by that CA (mTLS), or the handshake fails.
    """
    import ssl

    import uvicorn  # the HTTP stack loads only for servers that use it

    app = server.streamable_http_app(streamable_http_path=path, host=host)
    tls: dict[str, Any] = {}
    if tls_cert is not None:
        tls = {"ssl_certfile": tls_cert, "ssl_keyfile": tls_key}
        if tls_client_ca is not None:
            tls |= {"ssl_ca_certs": tls_client_ca, "ssl_cert_reqs": ssl.CERT_REQUIRED}
    config = uvicorn.Config(app, host=host, port=port, log_level="warning", lifespan="on", **tls)
    await uvicorn.Server(config).serve()


def serve_from_command_line(
    hooks: Mapping[str, HookFunction],
    argv: Sequence[str] | None = None,
    *,
    name: str = DEFAULT_NAME,
) -> None:
    """Run a hook server as a script: stdio by default, ``--http [--host H] [--port N]``.

    ``--tls-cert F [--tls-key K]`` serves https; ``--tls-client-ca CA`` then requires
    every client to present a certificate that CA signed (mTLS).

    Args:
        hooks: the functions to serve, keyed by point.
        argv: the arguments (``sys.argv[1:]`` when ``None``).
        name: the server's name in the MCP handshake.
    """
    parser = argparse.ArgumentParser(description=f"MCP hook server {name}")
    parser.add_argument("--http", action="store_true", help="serve streamable HTTP, not stdio")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8000)
    parser.add_argument("--path", default=DEFAULT_PATH)
    parser.add_argument("--tls-cert", help="PEM certificate: serve https")
    parser.add_argument("--tls-key", help="PEM key of --tls-cert, if not in its file")
    parser.add_argument("--tls-client-ca", help="PEM CA bundle: require client certificates")
    args = parser.parse_args(argv)
    server = hook_server(hooks, name=name)
    if args.http:
        anyio.run(
            lambda: serve_http(
                server,
                host=args.host,
                port=args.port,
                path=args.path,
                tls_cert=args.tls_cert,
                tls_key=args.tls_key,
                tls_client_ca=args.tls_client_ca,
            )
        )
    else:
        anyio.run(serve_stdio, server)


def _tool(point: str, name: str, fn: HookFunction) -> Tool:
    with warnings.catch_warnings():  # a frozen empty map's default is left out, rightly
        warnings.simplefilter("ignore", PydanticJsonSchemaWarning)
        schema = context_type(point).model_json_schema()
    defs = schema.pop("$defs", None)
    input_schema: dict[str, Any] = {
        "type": "object",
        "properties": {"context": schema},
        "required": ["context"],
    }
    if defs:
        input_schema["$defs"] = defs  # refs read "#/$defs/...", so they stay at the root
    doc = inspect.getdoc(fn) or ""
    summary = doc.splitlines()[0] if doc else f"hook executor at {point}"
    return Tool(name=name, description=summary, input_schema=input_schema)


def _reply(payload: dict[str, Any]) -> CallToolResult:
    # Text too, for clients that ignore structuredContent (the executor reads either).
    return CallToolResult(content=[TextContent(text=dumps(payload))], structured_content=payload)


def _error(text: str) -> CallToolResult:
    return CallToolResult(content=[TextContent(text=text)], is_error=True)
