"""Writes harness/hook_server/conformance/fixtures/*.json: the kit's fixtures, made here once so the
round-trip contexts (one per operation) are real samples (a test checks the committed files
are what this makes).

Edit this file, then ``PYTHONPATH=. python -m tests.support.conformance_fixtures``.
"""

import json
from pathlib import Path

from harness.hook_server.conformance.runner import SIGNED_REFUSED
from harness.hooks import OPERATIONS
from harness.hooks.remote.wire import SCHEMA_VERSION
from tests.unit.hooks.test_schema import sample

OUT = Path(__file__).resolve().parents[2] / "harness" / "hook_server" / "conformance" / "fixtures"


def probe(fid, tool, **arguments):
    return {
        "correlation_id": f"conformance-{fid}",
        "call": {"id": "c1", "name": tool, "arguments": arguments},
    }


IDENTITY = {
    "task": {"task_id": "conformance-task", "team": "T0", "channel": "C0", "thread": "1.2"},
    "attempt": 2,
    "lost_workers": 1,
    "idempotency_key": "conformance-task:op-7",
}
"""Identity fields as a retried operation of a real task carries them."""


def call(
    fid,
    desc,
    name,
    expect,
    point="tool.invoked.pre",
    transport="any",
    args=None,
    identity=None,
    **send,
):
    context = {**probe(fid, name, **(args or {})), **(identity or {})}
    return {
        "id": fid,
        "description": desc,
        "transport": transport,
        "send": {"point": point, "context": context, **send},
        "expect": expect,
    }


profile = [
    call(
        "profile.pass", "conformance.pass passes through", "conformance.pass", {"outcome": "pass"}
    ),
    call(
        "profile.rewrite",
        "conformance.rewrite replaces the call's arguments by {rewritten: true}",
        "conformance.rewrite",
        {
            "outcome": "rewrite",
            "context": {
                "call": {"arguments": {"rewritten": True}, "name": "conformance.rewrite"},
                "correlation_id": "conformance-profile.rewrite",
            },
        },
        args={"original": 1},
    ),
    call(
        "profile.veto",
        "conformance.veto aborts as a refusal",
        "conformance.veto",
        {"outcome": "abort", "refusal": True},
    ),
    call(
        "profile.abort",
        "conformance.abort aborts without refusal",
        "conformance.abort",
        {"outcome": "abort", "refusal": False},
    ),
    call(
        "profile.rewrite-identity",
        "a replacement keeps the operation's identity (task, attempt, lost_workers, "
        "idempotency_key) as sent",
        "conformance.rewrite",
        {
            "outcome": "rewrite",
            "context": {"call": {"arguments": {"rewritten": True}}, **IDENTITY},
            "meaning": "the executor changes the operation's identity: the worker refuses "
            "every replacement that does (send the context back with only what you mean to "
            "change changed)",
        },
        identity=IDENTITY,
    ),
    call(
        "profile.ask",
        "conformance.ask holds the call for a person's approval, timeout_seconds 120",
        "conformance.ask",
        {
            "outcome": "ask",
            "timeout_seconds": 120,
            "meaning": 'an ask is the abort {"reason": ..., "refusal": true, "ask": true, '
            '"timeout_seconds": N} (over JSON-RPC the data of error -32001, over MCP the '
            'reply\'s "abort"); the harness read this one otherwise',
        },
        args={"seconds": 120},
    ),
    call(
        "profile.slow",
        "conformance.slow outlasts the call's deadline: the harness reports a timeout",
        "conformance.slow",
        {"outcome": "timeout"},
        args={"seconds": 3},
        timeout=0.5,
    ),
    call(
        "profile.unknown-behaviour",
        "an unknown conformance.* call name passes through",
        "conformance.from-a-later-kit",
        {"outcome": "pass"},
    ),
    call(
        "profile.skips-policy",
        "a probe never reaches the policy: a call a policy would refuse passes",
        "write_artefact",
        {"outcome": "pass"},
        args={"name": "final-../../etc/passwd"},
    ),
    call(
        "profile.unserved-point",
        "a probe at a point the executor does not serve is answered (post)",
        "conformance.rewrite",
        {"outcome": "rewrite", "context": {"call": {"arguments": {"rewritten": True}}}},
        point="tool.invoked.post",
    ),
    call(
        "profile.in-phase",
        "a probe at the in phase follows the profile too (veto)",
        "conformance.veto",
        {"outcome": "abort", "refusal": True},
        point="tool.invoked.in",
    ),
    call(
        "reply.large-within-cap",
        "a 200 KB replacement within the reply cap is read",
        "conformance.large",
        {"outcome": "rewrite", "context": {"call": {"name": "conformance.large"}}},
        args={"bytes": 200_000},
    ),
    call(
        "reply.too-large",
        "a reply over the harness's reply cap (64 KiB here) is refused by the harness",
        "conformance.large",
        {"outcome": "too_large"},
        args={"bytes": 300_000},
        transport="jsonrpc",
        max_reply_bytes=65536,
    ),
]


