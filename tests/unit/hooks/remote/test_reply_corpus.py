"""One corpus of good and bad replies (``tests/fixtures/replies``), judged alike three ways (issue
28): by the harness's own reading, over a real JSON-RPC server and a real MCP server process;
by the published schemas with an independent validator (``jsonschema``); and by the
conformance kit. Every reply the harness refuses, the schema refuses, and the other way
round; a refusal names the field."""

from __future__ import annotations

import json
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from aiohttp import web
from mcp_types import CallToolResult

from harness.domain import ToolCall
from harness.hook_server.conformance.jsonrpc_target import read_jsonrpc_reply
from harness.hook_server.conformance.mcp_target import read_tool_result
from harness.hooks import HookAbort, HookTransportError, JsonRpcExecutor, McpExecutor
from harness.hooks.contexts import ToolInvokedContext, context_type
from harness.hooks.remote import McpConnection
from harness.hooks.remote.jsonrpc import RemoteError, read_reply
from harness.hooks.remote.reply import decode_reply
from harness.hooks.remote.strict import ReplyError
from harness.hooks.remote.wire import SCHEMA_VERSION
from harness.http import AiohttpClient

ROOT = Path(__file__).resolve().parents[4]
CORPUS = ROOT / "tests" / "fixtures" / "replies"
PUBLISHED = ROOT / "schemas" / SCHEMA_VERSION
RAW_MCP = [sys.executable, str(Path(__file__).with_name("servers") / "raw_mcp.py")]


def corpus(transport: str) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    document = json.loads((CORPUS / f"{transport}.json").read_text())
    return document, document["replies"]


JSONRPC, JSONRPC_REPLIES = corpus("jsonrpc")
MCP, MCP_REPLIES = corpus("mcp")
POINT = JSONRPC["point"]
assert MCP["point"] == POINT


def ids(entries: list[dict[str, Any]]) -> list[str]:
    return [entry["id"] for entry in entries]


def published(path: str) -> jsonschema.Draft202012Validator:
    schema = json.loads((PUBLISHED / path).read_text())
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)


def schema_accepts(envelope: str, member: str, reply: object) -> bool:
    """Whether the published envelope accepts ``reply``, and its context object (if any) the
    published context schema: the two steps docs/hooks/protocol.md tells an executor."""
    if not published(f"replies/{envelope}.json").is_valid(reply):
        return False
    carried = reply.get(member) if isinstance(reply, dict) else None
    operation = POINT.rsplit(".", 1)[0]
    return not isinstance(carried, dict) or published(f"contexts/{operation}.json").is_valid(
        carried
    )


def sent() -> ToolInvokedContext:
    return ToolInvokedContext(call=ToolCall(id="c1", name="read_file", arguments={"path": "a"}))


def verdict_of(call: Any) -> tuple[str, str]:  # a thunk
    """``(verdict, what was said)`` of reading a reply with the harness."""
    try:
        out = call()
    except HookAbort as abort:
        return "abort", abort.reason
    except RemoteError as error:
        return "error", str(error)
    except ReplyError as error:
        return "refused", str(error)
    return ("pass", "") if out is None else ("rewrite", "")


def check(entry: dict[str, Any], verdict: str, said: str) -> None:
    assert verdict == entry["verdict"], f"{entry['id']}: {entry['says']}: {verdict} ({said})"
    if verdict == "refused":
        assert f"{entry['field']}: " in said, f"{entry['id']}: the refusal must name the field"


# --- the harness ------------------------------------------------------------------------


@pytest.mark.parametrize("entry", JSONRPC_REPLIES, ids=ids(JSONRPC_REPLIES))
def test_the_harness_reads_each_jsonrpc_reply_as_the_corpus_says(entry):
    body = json.dumps(entry["reply"])
    verdict, said = verdict_of(lambda: read_reply(body, context_type(POINT), request_id=1))
    check(entry, verdict, said)


@pytest.mark.parametrize("entry", MCP_REPLIES, ids=ids(MCP_REPLIES))
def test_the_harness_reads_each_hook_reply_as_the_corpus_says(entry):
    verdict, said = verdict_of(lambda: decode_reply(POINT, entry["reply"]))
    check(entry, verdict, said)


@pytest.fixture(scope="module")
async def corpus_server() -> AsyncIterator[str]:
    """A JSON-RPC server answering ``/<id>`` with that corpus entry's reply, as it is."""
    replies = {entry["id"]: json.dumps(entry["reply"]) for entry in JSONRPC_REPLIES}

    async def answer(request: web.Request) -> web.Response:
        text = replies[request.match_info["entry"]]
        return web.Response(text=text, content_type="application/json")

    app = web.Application()
    app.router.add_post("/{entry}", answer)
    runner = web.AppRunner(app)
    await runner.setup()
    await web.TCPSite(runner, "127.0.0.1", 0).start()
    yield f"http://127.0.0.1:{runner.addresses[0][1]}"
    await runner.cleanup()


