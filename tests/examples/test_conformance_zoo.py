"""The conformance kit against executors whose verdict is known (issue 28): the shipped
examples pass at 100 %, and each member of the zoo (``tests/support/zoo.py``, one defect
each, JSON-RPC and MCP, signed and unsigned) fails with a message naming its defect.

The zoo's JSON-RPC members are real aiohttp servers on free ports in this process; its MCP
members and the examples are processes, started as a user starts them.
"""

from __future__ import annotations

import asyncio
import os
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Literal

import pytest
from aiohttp import web

from harness.hook_server.conformance import JsonRpcTarget, McpTarget
from harness.hook_server.conformance.runner import SIGNED_REFUSED
from tests.examples.conftest import EXAMPLES, ROOT, SECRET, failures
from tests.support import zoo


@asynccontextmanager
async def serving(app: web.Application) -> AsyncIterator[str]:
    runner = web.AppRunner(app, handler_cancellation=True, shutdown_timeout=0.5)
    await runner.setup()
    await web.TCPSite(runner, "127.0.0.1", 0).start()
    try:
        yield f"http://127.0.0.1:{runner.addresses[0][1]}/hooks"
    finally:
        await runner.cleanup()


async def test_the_jsonrpc_policy_example_passes(policy):
    target = JsonRpcTarget(policy.url, headers={"Authorization": f"Bearer {policy.token}"})
    assert await failures(target) == {}


async def test_the_mcp_rewriter_example_over_stdio_passes():
    target = McpTarget([sys.executable, str(EXAMPLES / "mcp_rewriter.py")])
    await target.connect()
    assert await failures(target) == {}


async def test_the_node_example_passes_with_signed_requests_and_its_signature_checks(node_policy):
    found = await failures(JsonRpcTarget(node_policy, signing_secrets=[SECRET]))
    assert found == {}


@dataclass(frozen=True)
class Member:
    """A zoo member, the fixture whose FAIL names its defect, and the words that name it."""

    transport: Literal["jsonrpc", "mcp"]
    defect: str
    fixture: str
    says: tuple[str, ...]
    signed: bool = False


IDENTITY = "is the operation's identity and may not be replaced"
ASK = "an ask is the abort"
NOT_INT = "Input should be a valid integer"  # read strictly: "1" is no integer
NOT_BOOL = "Input should be a valid boolean"  # nor "true" a boolean
ZOO = {
    "jsonrpc-rewrites-attempt": Member(
        "jsonrpc", "rewrites-attempt", "profile.rewrite", (f"attempt {IDENTITY}",)
    ),
    "jsonrpc-rewrites-idempotency-key": Member(
        "jsonrpc", "rewrites-idempotency-key", "profile.rewrite", (f"idempotency_key {IDENTITY}",)
    ),
    "jsonrpc-rewrites-task-signed": Member(
        "jsonrpc", "rewrites-task", "profile.rewrite-identity", (f"task {IDENTITY}",), signed=True
    ),
    "jsonrpc-ints-as-strings": Member(
        "jsonrpc", "ints-as-strings", "profile.rewrite", (f"result.attempt: {NOT_INT}",)
    ),
    "jsonrpc-refusal-as-string": Member(
        "jsonrpc", "refusal-as-string", "profile.veto", (f"error.data.abort.refusal: {NOT_BOOL}",)
    ),
    "jsonrpc-ask-without-timeout": Member(
        "jsonrpc", "ask-without-timeout", "profile.ask", ("got ask", "timeout_seconds=0", ASK)
    ),
    "jsonrpc-ask-wrong-shape": Member(
        "jsonrpc", "ask-wrong-shape", "profile.ask", ("got abort", "refusal=True", ASK)
    ),
    "jsonrpc-verifies-nothing": Member(
        "jsonrpc",
        "verifies-nothing",
        "signature.unsigned",
        ("got pass", "the executor verifies no signature"),
        signed=True,
    ),
    "jsonrpc-verifies-wrong-key": Member(
        "jsonrpc",
        "verifies-wrong-key",
        "signature.valid",
        ("got unauthorized", "HTTP 401", SIGNED_REFUSED),
        signed=True,
    ),
    "jsonrpc-ignores-timestamp": Member(
        "jsonrpc",
        "ignores-timestamp",
        "signature.stale",
        ("got pass", "does not check webhook-timestamp"),
        signed=True,
    ),
    "jsonrpc-ignores-signature-value": Member(
        "jsonrpc",
        "ignores-signature-value",
        "signature.tampered",
        ("got pass", "does not check that the signature matches the body"),
        signed=True,
    ),
    "mcp-rewrites-attempt": Member(
        "mcp", "rewrites-attempt", "profile.rewrite", (f"attempt {IDENTITY}",)
    ),
    "mcp-rewrites-idempotency-key": Member(
        "mcp", "rewrites-idempotency-key", "profile.rewrite", (f"idempotency_key {IDENTITY}",)
    ),
    "mcp-rewrites-task": Member(
        "mcp", "rewrites-task", "profile.rewrite-identity", (f"task {IDENTITY}",)
    ),
    "mcp-ints-as-strings": Member(
        "mcp", "ints-as-strings", "profile.rewrite", (f"context.attempt: {NOT_INT}",)
    ),
    "mcp-refusal-as-string": Member(
        "mcp", "refusal-as-string", "profile.veto", (f"abort.refusal: {NOT_BOOL}",)
    ),
    "mcp-ask-without-timeout": Member(
        "mcp", "ask-without-timeout", "profile.ask", ("got ask", "timeout_seconds=0", ASK)
    ),
    "mcp-ask-wrong-shape": Member(
        "mcp", "ask-wrong-shape", "profile.ask", ("ask: Extra inputs are not permitted", ASK)
    ),
}


