"""The whole loop in-process with the offline model: triage, plans, tools, help, skills, agents."""

from __future__ import annotations

from harness.agent.loop_steps import HelpAnswer
from harness.domain import Message
from harness.hooks import HookAbort
from harness.hooks.contexts import ToolInvokedContext

from .conftest import make_loop

AGENT_OPERATIONS = {
    "system_one.invoked",
    "plan.created",
    "step.started",
    "step.finished",
    "context.created",
    "llm.invoked",
    "tool_calls.extracted",
    "tool.invoked",
    "compaction.trigger",
}


async def test_request_triage_plan_steps_tools_answer(manager, people, tools, trace):
    loop = make_loop(manager, people, tools)
    reply = await loop.handle(
        'plan: call echo {"text": "hello"}; call calculator {"expression": "6*7"}', sender="U_OWNER"
    )
    assert reply.splitlines() == [
        '1. call echo {"text": "hello"} — done: Tool results: - echo: hello',
        '2. call calculator {"expression": "6*7"} — done: Tool results: - calculator: 42',
    ]
    assert AGENT_OPERATIONS <= trace.operations()
    order = [p for p, _ in trace.seen if p.endswith(".in")]
    first = order.index
    assert first("system_one.invoked.in") < first("plan.created.in") < first("step.started.in")
    assert first("llm.invoked.in") < first("tool_calls.extracted.in") < first("tool.invoked.in")
    tool_results = [m for m in loop.state.transcript if m.role == "tool"]
    assert [(m.name, m.content) for m in tool_results] == [("echo", "hello"), ("calculator", "42")]
    # Every context the loop built carries the task's identity and a distinct idempotency key.
    keys = [ctx.idempotency_key for p, ctx in trace.seen if p.endswith(".pre")]
    assert len(keys) == len(set(keys))
    assert all(ctx.task.task_id == "T1" and ctx.correlation_id == "corr-1" for _, ctx in trace.seen)


async def test_a_direct_answer_skips_the_main_model(manager, people, tools, trace):
    loop = make_loop(manager, people, tools)
    assert await loop.handle("hello there") == "(offline) hello there"
    assert "llm.invoked" not in trace.operations()
    assert loop.state.transcript[-1] == Message(role="assistant", content="(offline) hello there")


async def test_pre_executor_vetoes_one_call_and_rewrites_another(manager, people, tools):
    async def policy(ctx: ToolInvokedContext):
        if ctx.call.name == "calculator":
            raise HookAbort("no arithmetic in this channel", refusal=True)
        if ctx.call.name == "echo":
            call = ctx.call.model_copy(update={"arguments": {"text": "rewritten"}})
            return ctx.model_copy(update={"call": call})
        return None

    manager.register("tool.invoked.pre", policy, priority=50)
    loop = make_loop(manager, people, tools)
    reply = await loop.handle(
        'call echo {"text": "original"} call calculator {"expression": "1+1"}'
    )
    results = {m.name: m.content for m in loop.state.transcript if m.role == "tool"}
    assert results == {"echo": "rewritten", "calculator": "refused: no arithmetic in this channel"}
    # The loop went on: the model saw both results and answered.
    assert (
        reply
        == "Tool results:\n- echo: rewritten\n- calculator: refused: no arithmetic in this channel"
    )
    assert manager.aborts[-1].point == "tool.invoked.pre"


async def test_ask_triage_waits_for_a_decider_and_refuses_a_watcher(manager, people, tools):
    people.answers = [
        HelpAnswer(decided_by="U_WATCHER", choice="prod"),
        HelpAnswer(decided_by="U_OWNER", choice="staging"),
    ]
    loop = make_loop(manager, people, tools)
    await loop.handle("ask: which environment?")
    assert [r.question for r in people.asked] == ["which environment?", "which environment?"]
    assert people.refusals == [
        ("U_WATCHER", "U_WATCHER is a watcher; only the owner or a collaborator can answer")
    ]
    assert people.accepted_by == ["U_OWNER"]  # the refused answer did not end the wait
    assert Message(role="user", content="<@U_OWNER> answered: staging") in loop.state.transcript


