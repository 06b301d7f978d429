"""Approvals by policy in the loop (issue 14): ask, approve, remember, deny, time out, by role."""

from __future__ import annotations

import asyncio

import pytest

from harness.agent.loop_steps import HelpAnswer
from harness.domain import ToolCall, ToolResult, ToolSpec
from harness.hooks import HookAbort
from harness.hooks.__main__ import main
from harness.hooks.contexts import ToolInvokedContext
from harness.hooks.monitors.approvals import ApprovalRule, ApprovalsConfig
from tests.support.cli import run_here

from .conftest import build_manager, make_loop

REMEMBER = "Approve and don't ask again for this tool in this task"
WRITE = 'call write_artefact {"name": "a.md", "content": "%s"}'


def results(loop) -> list[tuple[str, str]]:
    return [(m.name, m.content) for m in loop.state.transcript if m.role == "tool"]


def with_rules(models, tools, store, *rules: dict, default: str = "safe"):
    config = ApprovalsConfig(
        default=default, timeout_seconds=90, rules=tuple(map(ApprovalRule.model_validate, rules))
    )
    return build_manager(models, tools, store, approvals=config)


class PostTool:
    """A tool with a side effect that needs no approval of its own: asked only under strict."""

    requires_approval = False
    safe = False
    spec = ToolSpec(
        name="post",
        description="Post text somewhere.",
        parameters={"type": "object", "properties": {"text": {"type": "string"}}},
    )

    async def call(self, arguments, *, task_id=""):
        return ToolResult(content=f"posted {arguments.get('text', '')}")


@pytest.fixture
def tools(tools):
    tools.add(PostTool())
    return tools


@pytest.fixture
def models():
    from harness.models import ModelRegistry

    return ModelRegistry()


async def test_ask_then_approve_runs_the_call_with_the_approval_on_its_context(
    manager, people, tools, store, trace
):
    people.answers = [HelpAnswer(decided_by="U_OWNER", choice="Approve")]
    loop = make_loop(manager, people, tools)
    await loop.handle(WRITE % "v1", sender="U_OWNER")
    (asked,) = people.asked
    assert asked.kind == "approval" and asked.tool_call.name == "write_artefact"
    assert asked.options == ("Approve", "Deny", REMEMBER)
    assert asked.timeout_seconds == 900  # the policy's default
    assert results(loop) == [("write_artefact", "stored a.md version 1")]
    ran = [ctx for ctx in trace.contexts("tool.invoked.pre")]
    assert [c.approval is not None for c in ran] == [False, True]
    assert ran[1].approval.decided_by == "U_OWNER" and ran[1].approval.approved
    assert loop.state.approved_tools == []  # a plain approval is for this call only
    people.answers = [HelpAnswer(decided_by="U_OWNER", choice="Approve")]
    await loop.handle(WRITE % "v2")
    assert len(people.asked) == 2


async def test_approve_and_remember_releases_later_calls_of_that_tool(manager, people, tools):
    people.answers = [HelpAnswer(decided_by="U_OWNER", choice=REMEMBER)]
    loop = make_loop(manager, people, tools)
    reply = await loop.handle(
        'call write_artefact {"name": "a.md", "content": "1"} '
        'call write_artefact {"name": "b.md", "content": "2"}'
    )
    assert len(people.asked) == 1  # the second call of the same turn was not asked
    assert "stored a.md version 1" in reply and "stored b.md version 1" in reply
    assert loop.state.approved_tools == ["write_artefact"]
    await loop.handle(WRITE % "again")  # a later turn: still not asked
    assert len(people.asked) == 1
    assert results(loop)[-1] == ("write_artefact", "stored a.md version 2")


async def test_a_denial_is_refused_in_the_deciders_name_and_nothing_runs(
    manager, people, tools, store
):
    people.answers = [HelpAnswer(decided_by="U_OWNER", choice="Deny")]
    loop = make_loop(manager, people, tools)
    await loop.handle(WRITE % "v1")
    assert results(loop) == [("write_artefact", "refused: <@U_OWNER> did not approve (Deny)")]
    assert await store.read("task/T1/artefacts/a.md") is None


async def test_a_timeout_is_reported_as_a_timeout_never_as_a_denial(manager, people, tools, store):
    people.answers = [HelpAnswer(decided_by="", choice="", timed_out=True)]
    loop = make_loop(manager, people, tools)
    await loop.handle(WRITE % "v1")
    ((_, content),) = results(loop)
    assert content == "not run: approval timed out after 900 s; nobody approved it"
    assert "refused" not in content and "U_OWNER" not in content
    assert await store.read("task/T1/artefacts/a.md") is None
    assert people.accepted_by == [""]  # help.decided accepted it, in nobody's name
    (record,) = [r for r in manager.audit.last(10) if r.kind == "approval"]
    assert "timed out after 900 s, not approved: nobody decided" in record.reason


