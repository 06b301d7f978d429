"""A JSON-RPC hook executor that gets specific parts of the contract wrong, on purpose.

The conformance kit must fail it fixture by fixture (``BROKEN_FIXTURES``) and pass the
rest, so the kit's verdicts are shown to mean something. It wraps the real dispatcher
and spoils its replies; run it as a process: ``python -m tests.support.broken_executor --port N``.
"""

from __future__ import annotations

import argparse
import json

from aiohttp import web

from harness.hook_server.jsonrpc import JsonRpcDispatcher
from harness.hooks.remote.wire import ABORT

BROKEN_FIXTURES = frozenset(
    {
        "profile.rewrite",
        "profile.rewrite-identity",
        "profile.unserved-point",  # rewrites to {"rewritten": false}
        "profile.veto",
        "profile.in-phase",  # a veto that is not a refusal
        "jsonrpc.parse-error",  # -32600 for a body that is not JSON
        "jsonrpc.notification",  # answers notifications
        "jsonrpc.string-id",  # echoes a string id as a number
        "schema.header-other",  # ignores the schema version header
        "contexts.compaction.keep",  # rejects a valid compaction.keep context
    }
)
"""The fixtures this executor fails; every other JSON-RPC fixture it passes."""


def _spoil(reply: dict) -> dict:
    result = reply.get("result")
    if isinstance(result, dict) and result.get("call", {}).get("arguments") == {"rewritten": True}:
        result["call"]["arguments"] = {"rewritten": False}
    error = reply.get("error")
    if isinstance(error, dict) and error.get("code") == ABORT:
        error["data"]["abort"]["refusal"] = False
    return reply


def app() -> web.Application:
    dispatcher = JsonRpcDispatcher({"tool.invoked.pre": lambda ctx: None})

    async def handle(request: web.Request) -> web.Response:
        body = await request.read()
        try:
            message = json.loads(body)
        except ValueError:
            return web.json_response(
                {"jsonrpc": "2.0", "id": None, "error": {"code": -32600, "message": "bad"}}
            )
        if isinstance(message, dict) and "id" not in message:
            return web.json_response({"jsonrpc": "2.0", "id": None, "result": None})
        if isinstance(message, dict) and message.get("method") == "compaction.keep.pre":
            return web.json_response(
                {
                    "jsonrpc": "2.0",
                    "id": message.get("id"),
                    "error": {"code": -32602, "message": "no"},
                }
            )
        out = await dispatcher.dispatch(body)  # the schema header is never looked at
        reply = _spoil(json.loads(out or b"{}"))
        if isinstance(reply.get("id"), str):
            reply["id"] = 7
        return web.json_response(reply)

    served = web.Application()
    served.router.add_post("/hooks", handle)
    return served


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, required=True)
    args = parser.parse_args()
    web.run_app(
        app(),
        host="127.0.0.1",
        port=args.port,
        print=lambda _: print("serving the broken executor", flush=True),
    )
