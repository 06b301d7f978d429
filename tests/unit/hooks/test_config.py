"""The executor configuration file (issue 6): validation, patterns, all-or-nothing, wrappers."""

from __future__ import annotations

import asyncio
import subprocess
import sys
from pathlib import Path

import pytest

from harness.bodies.activity import ActivityBodies
from harness.domain import ToolResult
from harness.hooks import HookConfigError, HookManager, HookTimeoutError, load_hooks_config
from harness.hooks.__main__ import main
from harness.hooks.catalogue import POINTS
from harness.hooks.contexts import ActivityFailedContext, ToolInvokedContext
from harness.providers import system_random
from tests.support.cli import run_here

CALLS: list[str] = []


async def tag(ctx: ToolInvokedContext) -> ToolInvokedContext:
    CALLS.append(ctx.call.name)
    return ctx.model_copy(update={"entities": {**ctx.entities, "tagged": "yes"}})


async def broken(ctx):
    raise RuntimeError("executor bug")


async def slow(ctx):
    await asyncio.sleep(5)


def make_body(*, content: str, point: str):
    async def body(ctx):
        return ctx.model_copy(update={"result": ToolResult(content=f"{content}@{point}")})

    return body


def exploding_factory():
    raise RuntimeError("cannot build")


def load(tmp_path: Path, text: str, **env: str):
    path = tmp_path / "hooks.toml"
    path.write_text(text)
    return load_hooks_config(path, environ=env)


def problems(tmp_path: Path, text: str, **env: str) -> str:
    with pytest.raises(HookConfigError) as caught:
        load(tmp_path, text, **env)
    return str(caught.value)


ME = "tests.unit.hooks.test_config"


def test_patterns_expand_against_the_catalogue(tmp_path):
    config = load(
        tmp_path,
        f"""
[[executor]]
kind = "local"
points = ["llm.*.post", "*.pre"]
target = "{ME}:tag"
""",
    )
    [entry] = config.entries
    pre = [p for p in POINTS if p.endswith(".pre")]
    assert entry.entry.points == tuple(p for p in POINTS if p in {*pre, "llm.invoked.post"})


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        (
            'points = "tool.invokd.pre"\nkind = "local"\ntarget = "m:a"',
            "line 2: executor[0]: field 'points': 'tool.invokd.pre' matches no hook point",
        ),
        (
            'points = "tool.invoked.pre"\nkind = "jsonrpc"\nurl = "ftp://x"',
            "field 'url': 'ftp://x' is not an http:// or https:// URL",
        ),
        (
            'points = "tool.invoked.pre"\nkind = "local"\ntarget = "no_such_mod:hook"',
            "field 'target': cannot import 'no_such_mod'",
        ),
        (
            f'points = "tool.invoked.pre"\nkind = "local"\ntarget = "{ME}:nope"',
            f"field 'target': '{ME}' has no attribute 'nope'",
        ),
        (
            f'points = "tool.invoked.pre"\nkind = "local"\ntarget = "{ME}:tag"\n'
            'match = { tool = "(" }',
            "field 'match.tool'",
        ),
        (
            f'points = "persistence.write.pre"\nkind = "local"\ntarget = "{ME}:tag"\n'
            'match = { tool = "x" }',
            "PersistenceWriteContext (at persistence.write.pre) has no field 'call'",
        ),
        (
            'points = "tool.invoked.pre"\nkind = "jsonrpc"\nurl = "http://h/"\n'
            'headers = { Authorization = "Bearer abc123" }',
            "secrets are never written",
        ),
        (
            'points = "tool.invoked.pre"\nkind = "jsonrpc"\nurl = "http://h/"\n'
            'headers = { X-Key = "MISSING_VAR" }',
            "environment variable MISSING_VAR is not set",
        ),
        (
            'points = "tool.invoked.in"\nkind = "jsonrpc"\nurl = "http://h/"\nmode = "validator"',
            "a validator cannot run at an in point",
        ),
        (
            'points = "tool.invoked.pre"\nkind = "mcp"\ncommand = ["no-such-binary-xyz"]',
            "'no-such-binary-xyz' is not an executable on PATH",
        ),
        ('points = "tool.invoked.pre"\nkind = "mcp"', "needs exactly one of url or command"),
        (
            'points = "tool.invoked.pre"\nkind = "local"\ntarget = "m:a"\npriorty = 3',
            "field 'priorty': Extra inputs are not permitted",
        ),
    ],
    ids=[
        "unknown-point",
        "bad-url",
        "missing-import",
        "missing-attr",
        "bad-regex",
        "matcher-field",
        "inline-secret",
        "missing-env",
        "validator-in",
        "mcp-command",
        "mcp-neither",
        "typo-field",
    ],
)
def test_a_misconfigured_entry_fails_naming_line_entry_and_field(tmp_path, body, expected):
    message = problems(tmp_path, f"# hooks\n[[executor]]\n{body}\n")
    assert "executor[0]" in message
    assert expected in message, message


def test_every_problem_is_reported_at_once_with_its_line(tmp_path):
    message = problems(
        tmp_path,
        f"""
[[executor]]
name = "ok"
kind = "local"
points = "tool.invoked.pre"
target = "{ME}:tag"

[[executor]]
name = "bad"
kind = "local"
points = "tool.invoked.pre"
target = "nowhere:x"
""",
    )
    assert "line 8: executor[1] ('bad'): field 'target'" in message
    assert "'ok'" not in message


def test_not_toml_is_reported_with_its_position(tmp_path):
    assert "not valid TOML" in problems(tmp_path, "[[executor]\nkind=")