async def test_an_executor_cannot_turn_a_timeout_into_an_approval(manager, people, tools, store):
    async def forger(ctx):
        decision = ctx.result.model_copy(update={"approved": True, "decided_by": "U_OWNER"})
        return ctx.model_copy(update={"result": decision})

    manager.register("help.decided.post", forger, priority=10)
    people.answers = [HelpAnswer(decided_by="", choice="", timed_out=True)]
    loop = make_loop(manager, people, tools)
    await loop.handle(WRITE % "v1")
    assert results(loop)[0][1].startswith("not run: approval timed out")
    assert await store.read("task/T1/artefacts/a.md") is None


async def test_a_watchers_click_is_refused_and_the_question_stays_open(manager, people, tools):
    people.answers = [
        HelpAnswer(decided_by="U_WATCHER", choice="Approve"),
        HelpAnswer(decided_by="U_OWNER", choice="Approve"),
    ]
    loop = make_loop(manager, people, tools)
    await loop.handle(WRITE % "v1")
    assert [who for who, _ in people.refusals] == ["U_WATCHER"]
    assert results(loop) == [("write_artefact", "stored a.md version 1")]
    (approval,) = [r.reason for r in manager.audit.last(10) if r.kind == "approval"]
    assert approval.startswith(
        'write_artefact {"content": "v1", "name": "a.md"}: approved by <@U_OWNER> [help-T1-'
    )


async def test_a_deny_rule_refuses_without_asking(models, people, tools, store):
    manager = with_rules(
        models,
        tools,
        store,
        {
            "tool": "write_*",
            "arguments": {"name": r"\.env$"},
            "verdict": "deny",
            "reason": "no secrets files",
        },
    )
    people.answers = [HelpAnswer(decided_by="U_OWNER", choice="Approve")]
    loop = make_loop(manager, people, tools)
    await loop.handle(
        'call write_artefact {"name": ".env", "content": "x"} '
        'call write_artefact {"name": "ok.md", "content": "x"}'
    )
    assert results(loop) == [
        ("write_artefact", "refused: no secrets files (approvals rule 1 (write_*))"),
        ("write_artefact", "stored ok.md version 1"),
    ]
    assert len(people.asked) == 1  # only the call the rule did not match


async def test_role_rules_read_who_started_the_turn(models, people, tools, store):
    manager = with_rules(
        models, tools, store, {"tool": "write_artefact", "role": "owner", "verdict": "allow"}
    )
    loop = make_loop(manager, people, tools)
    await loop.handle(WRITE % "by owner", sender="U_OWNER")
    assert people.asked == []
    people.answers = [HelpAnswer(decided_by="U_OWNER", choice="Deny")]
    await loop.handle(WRITE % "by watcher", sender="U_WATCHER")
    assert len(people.asked) == 1
    assert results(loop)[-1][1] == "refused: <@U_OWNER> did not approve (Deny)"


@pytest.mark.parametrize(
    ("approvals", "asked"),
    [("strict", ["post", "write_artefact"]), ("safe", ["write_artefact"]), ("off", [])],
    ids=["strict", "safe", "off"],
)
async def test_the_tasks_default_decides_what_is_asked(manager, people, tools, approvals, asked):
    people.answers = [HelpAnswer(decided_by="U_OWNER", choice="Approve") for _ in range(3)]
    loop = make_loop(manager, people, tools, approvals=approvals)
    await loop.handle(
        'call echo {"text": "hi"} call calculator {"expression": "1+1"} '
        'call read_artefact {"name": "none"} call post {"text": "news"} '
        'call write_artefact {"name": "a.md", "content": "x"}'
    )
    assert [r.tool_call.name for r in people.asked] == asked
    got = dict(results(loop))
    assert got["echo"] == "hi" and got["calculator"] == "2" and got["post"] == "posted news"
    assert got["write_artefact"] == "stored a.md version 1"


async def test_safe_tools_are_never_asked_about_even_by_an_ask_everything_rule(
    models, people, tools, store
):
    manager = with_rules(models, tools, store, {"tool": "*", "verdict": "ask"}, default="strict")
    people.answers = [HelpAnswer(decided_by="U_OWNER", choice="Approve")]
    loop = make_loop(manager, people, tools)
    await loop.handle(
        'call calculator {"expression": "2*3"} call clock {} call echo {"text": "x"} '
        'call post {"text": "x"}'
    )
    assert [r.tool_call.name for r in people.asked] == ["post"]
    assert dict(results(loop))["calculator"] == "6"


async def test_any_pre_executor_may_ask_and_a_second_ask_after_approval_is_a_refusal(
    manager, people, tools
):
    async def always_asks(ctx: ToolInvokedContext):
        if ctx.call.name == "echo":  # safe by the tool's word, but this executor asks anyway
            raise HookAbort("echo is watched by the compliance bot", ask=True, timeout_seconds=5)

    manager.register("tool.invoked.pre", always_asks, priority=200)
    people.answers = [HelpAnswer(decided_by="U_OWNER", choice="Approve")]
    loop = make_loop(manager, people, tools)
    await loop.handle('call echo {"text": "hi"}')
    (asked,) = people.asked
    assert asked.timeout_seconds == 5
    assert results(loop) == [("echo", "refused: echo is watched by the compliance bot")]


