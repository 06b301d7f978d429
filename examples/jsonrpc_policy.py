"""A remote hook executor over JSON-RPC 2.0: a tool-call policy served by aiohttp.

Run it, then point the harness at it::

    python examples/jsonrpc_policy.py --port 8765
    # harness side:
    manager.register("tool.invoked.pre",
                     JsonRpcExecutor("http://127.0.0.1:8765/", point="tool.invoked.pre"))

It vetoes ``shell`` calls that contain ``rm -rf`` (the operation is refused; the task
sees ``refused: ...``) and rewrites one argument: ``http_get`` URLs are upgraded to https.
"""

from __future__ import annotations

import argparse

from aiohttp import web

from harness.hooks import HookAbort
from harness.hooks.contexts import ToolInvokedContext
from harness.hooks.remote.jsonrpc_server import jsonrpc_app


async def tool_policy(ctx: ToolInvokedContext) -> ToolInvokedContext | None:
    call = ctx.call
    if call.name == "shell" and "rm -rf" in str(call.arguments.get("command", "")):
        raise HookAbort("shell commands with rm -rf are not allowed", refusal=True)
    url = str(call.arguments.get("url", ""))
    if call.name == "http_get" and url.startswith("http://"):
        arguments = {**call.arguments, "url": "https://" + url.removeprefix("http://")}
        return ctx.model_copy(update={"call": call.model_copy(update={"arguments": arguments})})
    return None  # anything else passes through unchanged


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8765)
    args = parser.parse_args()
    app = jsonrpc_app({"tool.invoked.pre": tool_policy})
    web.run_app(app, host=args.host, port=args.port, print=lambda text: print(text, flush=True))


if __name__ == "__main__":
    main()
