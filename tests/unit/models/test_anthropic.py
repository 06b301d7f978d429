"""AnthropicProvider against the replay server: system split, tool blocks, thinking, errors."""

from __future__ import annotations

import pytest

from harness.domain import EFFORTS, Message, ToolCall, ToolSpec
from harness.models import AnthropicProvider, ModelError, ModelRequest
from harness.models.anthropic import API_VERSION, THINKING_BUDGETS

CALC = ToolSpec(name="calculator", description="Arithmetic.", parameters={"type": "object"})


def test_every_effort_level_has_a_thinking_budget():
    assert tuple(THINKING_BUDGETS) == EFFORTS  # the levels are harness.domain's, written once


def request(**update) -> ModelRequest:
    base = ModelRequest(
        model="claude-sonnet-4-5",
        effort="medium",
        messages=(
            Message(role="system", content="Be brief."),
            Message(role="system", content="Skill: maths."),
            Message(role="user", content="What is 6*7?"),
        ),
        tools=(CALC,),
        max_tokens=500,
    )
    return base.model_copy(update=update)


@pytest.fixture
def provider(http, replay) -> AnthropicProvider:
    return AnthropicProvider(http, api_key="sk-ant-test-0001", base_url=replay.url)


async def test_text_answer_and_what_was_sent(provider, replay):
    replay.queue("anthropic/text")
    response = await provider.complete(request())
    assert response.text == "Paris is the capital of France."  # the thinking block is dropped
    assert response.stop_reason == "end_turn"
    assert (response.usage.input_tokens, response.usage.output_tokens) == (57, 21)
    (sent,) = replay.requests
    assert sent.path == "/v1/messages"
    assert sent.headers["x-api-key"] == "sk-ant-test-0001"
    assert sent.headers["anthropic-version"] == API_VERSION
    assert sent.body["model"] == "claude-sonnet-4-5"
    assert sent.body["system"] == "Be brief.\n\nSkill: maths."
    assert sent.body["messages"] == [
        {"role": "user", "content": [{"type": "text", "text": "What is 6*7?"}]}
    ]
    assert sent.body["tools"] == [
        {"name": "calculator", "description": "Arithmetic.", "input_schema": {"type": "object"}}
    ]
    budget = THINKING_BUDGETS["medium"]
    assert sent.body["thinking"] == {"type": "enabled", "budget_tokens": budget}
    assert sent.body["max_tokens"] == 500 + budget


async def test_tool_use_blocks_become_tool_calls(provider, replay):
    replay.queue("anthropic/tool_use")
    response = await provider.complete(request())
    assert response.text == "I'll use the tools."
    assert response.tool_calls == (
        ToolCall(id="toolu_01A", name="echo", arguments={"text": "hello"}),
        ToolCall(id="toolu_01B", name="calculator", arguments={"expression": "6*7"}),
    )
    assert response.stop_reason == "tool_use"


async def test_tool_results_merge_into_one_user_turn_without_thinking(provider, replay):
    replay.queue("anthropic/after_tools")
    a = ToolCall(id="toolu_01A", name="echo", arguments={"text": "hello"})
    b = ToolCall(id="toolu_01B", name="calculator", arguments={"expression": "6*7"})
    response = await provider.complete(
        request(
            messages=(
                Message(role="user", content="go"),
                Message(role="assistant", content="Using tools.", tool_calls=(a, b)),
                Message(role="tool", tool_call_id="toolu_01A", name="echo", content="hello"),
                Message(role="tool", tool_call_id="toolu_01B", name="calculator", content="42"),
            )
        )
    )
    assert response.text == "hello; 6*7 = 42"
    body = replay.requests[0].body
    assert [turn["role"] for turn in body["messages"]] == ["user", "assistant", "user"]
    assert body["messages"][1]["content"] == [
        {"type": "text", "text": "Using tools."},
        {"type": "tool_use", "id": "toolu_01A", "name": "echo", "input": {"text": "hello"}},
        {
            "type": "tool_use",
            "id": "toolu_01B",
            "name": "calculator",
            "input": {"expression": "6*7"},
        },
    ]
    assert body["messages"][2]["content"] == [
        {"type": "tool_result", "tool_use_id": "toolu_01A", "content": "hello"},
        {"type": "tool_result", "tool_use_id": "toolu_01B", "content": "42"},
    ]
    # A continued tool-use turn would need its thinking blocks replayed; none are kept.
    assert "thinking" not in body
    assert "system" not in body


@pytest.mark.parametrize(
    ("effort", "thinking"), [("low", False), ("high", True)], ids=["low", "high"]
)
async def test_effort_maps_to_a_thinking_budget(provider, replay, effort, thinking):
    replay.queue("anthropic/text")
    await provider.complete(request(effort=effort))
    body = replay.requests[0].body
    assert ("thinking" in body) is thinking
    if thinking:
        assert body["thinking"]["budget_tokens"] == THINKING_BUDGETS["high"]


async def test_effort_mode_none_sends_no_thinking(http, replay):
    provider = AnthropicProvider(http, api_key="k", base_url=replay.url, effort_mode="none")
    replay.queue("anthropic/text")
    await provider.complete(request(effort="high"))
    assert "thinking" not in replay.requests[0].body
    assert replay.requests[0].body["max_tokens"] == 500


@pytest.mark.parametrize(
    ("recording", "status", "vendor_type", "says", "retryable"),
    [
        ("anthropic/error_529_overloaded", 529, "overloaded_error", "Overloaded", True),
        ("anthropic/error_400", 400, "invalid_request_error", "roles must alternate", False),
        ("anthropic/error_401", 401, "authentication_error", "invalid x-api-key", False),
    ],
    ids=["529", "400", "401"],
)
async def test_http_errors_say_status_and_vendor_message(
    provider, replay, recording, status, vendor_type, says, retryable
):
    replay.queue(recording)
    with pytest.raises(ModelError) as caught:
        await provider.complete(request())
    error = caught.value
    assert (error.provider, error.kind, error.status) == ("anthropic", "status", status)
    assert error.vendor_type == vendor_type
    assert says in str(error)
    assert error.retryable is retryable


async def test_a_reply_without_content_is_malformed(provider, replay):
    replay.queue("anthropic/malformed_no_content")
    with pytest.raises(ModelError) as caught:
        await provider.complete(request())
    assert caught.value.kind == "malformed"


async def test_timeout_is_a_typed_error(http, replay):
    provider = AnthropicProvider(http, api_key="k", base_url=replay.url, timeout=0.2)
    replay.queue("anthropic/slow")
    with pytest.raises(ModelError) as caught:
        await provider.complete(request())
    assert caught.value.kind == "timeout"
    assert "0.2s" in str(caught.value)