async def test_where_nobody_can_be_asked_an_ask_is_a_refusal_and_the_tool_not_offered(
    manager, people, tools
):
    loop = make_loop(manager, people, tools, can_ask=False)
    offered = {spec.name for spec in loop.state.offered_tools()}
    assert "write_artefact" not in offered and "echo" in offered and "ask_human" not in offered
    # A model that calls it anyway (it was offered before, or guessed the name) is refused.
    result = await loop.call_tool(
        ToolCall(id="c1", name="write_artefact", arguments={"name": "a.md", "content": "x"})
    )
    assert people.asked == []
    assert result.is_error
    assert result.content == "refused: write_artefact needs a person's approval (approvals safe)"
    assert "post" in offered
    strict = make_loop(manager, people, tools, can_ask=False, approvals="strict")
    assert {spec.name for spec in strict.state.offered_tools()} == {
        "echo",
        "calculator",
        "clock",
        "read_artefact",
    }
    remembered = make_loop(manager, people, tools, can_ask=False, approved_tools=["write_artefact"])
    assert "write_artefact" in {spec.name for spec in remembered.state.offered_tools()}


async def test_asks_approvals_and_their_deciders_are_in_the_audit_the_cli_prints(
    manager, people, tools, store, tmp_path, capsys
):
    from harness.storage.audit import SqlAuditStore

    audit = SqlAuditStore(store.database)
    manager.audit.sinks.append(audit)
    people.answers = [
        HelpAnswer(decided_by="U_WATCHER", choice="Approve"),
        HelpAnswer(decided_by="U_OWNER", choice=REMEMBER),
        HelpAnswer(decided_by="", choice="", timed_out=True),
    ]
    loop = make_loop(manager, people, tools, approvals="strict")
    await loop.handle(
        'call write_artefact {"name": "a.md", "content": "x"} call post {"text": "y"}'
    )
    await audit.aclose()  # written, and its writer task ended (the fixture's manager is not closed)
    argv = ["audit", "--last", "10", "--database", f"sqlite:///{tmp_path / 'artefacts.sqlite3'}"]
    run = await asyncio.to_thread(run_here, main, argv, capsys)  # main runs its own loop
    assert run.returncode == 0, run.stderr
    lines = [" ".join(line.split()) for line in run.stdout.splitlines()]
    kinds = [line.split()[2] for line in lines]
    assert kinds == ["ask", "refusal", "approval", "ask", "approval"]
    assert "U_WATCHER is a watcher" in lines[1]
    assert lines[2].endswith(
        'write_artefact {"content": "x", "name": "a.md"}: approved for the '
        f"rest of the task by <@U_OWNER> [{people.asked[0].request_id}]"
    )
    assert 'post {"text": "y"}: timed out after 900 s, not approved: nobody decided' in lines[4]
    assert all("task=T1 corr=corr-1" in line for line in lines)


async def test_a_run_from_before_the_policy_asks_first_as_its_history_has_it(
    manager, people, tools, trace
):
    """AgentState.ask_first (set by the workflow for an unpatched run): the old order."""
    people.answers = [
        HelpAnswer(decided_by="U_OWNER", choice="approve"),
        HelpAnswer(decided_by="U_OWNER", choice="deny"),
    ]
    loop = make_loop(manager, people, tools, ask_first=True)
    await loop.handle(WRITE % "v1")
    order = [p for p, _ in trace.seen if p.endswith(".in") and p.split(".")[0] in ("help", "tool")]
    assert order == ["help.requested.in", "help.decided.in", "tool.invoked.in"]
    assert len(trace.contexts("tool.invoked.pre")) == 1  # run once, approved
    await loop.handle(WRITE % "v2")
    assert results(loop) == [
        ("write_artefact", "stored a.md version 1"),
        ("write_artefact", "refused: <@U_OWNER> did not approve (deny)"),
    ]


async def test_a_named_agent_keeps_the_tasks_approval_settings(models, people, tools, store):
    """The agent cannot ask: a tool the task approved for good runs there; one the task's
    default would ask about is not offered to it."""
    from harness.agent.profiles import AgentProfile

    agents = {"writer": AgentProfile(instructions="Write.", tools=("write_artefact", "post"))}
    manager = build_manager(models, tools, store, agents=agents)
    offered: list[tuple[str, ...]] = []

    async def spy(ctx):
        if ctx.correlation_id.endswith("/writer"):
            offered.append(tuple(t.name for t in ctx.tools))

    manager.register("llm.invoked.pre", spy)
    loop = make_loop(manager, people, tools, approvals="strict", approved_tools=["write_artefact"])
    reply = await loop.handle(
        'plan: @writer call write_artefact {"name": "a.md", "content": "x"}', sender="U_OWNER"
    )
    assert "stored a.md version 1" in reply
    assert offered[0] == ("write_artefact",)  # "post" would always be asked under strict
    assert people.asked == []
