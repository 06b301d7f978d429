"""A hand-written MCP server over stdio that answers a tool call with whatever result it is told.

The SDK's own server validates what it sends (``"isError": "false"`` would leave it as
``false``), so a test of what the harness does with a server that breaks the protocol's
types needs one that writes raw JSON: each ``tools/call`` answers with the object in the
call's ``context.call.arguments.result``, as it is (``resultType`` added). It speaks the
handshake of the installed SDK (``server/discover``) and nothing else; a script the tests
spawn.
"""

from __future__ import annotations

import json
import sys

TOOL = "hooks.tool.invoked.pre"
COMPLETE = {"resultType": "complete", "cacheScope": "private", "ttlMs": 0}


def result_for(method: str, params: dict) -> dict:
    if method == "tools/call":
        return {
            "resultType": "complete",
            **params["arguments"]["context"]["call"]["arguments"]["result"],
        }
    if method == "tools/list":
        return {"tools": [{"name": TOOL, "inputSchema": {"type": "object"}}], **COMPLETE}
    return {"capabilities": {"tools": {}}, "supportedVersions": ["2026-07-28"], **COMPLETE}


def main() -> None:
    for line in sys.stdin:
        message = json.loads(line)
        if "id" not in message:  # a notification
            continue
        result = result_for(message.get("method", ""), message.get("params") or {})
        reply = {"jsonrpc": "2.0", "id": message["id"], "result": result}
        sys.stdout.write(json.dumps(reply) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