async def test_the_model_can_ask_through_ask_human(manager, people, tools):
    people.answers = [HelpAnswer(decided_by="U_OWNER", choice="blue")]
    loop = make_loop(manager, people, tools)
    reply = await loop.handle(
        'call ask_human {"question": "Which colour?", "options": ["red", "blue"]}'
    )
    (asked,) = people.asked
    assert (asked.kind, asked.question, asked.options) == (
        "question",
        "Which colour?",
        ("red", "blue"),
    )
    assert reply == "Tool results:\n- ask_human: <@U_OWNER> answered: blue"


async def test_a_tool_needing_approval_runs_only_when_approved(manager, people, tools, store):
    people.answers = [
        HelpAnswer(decided_by="U_OWNER", choice="deny"),
        HelpAnswer(decided_by="U_OWNER", choice="approve"),
    ]
    loop = make_loop(manager, people, tools)
    denied = await loop.handle('call write_artefact {"name": "a.md", "content": "v1"}')
    assert "refused: <@U_OWNER> did not approve (deny)" in denied
    assert await store.read("task/T1/artefacts/a.md") is None
    approved = await loop.handle('call write_artefact {"name": "a.md", "content": "v2"}')
    assert "stored a.md version 1" in approved
    assert (await store.read("task/T1/artefacts/a.md")).content == "v2"
    first = people.asked[0]
    assert first.kind == "approval" and first.options == (
        "Approve",
        "Deny",
        "Approve and don't ask again for this tool in this task",
    )
    assert first.tool_call.name == "write_artefact"
    assert "write_artefact" in first.question and '"content": "v1"' in first.question


async def test_skills_add_instructions_and_tools(manager, people, tools, trace):
    loop = make_loop(manager, people, tools, tools=["echo"])
    assert "calculator" not in {t.name for t in loop.state.offered_tools()}
    await loop.load_skill("arithmetic")
    assert "calculator" in {t.name for t in loop.state.offered_tools()}
    reply = await loop.handle('call calculator {"expression": "2**10"}')
    assert reply == "Tool results:\n- calculator: 1024"
    system = trace.contexts("llm.invoked.pre")[0].messages[0]
    assert system.role == "system" and "Skill arithmetic:\n# Arithmetic" in system.content
    assert await loop.unload_skill("arithmetic") is True
    assert await loop.unload_skill("arithmetic") is False
    assert "skill.unloaded" in trace.operations()


async def test_a_missing_skill_aborts_its_load(manager, people, tools):
    loop = make_loop(manager, people, tools)
    try:
        await loop.load_skill("no-such-skill")
    except HookAbort as abort:
        # which skill, for a person; the path it was looked for under stays in the log
        assert abort.reason == "there is no skill `no-such-skill` here; `/task skill` lists them"
    else:
        raise AssertionError("loading a missing skill must abort")
    assert loop.state.skills == []


async def test_a_plan_step_runs_a_named_agent_with_its_own_tools(manager, people, tools, trace):
    loop = make_loop(manager, people, tools)
    reply = await loop.handle('plan: @reviewer call echo {"text": "hi"}')
    (invoked,) = trace.contexts("agent.invoked.post")
    assert invoked.agent == "reviewer" and invoked.result.text == "Tool results:\n- echo: hi"
    assert "[reviewer] Tool results:\n- echo: hi" in [m.content for m in loop.state.transcript]
    assert reply.startswith('1. call echo {"text": "hi"} — done')
    # The agent's loop offered only its own tools, and nobody to ask.
    agent_call = [
        c for c in trace.contexts("llm.invoked.pre") if c.correlation_id.endswith("/reviewer")
    ]
    assert [t.name for t in agent_call[0].tools] == ["echo"]


async def test_a_model_call_with_no_response_stops_the_turn_in_words(manager, people, tools):
    """Issue 25: an ``llm.invoked`` whose chain left no response stops the turn; the thread
    reads it for a person (the conversation words the abort with ``replies.turn``), and the
    operation's name and hook point stay on the abort for the log, never in the sentence."""
    from harness import replies
    from harness.domain.outcome import stopped

    async def no_response(ctx):
        return ctx.model_copy(update={"result": None})

    manager.register("llm.invoked.post", no_response)
    loop = make_loop(manager, people, tools)
    try:
        await loop.handle('call echo {"text": "hi"}', sender="U_OWNER")
    except HookAbort as abort:
        said = replies.turn(stopped(abort))
        assert abort.point == "llm.invoked.in"
    else:
        raise AssertionError("a model call with no response must stop the turn")
    assert said == "stopped: the model gave no response"