def body(method, context, rid=1, **extra):
    msg = {"jsonrpc": "2.0", "method": method, "params": {"context": context}, **extra}
    if rid is not None:
        msg["id"] = rid
    return json.dumps(msg)


def raw(fid, desc, text, expect, headers=None):
    return {
        "id": fid,
        "description": desc,
        "transport": "jsonrpc",
        "send": {"body": text, **({"headers": headers} if headers else {})},
        "expect": expect,
    }


P = "tool.invoked.pre"
jsonrpc = [
    raw(
        "jsonrpc.parse-error",
        "a body that is not JSON gets -32700",
        '{"jsonrpc": "2.0", "id": 1, "method": ',
        {"outcome": "error", "code": -32700},
    ),
    raw(
        "jsonrpc.no-method",
        "a request without method gets -32600",
        '{"jsonrpc": "2.0", "id": 1}',
        {"outcome": "error", "code": -32600},
    ),
    raw(
        "jsonrpc.wrong-version",
        'a request with jsonrpc "1.0" gets -32600',
        body(P, probe("v", "conformance.pass")).replace('"2.0"', '"1.0"'),
        {"outcome": "error", "code": -32600},
    ),
    raw(
        "jsonrpc.unknown-method",
        "a method that is no hook point gets -32601",
        body("conformance.no-such-operation.pre", probe("m", "conformance.pass")),
        {"outcome": "error", "code": -32601},
    ),
    raw(
        "jsonrpc.context-not-object",
        "a params.context that is no object gets -32602 (or -32601 where the point is not served)",
        json.dumps(
            {"jsonrpc": "2.0", "id": 1, "method": P, "params": {"context": "conformance-x"}}
        ),
        {"outcome": "error", "code": [-32602, -32601]},
    ),
    raw(
        "jsonrpc.context-missing",
        "params without context gets -32602 (or -32601 where the point is not served)",
        json.dumps({"jsonrpc": "2.0", "id": 1, "method": P, "params": {}}),
        {"outcome": "error", "code": [-32602, -32601]},
    ),
    raw(
        "jsonrpc.context-invalid",
        "a tool.invoked context without its call gets -32602",
        body(P, {"correlation_id": "conformance-invalid"}),
        {"outcome": "error", "code": -32602},
    ),
    raw(
        "jsonrpc.string-id",
        "a string id is echoed in the reply",
        body(P, probe("s", "conformance.pass"), rid="abc-7"),
        {"outcome": "pass"},
    ),
    raw(
        "jsonrpc.notification",
        "a notification (no id) gets no reply",
        body(P, probe("n", "conformance.pass"), rid=None),
        {"outcome": "no_reply"},
    ),
    raw(
        "jsonrpc.batch",
        "a batch gets an array of replies, or one -32600 (batches are optional here)",
        "["
        + body(P, probe("b1", "conformance.pass"), rid=1)
        + ", "
        + body(P, probe("b2", "conformance.pass"), rid=2)
        + "]",
        {"outcome": "batch"},
    ),
    raw(
        "schema.header-ours",
        f"a request naming schema {SCHEMA_VERSION} in x-tiny-harness-schema is served",
        body(P, probe("h", "conformance.pass")),
        {"outcome": "pass"},
        headers={"x-tiny-harness-schema": SCHEMA_VERSION},
    ),
    raw(
        "schema.header-other",
        "a request naming another schema version is refused with -32600",
        body(P, probe("h2", "conformance.pass")),
        {"outcome": "error", "code": -32600},
        headers={"x-tiny-harness-schema": "v999"},
    ),
]


