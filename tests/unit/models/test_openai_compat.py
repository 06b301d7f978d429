"""OpenAICompatProvider against the replay server: what it sends, what it reads, how it fails."""

from __future__ import annotations

import pytest

from harness.domain import Message, ToolCall, ToolSpec
from harness.models import ModelError, ModelRequest, OpenAICompatProvider
from harness.models.openai_compat import UNPARSED_ARGUMENTS

ECHO = ToolSpec(
    name="echo",
    description="Repeat text.",
    parameters={"type": "object", "properties": {"text": {"type": "string"}}},
)


def request(**update) -> ModelRequest:
    base = ModelRequest(
        model="gpt-4.1-mini",
        effort="high",
        messages=(Message(role="system", content="Be brief."), Message(role="user", content="Hi")),
        tools=(ECHO,),
        max_tokens=321,
    )
    return base.model_copy(update=update)


@pytest.fixture
def provider(http, replay) -> OpenAICompatProvider:
    return OpenAICompatProvider(http, api_key="sk-test-key-0001", base_url=replay.openai_base_url)


async def test_text_answer_and_what_was_sent(provider, replay):
    replay.queue("openai/text")
    response = await provider.complete(request())
    assert response.text == "Paris is the capital of France."
    assert response.tool_calls == ()
    assert response.stop_reason == "stop"
    assert (response.usage.input_tokens, response.usage.output_tokens) == (42, 9)
    (sent,) = replay.requests
    assert sent.path == "/v1/chat/completions"
    assert sent.headers["authorization"] == "Bearer sk-test-key-0001"
    assert sent.body["model"] == "gpt-4.1-mini"
    assert sent.body["reasoning_effort"] == "high"
    assert sent.body["max_completion_tokens"] == 321
    assert sent.body["messages"] == [
        {"role": "system", "content": "Be brief."},
        {"role": "user", "content": "Hi"},
    ]
    assert sent.body["tools"] == [
        {
            "type": "function",
            "function": {
                "name": "echo",
                "description": "Repeat text.",
                "parameters": ECHO.parameters,
            },
        }
    ]


async def test_tool_calls_are_parsed_with_dict_arguments(provider, replay):
    replay.queue("openai/tool_calls")
    response = await provider.complete(request())
    assert response.tool_calls == (
        ToolCall(id="call_echo_1", name="echo", arguments={"text": "hello"}),
        ToolCall(id="call_calc_1", name="calculator", arguments={"expression": "6*7"}),
    )
    assert response.stop_reason == "tool_calls"


async def test_tool_round_trip_is_encoded_as_the_api_expects(provider, replay):
    replay.queue("openai/text")
    call = ToolCall(id="call_1", name="echo", arguments={"text": "a"})
    await provider.complete(
        request(
            messages=(
                Message(role="user", content="go"),
                Message(role="assistant", tool_calls=(call,)),
                Message(role="tool", tool_call_id="call_1", name="echo", content="a"),
            )
        )
    )
    messages = replay.requests[0].body["messages"]
    assert messages[1] == {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {
                "id": "call_1",
                "type": "function",
                "function": {"name": "echo", "arguments": '{"text": "a"}'},
            }
        ],
    }
    assert messages[2] == {"role": "tool", "tool_call_id": "call_1", "content": "a"}


async def test_arguments_that_are_not_json_reach_the_tool_as_text(provider, replay):
    replay.queue("openai/tool_call_bad_arguments")
    (call,) = (await provider.complete(request())).tool_calls
    assert call.arguments == {UNPARSED_ARGUMENTS: "{text: hello"}


async def test_effort_can_be_left_out_and_max_tokens_renamed(http, replay):
    provider = OpenAICompatProvider(
        http,
        base_url=replay.openai_base_url,
        send_reasoning_effort=False,
        max_tokens_field="max_tokens",
    )
    replay.queue("openai/text")
    await provider.complete(request(tools=()))
    body = replay.requests[0].body
    assert "reasoning_effort" not in body and "tools" not in body
    assert body["max_tokens"] == 321
    assert "authorization" not in replay.requests[0].headers


@pytest.mark.parametrize(
    ("recording", "status", "vendor_type", "says", "retryable"),
    [
        ("openai/error_401", 401, "invalid_request_error", "Incorrect API key provided", False),
        ("openai/error_429", 429, "tokens", "Rate limit reached", True),
        ("openai/error_400_effort", 400, "invalid_request_error", "reasoning_effort", False),
        ("openai/error_502_html", 502, "", "502 Bad Gateway", True),
    ],
    ids=["401", "429", "400-effort", "502-html"],
)
async def test_http_errors_say_status_and_vendor_message(
    provider, replay, recording, status, vendor_type, says, retryable
):
    replay.queue(recording)
    with pytest.raises(ModelError) as caught:
        await provider.complete(request())
    error = caught.value
    assert (error.kind, error.status, error.vendor_type) == ("status", status, vendor_type)
    assert says in error.message and says in str(error)
    assert error.retryable is retryable


async def test_a_key_echoed_in_a_vendor_error_is_redacted(provider, replay):
    replay.queue("openai/error_401")
    with pytest.raises(ModelError) as caught:
        await provider.complete(request())
    assert "sk-proj-abcdef123456" not in str(caught.value)
    assert "[redacted]" in str(caught.value)


@pytest.mark.parametrize(
    ("recording", "says"),
    [("openai/malformed_not_json", "not JSON"), ("openai/malformed_no_choices", "choices")],
    ids=["not-json", "no-choices"],
)
async def test_malformed_replies_are_typed_errors(provider, replay, recording, says):
    replay.queue(recording)
    with pytest.raises(ModelError) as caught:
        await provider.complete(request())
    assert caught.value.kind == "malformed"
    assert says in caught.value.message


async def test_timeout_is_a_typed_retryable_error(http, replay):
    provider = OpenAICompatProvider(http, base_url=replay.openai_base_url, timeout=0.3)
    replay.queue("openai/slow")
    with pytest.raises(ModelError) as caught:
        await provider.complete(request())
    assert caught.value.kind == "timeout"
    assert caught.value.retryable


async def test_nothing_listening_is_a_transport_error(http):
    provider = OpenAICompatProvider(http, base_url="http://127.0.0.1:9/v1", timeout=2)
    with pytest.raises(ModelError) as caught:
        await provider.complete(request())
    assert caught.value.kind == "transport"
