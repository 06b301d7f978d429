"""The conformance kit against the shipped executors, each started as a user starts it
(issue 15): 100 % against examples/mcp_rewriter.py over streamable HTTP (over stdio, and
the other examples: tests/examples/test_conformance_zoo.py), the Node example refusing
unsigned requests, exactly the broken fixtures failing against a deliberately broken
executor, and the command line."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import AsyncIterator

import pytest

from harness.hook_server.conformance import JsonRpcTarget, McpTarget, load_fixtures
from harness.hooks.__main__ import main
from tests.examples.conftest import ROOT, SECRET, failures, free_port, started, stopped
from tests.examples.test_mcp_rewriter import http_url  # noqa: F401  # the fixture, shared
from tests.support.broken_executor import BROKEN_FIXTURES
from tests.support.cli import run_here


@pytest.fixture(scope="module")
async def broken() -> AsyncIterator[str]:
    port = free_port()
    proc = await started(
        sys.executable, "-m", "tests.support.broken_executor", "--port", str(port), said=b"serving"
    )
    yield f"http://127.0.0.1:{port}/hooks"
    await stopped(proc)


async def test_the_mcp_rewriter_example_over_streamable_http_is_fully_conformant(http_url):  # noqa: F811  # the fixture
    target = McpTarget(http_url)
    await target.connect()
    assert await failures(target) == {}


async def test_the_node_example_refuses_unsigned_requests_and_the_kit_says_so(node_policy):
    found = await failures(JsonRpcTarget(node_policy))
    assert set(found) == {f.id for f in load_fixtures("jsonrpc", signed=False)}
    assert "HTTP 401" in found["profile.pass"]


async def test_the_node_example_policy_refuses_an_escaping_artefact_name(node_policy):
    from harness.hooks import HookAbort
    from harness.hooks.remote import JsonRpcExecutor
    from tests.examples.conftest import call

    executor = JsonRpcExecutor(node_policy, point="tool.invoked.pre", signing_secrets=[SECRET])
    try:
        with pytest.raises(HookAbort) as refused:
            await executor(call("write_artefact", name="../secrets.md"))
        assert refused.value.refusal and "leaves the artefact folder" in refused.value.reason
        assert await executor(call("write_artefact", name="notes.md")) is None
    finally:
        await executor.aclose()


async def test_a_broken_executor_fails_exactly_its_broken_fixtures(broken):
    found = await failures(JsonRpcTarget(broken))
    assert set(found) == BROKEN_FIXTURES
    assert "expected error -32700, got error" in found["jsonrpc.parse-error"]
    assert "expected no_reply, got pass" in found["jsonrpc.notification"]


def kit(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "harness.hooks", "conformance", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, **(env or {})},
    )


def kit_here(capsys, *args: str) -> subprocess.CompletedProcess[str]:
    """:func:`kit` in this process: the same entry point, argv and output, without a fresh
    interpreter loading the kit (the tests above and below run it as a user does)."""
    return run_here(main, ["conformance", *args], capsys)


def test_the_cli_prints_a_line_per_fixture_and_exits_0_only_at_100_percent(node_policy, broken):
    done = kit("--jsonrpc", node_policy, "--secret-env", "KIT_SECRET", env={"KIT_SECRET": SECRET})
    assert done.returncode == 0, done.stdout + done.stderr
    lines = done.stdout.splitlines()
    total = len(load_fixtures("jsonrpc"))
    assert lines[0].startswith(f"# conformance kit against {node_policy} (jsonrpc), {total}")
    assert lines[1] == "PASS profile.pass — conformance.pass passes through"
    assert lines[-1] == f"compliance: {total}/{total} (100.0 %)"
    assert SECRET not in done.stdout + done.stderr

    failed = kit("--jsonrpc", broken, "--only", "profile.veto", "--only", "profile.pass")
    assert failed.returncode == 1
    assert failed.stdout.splitlines()[1:] == [
        "PASS profile.pass — conformance.pass passes through",
        "FAIL profile.veto — conformance.veto aborts as a refusal",
        "    expected abort (refusal=true), got abort: abort (refusal=False): conformance veto",
        "compliance: 1/2 (50.0 %)",
    ]


def test_the_cli_runs_python_in_an_mcp_command_on_its_own_interpreter():
    """``--mcp "python server.py"`` works as in a hooks file, whatever ``python`` is on PATH."""
    done = kit(
        "--mcp",
        "python examples/mcp_rewriter.py",
        "--only",
        "profile.rewrite",
        env={"PATH": "/nonexistent"},
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.splitlines()[-1] == "compliance: 1/1 (100.0 %)"


def test_the_cli_lists_the_fixtures(capsys):
    done = kit_here(capsys, "--list")
    assert done.returncode == 0
    listed = [line.split()[:2] for line in done.stdout.splitlines()]
    assert listed == [[f.id, f.transport] for f in load_fixtures()]


@pytest.mark.parametrize(
    ("args", "says"),
    [
        ((), "give exactly one of --jsonrpc URL and --mcp CMD"),
        (("--jsonrpc", "http://127.0.0.1:9/h", "--mcp", "x"), "give exactly one of"),
        (("--jsonrpc", "http://127.0.0.1:9/hooks"), "cannot reach http://127.0.0.1:9/hooks"),
        (("--mcp", "no-such-command-here"), "cannot start or reach the MCP server"),
        (
            (
                "--jsonrpc",
                "http://127.0.0.1:9/h",
                "--header",
                "Authorization: Bearer env:KIT_UNSET",
            ),
            "environment variable KIT_UNSET is not set",
        ),
        (("--jsonrpc", "http://127.0.0.1:9/h", "--only", "no.such.fixture"), "no fixture"),
    ],
    ids=["neither", "both", "unreachable", "no-command", "unset-env", "unknown-only"],
)
def test_usage_errors_exit_2_with_one_line(args, says, capsys):
    done = kit_here(capsys, *args)
    assert done.returncode == 2
    assert done.stdout == "" and len(done.stderr.splitlines()) == 1, done.stderr
    assert says in done.stderr and "Traceback" not in done.stderr


def test_a_refused_kit_is_told_to_give_credentials(policy, capsys, monkeypatch):
    done = kit_here(capsys, "--jsonrpc", policy.url)
    assert done.returncode == 2
    assert "refused the kit" in done.stderr and "--header" in done.stderr
    monkeypatch.setenv("KIT_TOKEN", policy.token)
    ok = kit_here(
        capsys,
        "--jsonrpc",
        policy.url,
        "--header",
        "Authorization: Bearer env:KIT_TOKEN",
        "--only",
        "profile.veto",
    )
    assert ok.returncode == 0 and "PASS profile.veto" in ok.stdout
    assert policy.token not in ok.stdout + ok.stderr