async def through(executor: JsonRpcExecutor | McpExecutor, ctx: ToolInvokedContext) -> tuple:
    """``(verdict, cause)`` of a real call, as the worker would meet it."""
    try:
        out = await executor(ctx)
    except HookAbort as abort:
        return "abort", abort.reason
    except HookTransportError as error:
        kind = "error" if error.cause.startswith("JSON-RPC error") else "refused"
        return kind, error.cause
    return ("pass", "") if out is None else ("rewrite", "")


async def test_a_real_jsonrpc_executor_judges_every_reply_so(corpus_server):
    http = AiohttpClient()
    try:
        for entry in JSONRPC_REPLIES:  # a fresh executor per reply: its first request id is 1
            executor = JsonRpcExecutor(f"{corpus_server}/{entry['id']}", point=POINT, http=http)
            check(entry, *await through(executor, sent()))
    finally:
        await http.aclose()


async def test_a_real_mcp_executor_judges_every_reply_so():
    connection = McpConnection(RAW_MCP)
    executor = McpExecutor(connection, point=POINT, timeout=20)
    try:
        for entry in MCP_REPLIES:
            result = {"content": [], "structuredContent": entry["reply"]}
            ctx = sent().model_copy(update={"call": ToolCall(id="c1", name="raw", arguments={})})
            ctx = ctx.model_copy(
                update={"call": ctx.call.model_copy(update={"arguments": {"result": result}})}
            )
            check(entry, *await through(executor, ctx))
    finally:
        await connection.aclose()


@pytest.mark.parametrize(
    ("flag", "verdict"),
    [(False, "pass"), (True, "refused"), ("false", "refused"), (0, "refused")],
    ids=["false", "true", "string-false", "zero"],
)
async def test_an_mcp_result_flag_is_a_json_boolean_or_the_call_fails(flag, verdict):
    """The MCP SDK would read ``"false"`` and ``0`` as false: the harness refuses them, naming
    ``isError``; a true flag is the tool's own error."""
    result = {"content": [], "structuredContent": {"context": None}, "isError": flag}
    call = ToolCall(id="c1", name="raw", arguments={"result": result})
    async with McpExecutor(McpConnection(RAW_MCP), point=POINT, timeout=20) as executor:
        got, cause = await through(executor, ToolInvokedContext(call=call))
    assert got == verdict
    if isinstance(flag, bool):
        assert not flag or "tool reported an error" in cause
    else:
        assert "reply does not conform (CallToolResult): isError: " in cause


# --- the published schemas -------------------------------------------------------------


@pytest.mark.parametrize("entry", JSONRPC_REPLIES, ids=ids(JSONRPC_REPLIES))
def test_the_published_schemas_judge_each_jsonrpc_reply_as_the_harness_does(entry):
    accepted = schema_accepts("jsonrpc_result", "result", entry["reply"])
    # A reply bound to its request (the id it echoes) is out of any schema's sight.
    assert accepted == (entry["verdict"] != "refused" or entry.get("request_bound", False))


@pytest.mark.parametrize("entry", MCP_REPLIES, ids=ids(MCP_REPLIES))
def test_the_published_schemas_judge_each_hook_reply_as_the_harness_does(entry):
    assert schema_accepts("hook_reply", "context", entry["reply"]) == (
        entry["verdict"] != "refused"
    )


def test_the_corpus_holds_both_kinds_of_every_transport():
    for replies in (JSONRPC_REPLIES, MCP_REPLIES):
        verdicts = [entry["verdict"] for entry in replies]
        assert {"pass", "rewrite", "abort", "refused"} <= set(verdicts)
        assert len(set(ids(replies))) == len(replies)
        assert all("field" in entry for entry in replies if entry["verdict"] == "refused")


# --- the conformance kit ---------------------------------------------------------------

_KIT = {"invalid": "refused", "ask": "abort"}  # the kit tells an ask from other aborts


@pytest.mark.parametrize("entry", JSONRPC_REPLIES, ids=ids(JSONRPC_REPLIES))
def test_the_kit_reads_each_raw_jsonrpc_reply_as_the_harness_does(entry):
    got = read_jsonrpc_reply([1], json.dumps(entry["reply"]).encode(), POINT)
    check(entry, _KIT.get(got.kind, got.kind), got.detail)


@pytest.mark.parametrize("entry", MCP_REPLIES, ids=ids(MCP_REPLIES))
def test_the_kit_reads_each_raw_tool_result_as_the_harness_does(entry):
    result = CallToolResult(content=[], structured_content=entry["reply"])
    got = read_tool_result(f"hooks.{POINT}", result)
    check(entry, _KIT.get(got.kind, got.kind), got.detail)
