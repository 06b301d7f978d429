"""Compaction over a 200-message thread: within budget, kept messages verbatim."""

from __future__ import annotations

from harness.agent.compaction import apply_compaction, keep_indices
from harness.agent.prompts import SUMMARY_PREFIX
from harness.agent.tokens import estimate_tokens
from harness.domain import Message, ToolCall

from .conftest import build_manager, make_loop

BUDGET = 2500


def thread(n: int = 200) -> list[Message]:
    messages = [Message(role="system", content="Task rules: be careful.")]
    for i in range(n - 1):
        role = "user" if i % 2 == 0 else "assistant"
        messages.append(Message(role=role, content=f"message {i}: " + "words " * 30))
    return messages


async def test_a_200_message_thread_is_kept_within_budget(tools, store, people):
    from harness.models import ModelRegistry

    manager = build_manager(ModelRegistry(), tools, store, keep_last=20)
    original = thread()
    assert estimate_tokens(original) > 4 * BUDGET
    loop = make_loop(manager, people, tools, token_budget=BUDGET)
    loop.state.transcript = list(original)
    assert await loop.compact_if_needed() is True
    compacted = loop.state.transcript
    assert estimate_tokens(compacted) <= BUDGET
    assert compacted[0] == original[0]  # system messages verbatim
    assert compacted[2:] == original[-20:]  # the tail verbatim, same objects' values
    summary = compacted[1]
    assert summary.content.startswith(
        SUMMARY_PREFIX + "Summary of 179 earlier messages: user: message 0"
    )
    assert await loop.compact_if_needed() is False  # under budget now: trigger says no


async def test_compaction_runs_inside_the_loop_and_the_thread_stays_in_budget(
    manager, people, tools, trace
):
    loop = make_loop(manager, people, tools, token_budget=BUDGET)
    loop.state.transcript = thread()
    for i in range(5):
        await loop.handle(f'call echo {{"text": "turn {i}"}}')
        assert estimate_tokens(loop.state.transcript) <= BUDGET + 200  # this turn's growth
    assert len(trace.contexts("compaction.summarise.post")) >= 1
    assert loop.state.transcript[-1].content == "Tool results:\n- echo: turn 4"


def test_keep_never_orphans_tool_results():
    call = ToolCall(id="c1", name="echo")
    messages = [
        Message(role="user", content="go"),
        Message(role="assistant", tool_calls=(call,)),
        Message(role="tool", tool_call_id="c1", content="a"),
        Message(role="assistant", content="done"),
    ]
    assert keep_indices(messages, keep_last=2) == (1, 2, 3)
    assert apply_compaction(messages, {1, 2, 3}, "s")[0] == Message(
        role="user", content=SUMMARY_PREFIX + "s"
    )


async def test_trigger_body_respects_a_zero_budget(manager):
    from harness.hooks.contexts import CompactionTriggerContext

    ctx = CompactionTriggerContext(token_count=10**6, token_budget=0)
    assert (await manager.run("compaction.trigger", ctx)).result is False
