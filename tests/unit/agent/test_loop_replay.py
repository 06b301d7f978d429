"""The loop against recorded OpenAI-compatible responses; what the provider received."""

from __future__ import annotations

import pytest

from harness.domain import LlmResponse
from harness.hooks.contexts import LlmInvokedContext
from harness.http import AiohttpClient
from harness.models import ModelRegistry, OpenAICompatProvider
from tests.support.replay_server import ReplayServer

from .conftest import build_manager, make_loop


@pytest.fixture
async def replay():
    async with ReplayServer() as server:
        yield server


@pytest.fixture
async def replay_manager(replay, tools, store):
    http = AiohttpClient()
    models = ModelRegistry(openai=OpenAICompatProvider(http, base_url=replay.openai_base_url))
    yield build_manager(models, tools, store)
    await http.aclose()


async def test_plan_steps_and_tool_calls_from_recordings(replay, replay_manager, people, tools):
    replay.queue(
        "openai/triage_plan",
        "openai/plan_two_steps",
        "openai/tool_calls",
        "openai/step_answer",
        "openai/report",
    )
    loop = make_loop(replay_manager, people, tools, model="gpt-4.1-mini", effort="high")
    reply = await loop.handle("Greet and compute")
    assert reply.splitlines() == [
        "1. Gather facts — done: The greeting is hello and 6*7 is 42.",
        "2. Report — done: Report: hello, 42.",
    ]
    assert replay.pending == 0
    triage, plan, first, second, report = (r.body for r in replay.requests)
    assert triage["reasoning_effort"] == "low"  # triage is the fast, cheap call
    assert plan["messages"][-1] == {"role": "user", "content": "Greet and compute"}
    assert first["model"] == "gpt-4.1-mini" and first["reasoning_effort"] == "high"
    offered = {t["function"]["name"] for t in first["tools"]}
    assert {"echo", "calculator", "ask_human"} <= offered
    assert (
        first["messages"][-1]["content"]
        == "Step 1 of 2: Gather facts\nEcho the greeting and compute 6*7"
    )
    tool_messages = [m for m in second["messages"] if m["role"] == "tool"]
    assert tool_messages == [
        {"role": "tool", "tool_call_id": "call_echo_1", "content": "hello"},
        {"role": "tool", "tool_call_id": "call_calc_1", "content": "42"},
    ]
    assert report["messages"][-1]["content"] == "Step 2 of 2: Report\nWrite the final answer"


async def test_model_and_effort_of_the_task_reach_the_provider(
    replay, replay_manager, people, tools
):
    replay.queue("openai/triage_main_loop", "openai/text")
    loop = make_loop(replay_manager, people, tools, model="qwen3-32b", effort="low")
    assert await loop.handle("capital of France?") == "Paris is the capital of France."
    assert [(r.body["model"], r.body["reasoning_effort"]) for r in replay.requests] == [
        ("qwen3-32b", "low"),
        ("qwen3-32b", "low"),
    ]


async def test_an_in_executor_replacing_llm_invoked_makes_no_http_call(
    replay, replay_manager, people, tools
):
    async def canned(ctx: LlmInvokedContext):
        return ctx.model_copy(update={"result": LlmResponse(text="from the executor")})

    replay_manager.register("llm.invoked.in", canned, priority=10)
    loop = make_loop(
        replay_manager, people, tools, model="gpt-4.1-mini", system_one_model="offline"
    )
    assert await loop.handle('call echo {"text": "x"}') == "from the executor"
    assert replay.requests == []


async def test_a_provider_error_fails_the_request_with_the_vendor_message(
    replay, replay_manager, people, tools
):
    from harness.models import ModelError

    replay.queue("openai/triage_main_loop", "openai/error_429")
    loop = make_loop(replay_manager, people, tools, model="gpt-4.1-mini")
    with pytest.raises(ModelError, match="Rate limit reached") as caught:
        await loop.handle("anything")
    assert caught.value.retryable