def test_the_zoo_has_every_defect_over_every_transport_it_applies_to():
    defects = {(m.transport, m.defect) for m in ZOO.values()}
    assert defects == {(t, d) for t in ("jsonrpc", "mcp") for d in zoo.SPOILERS} | {
        ("jsonrpc", d) for d in zoo.VERIFIERS
    }
    assert {m.signed for m in ZOO.values() if m.transport == "jsonrpc"} == {True, False}


@pytest.mark.parametrize("member", ZOO.values(), ids=ZOO.keys())
async def test_the_kit_fails_each_zoo_member_naming_its_defect(member):
    if member.transport == "mcp":
        target = McpTarget([sys.executable, zoo.__file__, member.defect])
        await target.connect()
        found = await failures(target)
    else:
        secret = SECRET if member.signed else None
        async with serving(zoo.jsonrpc_app(member.defect, secret)) as url:
            found = await failures(JsonRpcTarget(url, signing_secrets=[secret] if secret else []))
    assert member.fixture in found, f"the kit passed the {member.defect} executor: {found}"
    problem = found[member.fixture]
    said = problem[problem.index(", got ") + 2 :]  # what came back, and what that means
    for words in member.says:
        assert words in said, problem


async def kit(*args: str, env: dict[str, str]) -> tuple[int, str, str]:
    """``python -m harness.hooks conformance ...`` without blocking this loop (it serves)."""
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "harness.hooks",
        "conformance",
        *args,
        cwd=ROOT,
        env={**os.environ, **env},
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    out, err = await asyncio.wait_for(proc.communicate(), 120)
    assert proc.returncode is not None
    return proc.returncode, out.decode(), err.decode()


async def test_the_cli_fails_an_executor_that_verifies_no_signature():
    async with serving(zoo.jsonrpc_app("verifies-nothing", SECRET)) as url:
        code, out, err = await kit(
            "--jsonrpc", url, "--secret-env", "ZOO_SECRET", env={"ZOO_SECRET": SECRET}
        )
    assert code == 1, out + err
    assert "FAIL signature.unsigned" in out and "the executor verifies no signature" in out
    assert SECRET not in out + err


async def test_a_wrong_verifier_is_a_failed_verdict_not_a_usage_error():
    """The user gave --secret-env: the kit says the executor refuses what the harness signs."""
    async with serving(zoo.jsonrpc_app("verifies-wrong-key", SECRET)) as url:
        code, out, err = await kit(
            "--jsonrpc", url, "--secret-env", "ZOO_SECRET", env={"ZOO_SECRET": SECRET}
        )
    assert code == 1, out + err
    assert err == "" and "give its credentials" not in out
    assert out.splitlines()[1].startswith(
        "# the executor refused a request signed as the harness signs it (HTTP 401"
    )
    assert SIGNED_REFUSED in out.splitlines()[1]
    assert "FAIL signature.valid" in out and "PASS signature.unsigned" in out
