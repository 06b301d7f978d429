"""The approval policy (issue 14): rules, the task's default, safe tools, audit, TOML table."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness.domain import HelpDecision, HelpRequest, Participant, Role, ToolCall
from harness.hooks import HookAbort, HookConfigError, HookManager, load_hooks_config
from harness.hooks.contexts import HelpDecidedContext, ToolInvokedContext
from harness.hooks.monitors.approvals import (
    REQUESTED_BY,
    ApprovalPolicy,
    ApprovalRule,
    ApprovalsConfig,
    register_approvals,
)

PEOPLE = (
    Participant(user_id="U_OWNER", role=Role.OWNER),
    Participant(user_id="U_WATCHER", role=Role.WATCHER),
)
NEEDS = ("write_artefact", "deploy")
SAFE = ("calculator", "read_artefact")


def call(name: str, *, by: str = "U_OWNER", approvals=None, approval=None, **arguments):
    return ToolInvokedContext(
        call=ToolCall(id="c1", name=name, arguments=arguments),
        participants=PEOPLE,
        entities={REQUESTED_BY: by},
        approvals=approvals,
        approval=approval,
    )


def policy(*rules: dict, default: str = "safe", timeout: float = 60) -> ApprovalPolicy:
    config = ApprovalsConfig(
        default=default,
        timeout_seconds=timeout,
        rules=tuple(map(ApprovalRule.model_validate, rules)),
    )
    return ApprovalPolicy(config, needs_approval=NEEDS, safe=SAFE)


async def verdict(executor: ApprovalPolicy, ctx: ToolInvokedContext) -> str:
    try:
        await executor(ctx)
    except HookAbort as abort:
        return "ask" if abort.ask else "deny" if abort.refusal else "abort"
    return "allow"


@pytest.mark.parametrize(
    ("default", "tool", "expected"),
    [
        ("safe", "write_artefact", "ask"),
        ("safe", "echo", "allow"),
        ("strict", "echo", "ask"),
        ("strict", "write_artefact", "ask"),
        ("off", "write_artefact", "allow"),
        ("off", "echo", "allow"),
        ("strict", "calculator", "allow"),
        ("safe", "read_artefact", "allow"),
    ],
    ids=lambda v: str(v),
)
async def test_the_default_decides_when_no_rule_matches(default, tool, expected):
    assert await verdict(policy(default=default), call(tool)) == expected


async def test_the_tasks_own_default_wins_over_the_files():
    executor = policy(default="off")
    assert await verdict(executor, call("echo", approvals="strict")) == "ask"
    assert await verdict(policy(default="strict"), call("echo", approvals="off")) == "allow"


async def test_an_ask_carries_the_configured_timeout_and_names_what_decided():
    with pytest.raises(HookAbort) as caught:
        await policy(timeout=42)(call("deploy"))
    assert caught.value.ask and caught.value.refusal and caught.value.timeout_seconds == 42
    assert caught.value.reason == "deploy needs a person's approval (approvals safe)"


async def test_an_approval_on_the_context_lets_the_call_run_and_a_timeout_does_not():
    executor = policy(default="strict")
    approved = HelpDecision(request_id="h", decided_by="U_OWNER", choice="Approve", approved=True)
    assert await verdict(executor, call("echo", approval=approved)) == "allow"
    silent = HelpDecision(request_id="h", decided_by="", choice="", timed_out=True)
    assert await verdict(executor, call("echo", approval=silent)) == "ask"


async def test_first_matching_rule_wins_with_globs_arguments_and_roles():
    executor = policy(
        {
            "tool": "deploy",
            "arguments": {"env": "^prod$"},
            "verdict": "deny",
            "reason": "no deploys to prod from chat",
        },
        {"tool": "deploy", "role": "owner", "verdict": "allow"},
        {"tool": "shell*", "arguments": {"command": r"^ls\b"}, "verdict": "allow"},
        {"tool": "shell*", "verdict": "ask"},
        {"tool": "calculator", "verdict": "deny", "name": "no-maths"},
        {"tool": "calculator", "verdict": "ask"},
        {"tool": "echo", "arguments": {"n": "^3$"}, "verdict": "ask"},
    )
    assert await verdict(executor, call("deploy", env="prod")) == "deny"
    assert await verdict(executor, call("deploy", env="staging")) == "allow"
    assert await verdict(executor, call("deploy", by="U_WATCHER", env="staging")) == "ask"
    assert await verdict(executor, call("deploy", by="U_STRANGER", env="staging")) == "ask"
    assert await verdict(executor, call("shell_run", command="ls -la")) == "allow"
    assert await verdict(executor, call("shell_run", command="rm -rf /")) == "ask"
    assert await verdict(executor, call("shell_run")) == "ask"  # a missing argument never matches
    assert await verdict(executor, call("echo", n=3)) == "ask"  # non-strings match as JSON
    assert await verdict(executor, call("echo", n=4)) == "allow"
    with pytest.raises(HookAbort) as denied:
        await executor(call("deploy", env="prod"))
    assert denied.value.reason == "no deploys to prod from chat (approvals rule 1 (deploy))"
    assert not denied.value.ask
    # A safe tool is never asked about, but a rule may still deny it.
    with pytest.raises(HookAbort, match="no-maths") as refused:
        await executor(call("calculator", expression="1+1"))
    assert not refused.value.ask


async def test_a_safe_tool_is_never_asked_even_by_a_rule():
    executor = policy({"tool": "*", "verdict": "ask"}, default="strict")
    assert await verdict(executor, call("read_artefact", path="a")) == "allow"
    assert await verdict(executor, call("echo")) == "ask"


async def test_asks_and_decisions_are_in_the_audit_with_who_decided():
    manager = HookManager()
    register_approvals(manager, ApprovalsConfig(timeout_seconds=30), needs_approval=NEEDS)

    async def body(ctx):
        return ctx.model_copy(
            update={
                "result": HelpDecision(
                    request_id=ctx.request.request_id,
                    decided_by=ctx.decided_by,
                    choice=ctx.choice,
                    approved=ctx.choice != "Deny",
                    remember=ctx.choice == "remember",
                    timed_out=ctx.timed_out,
                )
            }
        )

    manager.register("help.decided.in", body)
    with pytest.raises(HookAbort):
        await manager.run("tool.invoked", call("deploy", env="prod"))
    request = HelpRequest(
        request_id="help-T-3",
        kind="approval",
        question="Approve deploy?",
        tool_call=ToolCall(id="c1", name="deploy", arguments={"env": "prod"}),
        timeout_seconds=30,
    )
    for who, choice, timed_out in [
        ("U_OWNER", "Approve", False),
        ("U_OWNER", "Deny", False),
        ("U_OWNER", "remember", False),
        ("", "", True),
    ]:
        await manager.run(
            "help.decided",
            HelpDecidedContext(request=request, decided_by=who, choice=choice, timed_out=timed_out),
        )
    question = request.model_copy(update={"kind": "question", "tool_call": None})
    await manager.run(
        "help.decided", HelpDecidedContext(request=question, decided_by="U_OWNER", choice="blue")
    )
    records = [(r.kind, r.executor, r.reason) for r in manager.audit.last(10)]
    assert records == [
        ("ask", "approvals", "deploy needs a person's approval (approvals safe)"),
        (
            "approval",
            "approvals-audit",
            'deploy {"env": "prod"}: approved by <@U_OWNER> [help-T-3]',
        ),
        (
            "approval",
            "approvals-audit",
            'deploy {"env": "prod"}: denied by <@U_OWNER> (Deny) [help-T-3]',
        ),
        (
            "approval",
            "approvals-audit",
            'deploy {"env": "prod"}: approved for the rest of the task by <@U_OWNER> [help-T-3]',
        ),
        (
            "approval",
            "approvals-audit",
            'deploy {"env": "prod"}: timed out after 30 s, not approved: nobody decided [help-T-3]',
        ),
    ]


def load(tmp_path: Path, text: str):
    path = tmp_path / "hooks.toml"
    path.write_text(text)
    return load_hooks_config(path)


def test_the_approvals_table_loads(tmp_path):
    config = load(
        tmp_path,
        """
