"""Issue 27: an activity answers with what its chains changed, and the workflow rebuilds the
context a full result would have been (``harness.temporal.models.changes`` / ``applied``)."""

from __future__ import annotations

from harness.domain import ChannelMessage, LlmResponse, Message, TaskRef
from harness.hooks.contexts import ChannelSentContext, ContextCreatedContext
from harness.temporal.models import Changed, applied, changes

TASK = TaskRef(task_id="task/T/C", team="T", channel="C")


def test_only_the_changed_fields_travel_and_applying_them_gives_the_whole_result():
    sent = ChannelSentContext(
        task=TASK,
        idempotency_key="k/1",
        entities={"progress": '{"doing": "thinking"}'},
        message=ChannelMessage(channel="C", text="hello"),
    )
    out = sent.model_copy(
        update={"result": ChannelMessage(channel="C", text="hello", ts="1.5"), "attempt": 1}
    )
    changed = changes(sent, out)
    assert set(changed.fields) == {"result"}  # identity, entities and the message stay home
    assert applied(sent, Changed.model_validate_json(changed.model_dump_json())) == out


def test_a_replaced_input_travels_and_an_unechoed_one_never_does():
    sent = ContextCreatedContext(
        task=TASK, transcript=(Message(role="user", content="a token xoxb-secret"),)
    )
    out = sent.model_copy(
        update={
            "transcript": (Message(role="user", content="a token [REDACTED]"),),
            "entities": {"model": "offline"},
            "result": (Message(role="user", content="hi"),),
        }
    )
    assert set(changes(sent, out).fields) == {"transcript", "entities", "result"}
    left = changes(sent, out, leave=("transcript",))
    assert set(left.fields) == {"entities", "result"}
    rebuilt = applied(sent, left)
    assert rebuilt.entities == {"model": "offline"} and rebuilt.result == out.result
    assert rebuilt.transcript == sent.transcript  # the workflow never reads it back


def test_nothing_changed_is_an_empty_answer_and_the_sent_context_itself():
    sent = ChannelSentContext(task=TASK, message=ChannelMessage(channel="C", text="x"))
    changed = changes(sent, sent.model_copy())
    assert changed.fields == {}
    assert applied(sent, changed) is sent


def test_an_llm_result_survives_the_json_round_trip():
    from harness.hooks.contexts import LlmInvokedContext

    sent = LlmInvokedContext(task=TASK, model="offline", messages=())
    out = sent.model_copy(update={"result": LlmResponse(text="done")})
    wire = Changed.model_validate_json(changes(sent, out).model_dump_json())
    assert applied(sent, wire).result == LlmResponse(text="done")