async def test_loading_is_all_or_nothing_a_failing_factory_registers_nothing(tmp_path):
    config = load(
        tmp_path,
        f"""
[[executor]]
kind = "local"
points = "tool.invoked.pre"
target = "{ME}:tag"

[[executor]]
name = "boom"
kind = "local"
points = "tool.invoked.post"
target = "{ME}:exploding_factory"
""",
    )
    manager = HookManager()
    with pytest.raises(HookConfigError, match="boom: cannot build: RuntimeError: cannot build"):
        config.apply(manager)
    assert all(manager.registrations(p) == () for p in POINTS)


async def test_matcher_priority_factory_and_point_injection(tmp_path, tool_ctx):
    config = load(
        tmp_path,
        f"""
[[executor]]
name = "tagger"
kind = "local"
points = "tool.invoked.pre"
target = "{ME}:tag"
match = {{ tool = "^shell$" }}
priority = 5

[[executor]]
name = "body"
kind = "local"
points = "tool.invoked.in"
target = "{ME}:make_body"
options = {{ content = "configured" }}
priority = 900
""",
    )
    manager = HookManager()
    config.apply(manager)
    CALLS.clear()
    out = await manager.run("tool.invoked", tool_ctx)  # tool "search": matcher says no
    assert CALLS == [] and "tagged" not in out.entities
    assert out.result == ToolResult(content="configured@tool.invoked.in")
    shell = tool_ctx.model_copy(update={"call": tool_ctx.call.model_copy(update={"name": "shell"})})
    out = await manager.run("tool.invoked", shell)
    assert CALLS == ["shell"] and out.entities["tagged"] == "yes"


async def test_ignore_records_the_failure_and_fail_raises(tmp_path, tool_ctx):
    config = load(
        tmp_path,
        f"""
[[executor]]
name = "lenient"
kind = "local"
points = "tool.invoked.pre"
target = "{ME}:broken"
on_failure = "ignore"
""",
    )
    manager = HookManager()
    config.apply(manager)
    await manager.run("tool.invoked", tool_ctx)
    [record] = manager.audit.last()
    assert (record.kind, record.executor, record.reason) == (
        "ignored_failure",
        "lenient",
        "RuntimeError: executor bug",
    )

    strict = load(
        tmp_path,
        f'[[executor]]\nkind = "local"\npoints = "tool.invoked.pre"\ntarget = "{ME}:broken"\n',
    )
    manager = HookManager()
    strict.apply(manager)
    with pytest.raises(RuntimeError, match="executor bug"):
        await manager.run("tool.invoked", tool_ctx)


async def test_executor_timeout_and_chain_budget_fail_the_operation(tmp_path, tool_ctx):
    config = load(
        tmp_path,
        f'[[executor]]\nname = "sloth"\nkind = "local"\n'
        f'points = "tool.invoked.pre"\ntarget = "{ME}:slow"\ntimeout = 0.05\n',
    )
    manager = HookManager()
    config.apply(manager)
    with pytest.raises(HookTimeoutError, match=r"executor sloth at tool.invoked.pre exceeded"):
        await manager.run("tool.invoked", tool_ctx)

    budget = load(
        tmp_path,
        f'[chain]\nbudget_seconds = 0.05\n[[executor]]\nkind = "local"\n'
        f'points = "tool.invoked.pre"\ntarget = "{ME}:slow"\n',
    )
    manager = HookManager()
    applied = budget.apply(manager)
    with pytest.raises(HookTimeoutError, match=r"the chain at tool.invoked.pre exceeded .* 0.05s"):
        await manager.run("tool.invoked", tool_ctx)
    applied.remove()
    assert manager.registrations("tool.invoked.pre") == ()


async def test_retry_section_configures_the_default_activity_failed_body(tmp_path):
    config = load(
        tmp_path,
        '[retry]\nmax_attempts = 2\ninitial_seconds = 0.5\nnon_retryable = ["PermissionError"]\n',
    )
    defaults = config.retry_defaults()
    assert defaults.initial_seconds == 0.5 and defaults.max_attempts == 2
    plugin = ActivityBodies(random=system_random(), retry=defaults)

    async def decide(**fields):
        ctx = ActivityFailedContext(activity="a", max_attempts=5, **fields)
        return (await plugin.activity_failed(ctx)).result

    assert (await decide(attempt=1, error_type="OSError")).retry is True
    assert (await decide(attempt=2, error_type="OSError")).retry is False  # capped at 2
    assert (await decide(attempt=1, error_type="PermissionError")).retry is False
    one = ActivityFailedContext(activity="a", max_attempts=1, attempt=1, error_type="OSError")
    assert (await plugin.activity_failed(one)).result.retry is False  # commands keep one attempt


def test_cli_lists_the_effective_chains_and_refuses_a_bad_file(tmp_path, capsys):
    good = tmp_path / "good.toml"
    good.write_text(
        f'[[executor]]\nname = "tagger"\nkind = "local"\npoints = "tool.invoked.pre"\n'
        f'target = "{ME}:tag"\nmode = "audit"\npriority = 7\n'
        '[policy]\n[[policy.rules]]\naction = "deny"\ntool = "shell"\n'
    )
    run = subprocess.run(
        [sys.executable, "-m", "harness.hooks", "list", "--config", str(good)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert run.returncode == 0, run.stderr
    lines = run.stdout.splitlines()
    at = lines.index("tool.invoked.pre")
    assert lines[at + 1].split() == ["7", "tagger", "local", "audit"]
    assert lines[at + 2].split() == ["50", "policy", "local", "normal"]
    assert "persistence.write.in" in lines

    bad = tmp_path / "bad.toml"
    bad.write_text('[[executor]]\nkind = "local"\npoints = "nope.pre"\ntarget = "m:a"\n')
    run = run_here(main, ["list", "--config", str(bad)], capsys)  # the same main, in-process
    assert run.returncode == 2 and "'nope.pre' matches no hook point" in run.stderr
