"""Messages by reference (issue 27): what the workflow sends whole, what by number, and how
the activity's side turns that back into the whole context and its result into numbers."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from harness.domain import Message, TaskRef
from harness.errors import is_retryable
from harness.hooks import OPERATIONS, context_type
from harness.hooks.contexts import ContextCreatedContext, LlmInvokedContext
from harness.temporal.activity.referenced import ProcessVault, opened, referred
from harness.temporal.errors import MessagesMissing
from harness.temporal.models import changes
from harness.temporal.refs import MessageRefs, message_fields, numbers_of, spans

REF = TaskRef(task_id="task/T/C")


def window(count: int) -> tuple[Message, ...]:
    return tuple(Message(role="user", content=f"message {n}") for n in range(count))


def llm(messages: tuple[Message, ...]) -> LlmInvokedContext:
    return LlmInvokedContext(task=REF, model="offline", messages=messages)


def test_the_message_fields_are_every_tuple_of_messages_of_the_catalogue():
    held = {op: message_fields(context_type(op)) for op in OPERATIONS}
    assert {op: f for op, f in held.items() if f} == {
        "compaction.keep": ("messages",),
        "compaction.summarise": ("messages",),
        "context.created": ("result", "transcript"),
        "llm.invoked": ("messages",),
        "system_one.invoked": ("transcript",),
    }


@given(st.lists(st.integers(min_value=1, max_value=60)))
def test_spans_read_back_as_the_numbers_they_were_written_from(numbers):
    assert numbers_of(spans(numbers)) == numbers


def test_a_window_of_consecutive_messages_is_one_span():
    assert spans([1, 2, 3, 4, 7, 9, 10]) == "1-4,7,9-10"
    assert spans([]) == "" and numbers_of("") == []


def test_each_message_goes_whole_once_then_by_number():
    refs = MessageRefs("wf/run")
    messages = window(3)
    first = refs.send(llm(messages))
    assert first.fields == {"messages": "1-3"} and set(first.inline) == {1, 2, 3}
    assert first.context.messages == () and first.context.model == "offline"
    refs.ended(first)
    grown = (*messages, Message(role="assistant", content="answer"))
    second = refs.send(llm(grown))
    assert second.fields == {"messages": "1-4"} and list(second.inline) == [4]
    # A message is its content: one assembled anew (a prompt's system message) keeps its number.
    again = Message(role="user", content="message 0")
    assert again is not messages[0]
    assert refs.send(llm((again, Message(role="user", content="new")))).fields == {
        "messages": "1,5"
    }


def test_a_failed_attempt_sends_its_messages_whole_the_next_time():
    refs = MessageRefs("wf/run")
    messages = window(4)
    refs.ended(refs.send(llm(messages)))
    attempt = refs.send(llm(messages))
    assert attempt.inline == {}
    refs.failed(attempt)
    assert set(refs.send(llm(messages)).inline) == {1, 2, 3, 4}


async def test_the_activity_sees_the_whole_context_and_answers_what_it_was_sent_by_number():
    refs, vault = MessageRefs("wf/run"), ProcessVault()
    transcript = window(3)
    ctx = ContextCreatedContext(task=REF, transcript=transcript)
    refs.ended(first := refs.send(ctx))
    await opened(vault, first)  # the first activity keeps them
    sent = refs.send(ctx)
    assert sent.inline == {}
    whole = await opened(vault, sent)
    assert whole == ctx
    system = Message(role="system", content="be brief")
    out = whole.model_copy(update={"result": (system, *whole.transcript)})
    answer = referred(sent, whole, changes(whole, out, ("transcript",)))
    assert answer.fields["result"] == [system.model_dump(mode="json"), 1, 2, 3]
    back = refs.applied(ctx, answer)
    assert back.result is not None and back.result[0] == system
    assert all(a is b for a, b in zip(back.result[1:], transcript, strict=True))


async def test_messages_the_store_lost_fail_the_attempt_as_retryable():
    refs = MessageRefs("wf/run")
    refs.ended(refs.send(llm(window(2))))
    sent = refs.send(llm(window(2)))
    assert sent.inline == {}  # held, as far as the run knows: but this vault is empty
    with pytest.raises(MessagesMissing, match="2 of the 2 messages of wf/run") as lost:
        await opened(ProcessVault(), sent)
    assert is_retryable(lost.value)
