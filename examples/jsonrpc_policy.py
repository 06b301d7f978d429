"""A remote hook executor over JSON-RPC 2.0: a policy for the agent's artefact writes (aiohttp).

It refuses ``write_artefact`` calls to artefacts named ``final-…`` (people write those;
the agent is told ``refused: …`` and goes on) and lets every other call through. Every
request must carry ``Authorization: Bearer $POLICY_TOKEN`` (else 401). Run it::

    export POLICY_TOKEN=$(python -c 'import secrets; print(secrets.token_urlsafe())')
    python examples/jsonrpc_policy.py        # serves http://127.0.0.1:8765/hooks

and start the worker with ``HARNESS_HOOKS_CONFIG=examples/hooks.toml`` and the same
``POLICY_TOKEN`` (the file registers it as a validator at ``tool.invoked.pre``), or
register it in code::

    JsonRpcExecutor("http://127.0.0.1:8765/hooks", point="tool.invoked.pre",
                    headers={"Authorization": f"Bearer {token}"})

Without ``POLICY_TOKEN`` it does not start (exit status 2, one line saying so).
"""

from __future__ import annotations

import argparse
import hmac
import os
import sys

from aiohttp import web

from harness.hook_server.jsonrpc import jsonrpc_app
from harness.hooks import HookAbort
from harness.hooks.contexts import ToolInvokedContext

PORT = 8765
PATH = "/hooks"
PROTECTED = "final-"


async def protect_final_artefacts(ctx: ToolInvokedContext) -> ToolInvokedContext | None:
    call = ctx.call
    if call.name == "write_artefact" and str(call.arguments.get("name", "")).startswith(PROTECTED):
        raise HookAbort(
            f"artefacts named {PROTECTED}… are written by people, not the agent", refusal=True
        )
    return None  # anything else passes through unchanged


def app(token: str) -> web.Application:
    """The JSON-RPC app, behind a bearer-token check."""
    expected = f"Bearer {token}".encode()

    @web.middleware
    async def bearer(request: web.Request, handler):
        given = request.headers.get("Authorization", "").encode()
        if not hmac.compare_digest(given, expected):
            raise web.HTTPUnauthorized(text="Authorization: Bearer <POLICY_TOKEN> is required")
        return await handler(request)

    served = jsonrpc_app({"tool.invoked.pre": protect_final_artefacts}, path=PATH)
    served.middlewares.append(bearer)
    return served


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=PORT)
    args = parser.parse_args()
    token = os.environ.get("POLICY_TOKEN", "")
    if not token:
        print(
            "POLICY_TOKEN is not set: export the bearer token the harness sends "
            "(examples/hooks.toml reads the same variable)",
            file=sys.stderr,
        )
        sys.exit(2)
    url = f"http://{args.host}:{args.port}{PATH}"
    web.run_app(
        app(token),
        host=args.host,
        port=args.port,
        print=lambda _: print(f"serving the policy at {url}", flush=True),
    )


if __name__ == "__main__":
    main()
