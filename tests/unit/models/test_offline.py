"""The offline model: every loop path from text conventions, the same answer every time."""

from __future__ import annotations

import json

import pytest

from harness.domain import Message, ToolCall, ToolSpec
from harness.models import ModelRequest, OfflineModel
from harness.models.offline import parse_calls

TOOLS = (ToolSpec(name="echo"), ToolSpec(name="calculator"), ToolSpec(name="ask_human"))


def ask(text: str, purpose="chat", **extra) -> ModelRequest:
    return ModelRequest(
        model="offline",
        messages=(Message(role="system", content="sys"), Message(role="user", content=text)),
        tools=TOOLS,
        purpose=purpose,
        **extra,
    )


async def test_same_input_same_output():
    model = OfflineModel()
    request = ask('call echo {"text": "x"} and call calculator {"expression": "1+1"}')
    first, second = await model.complete(request), await model.complete(request)
    assert first == second
    assert [c.name for c in first.tool_calls] == ["echo", "calculator"]
    assert first.tool_calls[1].arguments == {"expression": "1+1"}
    assert first.stop_reason == "tool_use"


def test_parse_calls_reads_json_arguments_and_tolerates_prose():
    assert parse_calls('please call echo {"text": "a b"} then call clock') == [
        ("echo", {"text": "a b"}),
        ("clock", {}),
    ]
    assert parse_calls("call echo {not json}") == [("echo", {})]
    assert parse_calls("nothing to do") == []


async def test_tools_not_offered_are_not_called():
    response = await OfflineModel().complete(ask("call rm_rf {}"))
    assert response.tool_calls == ()
    assert "rm_rf" in response.text and "not offered" in response.text


async def test_after_tool_results_it_answers_with_them():
    call = ToolCall(id="c1", name="echo", arguments={"text": "hi"})
    request = ModelRequest(
        model="offline",
        messages=(
            Message(role="user", content='call echo {"text": "hi"}'),
            Message(role="assistant", tool_calls=(call,)),
            Message(role="tool", tool_call_id="c1", name="echo", content="hi"),
        ),
        tools=TOOLS,
    )
    response = await OfflineModel().complete(request)
    assert response.tool_calls == ()
    assert response.text == "Tool results:\n- echo: hi"
    assert response.stop_reason == "end_turn"


async def test_call_ids_differ_between_turns():
    model = OfflineModel()
    one = await model.complete(ask('call echo {"text": "a"}'))
    two = await model.complete(ask('call echo {"text": "b"}'))
    assert one.tool_calls[0].id != two.tool_calls[0].id


@pytest.mark.parametrize(
    ("text", "verdict"),
    [
        ("ask: which environment?", {"decision": "ask", "question": "which environment?"}),
        ("plan: a; b", {"decision": "plan"}),
        ('call echo {"text": "x"}', {"decision": "answer", "answer": ""}),
        ("hello there", {"decision": "answer", "answer": "(offline) hello there"}),
    ],
    ids=["ask", "plan", "main-loop", "direct"],
)
async def test_triage(text, verdict):
    response = await OfflineModel().complete(ask(text, purpose="triage"))
    assert json.loads(response.text) == verdict


async def test_plan_splits_steps_and_names_agents():
    response = await OfflineModel().complete(
        ask("plan: - fetch the data; @reviewer check it\n2. report", purpose="plan")
    )
    steps = json.loads(response.text)["steps"]
    assert [(s["detail"], s["agent"]) for s in steps] == [
        ("fetch the data", ""),
        ("check it", "reviewer"),
        ("report", ""),
    ]


async def test_summary_is_bounded_and_deterministic():
    lines = "\n".join(f"user: message number {i} " + "x" * 200 for i in range(50))
    first = await OfflineModel().complete(ask(lines, purpose="summary"))
    second = await OfflineModel().complete(ask(lines, purpose="summary"))
    assert first.text == second.text
    assert first.text.startswith("Summary of 50 earlier messages: user: message number 0")
    assert "… 38 more" in first.text
    assert len(first.text) < 1000


async def test_plain_chat_answers_without_tools():
    response = await OfflineModel().complete(ask("what is up"))
    assert response.tool_calls == ()
    assert response.text == "Offline model (offline) read: what is up"
    assert response.usage.input_tokens > 0
