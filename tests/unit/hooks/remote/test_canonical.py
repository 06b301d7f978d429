"""Equal contexts give equal bytes on the wire in every process: sets go sorted (issue 26)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

from harness.hooks import JsonRpcExecutor
from harness.hooks.remote.canonical import canonical

TAGS = [f"tag-{n}" for n in range(12)]

ENCODE = f"""
from harness.domain import ToolCall
from harness.hooks.contexts import ToolInvokedContext
from harness.hooks.remote.reply import encode_context
from harness.hooks.remote.wire import encode_request
import pydantic_core, sys
ctx = ToolInvokedContext(call=ToolCall(id="1", name="x", arguments={{"tags": set({TAGS!r})}}))
sys.stdout.buffer.write(encode_request(1, "tool.invoked.pre", {{"context": ctx}}) + b"\\n")
sys.stdout.buffer.write(pydantic_core.to_json(encode_context(ctx)))
"""


def test_a_set_is_sent_in_the_same_order_whatever_the_hash_seed():
    outputs = set()
    for seed in ("1", "2", "3", "4"):
        env = {**os.environ, "PYTHONHASHSEED": seed}
        done = subprocess.run(
            [sys.executable, "-c", ENCODE], env=env, capture_output=True, check=True, timeout=60
        )
        outputs.add(done.stdout)
    assert len(outputs) == 1
    request, context = outputs.pop().split(b"\n")
    assert json.loads(request)["params"]["context"]["call"]["arguments"]["tags"] == sorted(TAGS)
    assert json.loads(context)["call"]["arguments"]["tags"] == sorted(TAGS)


async def test_the_remote_receives_the_sorted_list(bad_server, tool_ctx):
    call = tool_ctx.call.model_copy(update={"arguments": {"tags": frozenset(TAGS)}})
    ctx = tool_ctx.model_copy(update={"call": call})
    executor = JsonRpcExecutor(bad_server.url("/echo-null"), point="tool.invoked.pre")
    try:
        assert await executor(ctx) is None
    finally:
        await executor.aclose()
    sent = json.loads(bad_server.bodies[-1])["params"]["context"]["call"]["arguments"]["tags"]
    assert sent == sorted(TAGS)


def test_values_without_sets_come_back_as_the_same_objects(tool_ctx):
    assert canonical(tool_ctx) is tool_ctx
    mixed = {"a": [frozenset({2, "b", 1})]}
    assert canonical(mixed) == {"a": [["b", 1, 2]]}  # by JSON text: '"' sorts before digits
