"""The policy executor (issue 6): allow, deny and rewrite rules on tool calls and commands."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from harness.domain import Role, ToolCall
from harness.hooks import HookAbort, HookManager
from harness.hooks.contexts import CommandInvokedContext, ToolInvokedContext
from harness.hooks.monitors.policy import Policy, PolicyRule, policy_points

RULES = [
    {"name": "safe-ls", "action": "allow", "tool": "shell", "arguments": {"command": r"^ls\b"}},
    {
        "name": "no-rm",
        "action": "deny",
        "tool": "shell",
        "arguments": {"command": r"rm\s+-rf"},
        "reason": "shell commands with rm -rf are not allowed",
    },
    {
        "action": "rewrite",
        "tool": "read_file",
        "arguments": {"path": "^/etc/"},
        "set": {"path": "/workspace/blocked"},
    },
    {
        "name": "watchers",
        "action": "deny",
        "command": "model|effort",
        "roles": ["watcher"],
        "arguments": {"args": r"\S"},
        "reason": "watchers cannot change settings",
    },
]


@pytest.fixture
def policed(manager: HookManager) -> HookManager:
    policy = Policy([PolicyRule.model_validate(r) for r in RULES])
    for point in policy_points():
        manager.register(point, policy, priority=50)
    return manager


def tool(name: str, **arguments) -> ToolInvokedContext:
    return ToolInvokedContext(call=ToolCall(id="c", name=name, arguments=arguments))


async def test_a_deny_rule_refuses_with_its_reason_and_name(policed):
    with pytest.raises(HookAbort) as caught:
        await policed.run("tool.invoked", tool("shell", command="sudo rm  -rf /"))
    assert caught.value.refusal is True
    assert caught.value.reason == "shell commands with rm -rf are not allowed (policy no-rm)"
    assert policed.aborts[-1].point == "tool.invoked.pre"


async def test_the_first_matching_rule_decides(policed):
    out = await policed.run("tool.invoked", tool("shell", command="ls; rm -rf /"))
    assert out.call.arguments["command"] == "ls; rm -rf /"  # allowed by safe-ls first


async def test_a_rewrite_rule_sets_arguments_and_others_pass(policed):
    out = await policed.run("tool.invoked", tool("read_file", path="/etc/shadow", mode="r"))
    assert out.call.arguments == {"path": "/workspace/blocked", "mode": "r"}
    out = await policed.run("tool.invoked", tool("read_file", path="/workspace/a"))
    assert out.call.arguments == {"path": "/workspace/a"}


@pytest.mark.parametrize(
    ("role", "args", "refused"),
    [(Role.WATCHER, "gpt-5", True), (Role.WATCHER, "", False), (Role.OWNER, "gpt-5", False)],
    ids=["watcher-sets", "watcher-reads", "owner-sets"],
)
async def test_command_rules_match_on_name_role_and_argument_text(policed, role, args, refused):
    ctx = CommandInvokedContext(command="model", args=args, sender="U1", role=role)
    if refused:
        with pytest.raises(HookAbort, match=r"watchers cannot change settings \(policy watchers\)"):
            await policed.run("command.invoked", ctx)
    else:
        out = await policed.run("command.invoked", ctx)
        assert out.args == args


async def test_default_deny_refuses_what_no_rule_allows(manager):
    policy = Policy([PolicyRule(action="allow", tool="search")], default="deny")
    manager.register("tool.invoked.pre", policy)
    await manager.run("tool.invoked", tool("search", q="x"))
    with pytest.raises(HookAbort, match="tool 'shell' is not allowed by any policy rule"):
        await manager.run("tool.invoked", tool("shell", command="ls"))


@pytest.mark.parametrize(
    ("command", "typed", "said"),
    [("status", "", "/task status"), ("model", "/model", "/model")],
    ids=["under-the-umbrella", "as-typed"],
)
async def test_default_deny_names_a_command_as_people_type_it(manager, command, typed, said):
    manager.register("command.invoked.pre", Policy([], default="deny"))
    ctx = CommandInvokedContext(command=command, invocation=typed, sender="U1", role=Role.OWNER)
    with pytest.raises(HookAbort) as caught:
        await manager.run("command.invoked", ctx)
    assert caught.value.reason == f"{said} is not allowed by any policy rule"


def test_rules_are_checked_when_loaded():
    with pytest.raises(ValidationError, match="needs a non-empty 'set'"):
        PolicyRule(action="rewrite", tool="x")
    with pytest.raises(ValidationError, match="'set' only applies to rewrite"):
        PolicyRule(action="deny", set={"a": 1})
    with pytest.raises(ValidationError):
        PolicyRule(action="deny", tool="(")