def mcp(fid, desc, tool, arguments, expect, meta=None):
    send = {"tool": tool, "arguments": arguments, **({"meta": meta} if meta else {})}
    return {"id": fid, "description": desc, "transport": "mcp", "send": send, "expect": expect}


mcpf = [
    mcp(
        "schema.meta-ours",
        f"a call naming schema {SCHEMA_VERSION} in _meta is served",
        "hooks." + P,
        {"context": probe("m1", "conformance.pass")},
        {"outcome": "pass"},
        meta={"tiny-harness.dev/schema": SCHEMA_VERSION},
    ),
    mcp(
        "schema.meta-other",
        "a call naming another schema version in _meta is refused (-32600)",
        "hooks." + P,
        {"context": probe("m2", "conformance.pass")},
        {"outcome": "error", "code": -32600},
        meta={"tiny-harness.dev/schema": "v999"},
    ),
    mcp(
        "mcp.unknown-tool",
        "a tool that is no hook point is a protocol error (-32602)",
        "hooks.conformance.no-such-operation.pre",
        {"context": probe("u", "conformance.pass")},
        {"outcome": "error", "code": -32602},
    ),
    mcp(
        "mcp.context-invalid",
        "a tool.invoked context without its call is an error result",
        "hooks." + P,
        {"context": {"correlation_id": "conformance-invalid"}},
        {"outcome": "error"},
    ),
]


def signed(fid, desc, signature, expect):
    send = {"signature": signature, "point": P, "context": probe(fid, "conformance.pass")}
    return {
        "id": fid,
        "description": desc,
        "transport": "jsonrpc",
        "send": send,
        "expect": expect,
    }


def refused(meaning):
    return {"outcome": "unauthorized", "meaning": meaning}


signature = [
    signed(
        "signature.valid",
        "a request signed as the harness signs it is served",
        "valid",
        {
            "outcome": "pass",
            "meaning": f"the executor refuses what the harness signs: {SIGNED_REFUSED}",
        },
    ),
    signed(
        "signature.unsigned",
        "a request without signature headers is refused with HTTP 401",
        "unsigned",
        refused(
            "the executor verifies no signature: it served a request that carried none "
            "(verify every request, docs/hooks/signing.md)"
        ),
    ),
    signed(
        "signature.tampered",
        "a request changed after it was signed is refused with HTTP 401",
        "tampered",
        refused(
            "the executor does not check that the signature matches the body: it served a "
            "request changed after signing"
        ),
    ),
    signed(
        "signature.stale",
        "a request signed an hour ago (a replay) is refused with HTTP 401",
        "stale",
        refused(
            "the executor does not check webhook-timestamp: it served a request signed an "
            "hour ago, as a replay would be"
        ),
    ),
]

rt = []
for op in sorted(OPERATIONS):  # by name: no module order reaches the file
    ctx = (
        sample(op)
        .model_copy(update={"correlation_id": "conformance-round-trip"})
        .model_dump(mode="json")
    )
    rt.append(
        {
            "id": f"contexts.{op}",
            "description": f"a {op} context (schema {SCHEMA_VERSION}) is accepted and passed "
            "through",
            "transport": "any",
            "send": {"point": f"{op}.pre", "context": ctx},
            "expect": {"outcome": "pass"},
        }
    )

FILES = {
    "10-profile.json": profile,
    "20-jsonrpc.json": jsonrpc,
    "30-mcp.json": mcpf,
    "40-contexts.json": rt,
    "50-signature.json": signature,
}


def render(data):
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


if __name__ == "__main__":
    for name, data in FILES.items():
        (OUT / name).write_text(render(data), encoding="utf-8")