[approvals]
default = "Strict"
timeout_seconds = 300

[[approvals.rules]]
tool = "github__*"
arguments = { repo = "^acme/" }
role = "collaborator"
verdict = "allow"
""",
    )
    approvals = config.file.approvals
    assert approvals is not None and approvals.default == "strict"
    assert approvals.timeout_seconds == 300
    (rule,) = approvals.rules
    assert (rule.tool, rule.role, rule.verdict) == ("github__*", Role.COLLABORATOR, "allow")


def test_a_bad_approvals_table_names_every_key_and_the_fix(tmp_path):
    with pytest.raises(HookConfigError) as caught:
        load(
            tmp_path,
            """
[approvals]
default = "paranoid"
timeout_seconds = -3
colour = 1

[[approvals.rules]]
tool = "write_*"
verdict = "maybe"

[[approvals.rules]]
tool = "x"
verdict = "ask"
role = "boss"
arguments = { path = "(" }
tol = "y"

[[approvals.rules]]
verdict = "deny"
""",
        )
    problems = caught.value.problems
    assert "field 'approvals.default': Input should be 'strict', 'safe' or 'off'" in problems
    assert any(p.startswith("field 'approvals.timeout_seconds'") for p in problems)
    assert "field 'approvals.colour': unknown key; it takes default, timeout_seconds, rules" in (
        problems
    )
    assert (
        "line 7: approvals.rules[0]: field 'verdict': Input should be 'allow', 'deny' or 'ask'"
    ) in problems
    assert any(
        p.startswith("line 11: approvals.rules[1]: field 'role': Input should be 'owner'")
        for p in problems
    )
    assert any(
        p.startswith("line 11: approvals.rules[1]: field 'arguments.path'") for p in problems
    )
    assert any(
        p.startswith("line 11: approvals.rules[1]: field 'tol': unknown key; it takes tool,")
        for p in problems
    )
    assert "line 18: approvals.rules[2]: field 'tool': Field required" in problems
    assert len(problems) == 8


async def test_the_policy_sees_the_call_as_rewritten_and_after_every_other_veto():
    manager = HookManager()
    config = ApprovalsConfig(
        rules=(
            ApprovalRule(
                tool="deploy", arguments={"env": "^prod$"}, verdict="deny", reason="not prod"
            ),
        )
    )
    register_approvals(manager, config, needs_approval=NEEDS)

    async def to_prod(ctx):  # a normal executor registered after, at a higher priority
        call = ctx.call.model_copy(update={"arguments": {"env": "prod"}})
        return ctx.model_copy(update={"call": call})

    async def no_tuesdays(ctx):
        if ctx.call.arguments.get("day") == "tue":
            raise HookAbort("no deploys on Tuesdays", refusal=True)

    manager.register("tool.invoked.pre", to_prod, priority=950)
    manager.register("tool.invoked.pre", no_tuesdays, priority=100, mode="validator")
    with pytest.raises(HookAbort, match="not prod"):  # the rewritten call is what is judged
        await manager.run("tool.invoked", call("deploy", env="dev"))
    manager.unregister(manager.registrations("tool.invoked.pre")[0])  # to_prod
    with pytest.raises(HookAbort, match="Tuesdays") as caught:
        await manager.run("tool.invoked", call("deploy", env="dev", day="tue"))
    assert not caught.value.ask  # refused by the other validator first: nobody is asked
    assert [r.kind for r in manager.audit.last(5)] == ["refusal", "refusal"]


async def test_an_approval_record_quotes_a_large_call_shortened():
    manager = HookManager()
    register_approvals(manager)

    async def body(ctx):
        return ctx.model_copy(
            update={
                "result": HelpDecision(
                    request_id="h", decided_by="U_OWNER", choice="Approve", approved=True
                )
            }
        )

    manager.register("help.decided.in", body)
    big = ToolCall(id="c1", name="write_artefact", arguments={"content": "x" * 5000})
    request = HelpRequest(request_id="h", kind="approval", question="?", tool_call=big)
    await manager.run(
        "help.decided", HelpDecidedContext(request=request, decided_by="U_OWNER", choice="Approve")
    )
    (record,) = manager.audit.last(1)
    assert len(record.reason) < 400 and record.reason.endswith("…: approved by <@U_OWNER> [h]")


async def test_the_workers_catalogue_counts_ask_human_and_the_read_only_built_ins_safe(tmp_path):
    from harness.bodies import catalogue_of
    from harness.storage import database_url, open_database
    from harness.storage.artefacts import SqlArtefactStore
    from harness.tools import ToolRegistry, builtin_tools

    class Clock:
        def now(self): ...

        def monotonic(self) -> float:
            return 0.0

    database = await open_database(database_url("", tmp_path / "a.sqlite3"))
    try:
        tools = ToolRegistry(builtin_tools(clock=Clock(), store=SqlArtefactStore(database)))
        catalogue = catalogue_of(tools)
    finally:
        await database.aclose()
    assert set(catalogue.safe) == {"echo", "clock", "calculator", "read_artefact", "ask_human"}
    assert catalogue.approval == ("write_artefact",)
    executor = ApprovalPolicy(
        ApprovalsConfig(default="strict"), safe=catalogue.safe, needs_approval=catalogue.approval
    )
    assert await verdict(executor, call("ask_human", question="?")) == "allow"
