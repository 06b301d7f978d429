from __future__ import annotations

import pydantic
import pytest

from harness.domain import Participant, Role, TaskRef, TaskSnapshot, ToolCall
from harness.hooks import OPERATIONS, UnknownHookPointError, context_type
from harness.hooks.contexts import CommandInvokedContext, HookContext, ToolInvokedContext


def test_every_operation_has_its_own_context_type():
    classes = [context_type(op) for op in OPERATIONS]
    assert len(set(classes)) == len(OPERATIONS)
    for op, cls in zip(OPERATIONS, classes, strict=True):
        assert issubclass(cls, HookContext)
        assert cls.operation == op
        assert "result" in cls.model_fields
        assert cls.model_fields["result"].default is None


def test_context_type_accepts_points_and_rejects_unknown_names():
    assert context_type("tool.invoked.pre") is ToolInvokedContext
    with pytest.raises(UnknownHookPointError):
        context_type("tool.invoked.during")
    with pytest.raises(UnknownHookPointError):
        context_type("nope")


@pytest.mark.parametrize("op", OPERATIONS)
def test_every_context_carries_the_common_fields(op):
    fields = context_type(op).model_fields
    for name in (
        "task",
        "participants",
        "entities",
        "correlation_id",
        "attempt",
        "idempotency_key",
        "result",
    ):
        assert name in fields, f"{op} lacks {name}"


def test_contexts_are_frozen_and_closed():
    ctx = ToolInvokedContext(call=ToolCall(id="1", name="x"))
    with pytest.raises(pydantic.ValidationError):
        ctx.call = ToolCall(id="2", name="y")  # type: ignore[misc]
    with pytest.raises(pydantic.ValidationError, match="extra"):
        ToolInvokedContext(call=ToolCall(id="1", name="x"), surprise=1)  # type: ignore[call-arg]


def test_attempt_counts_from_one():
    with pytest.raises(pydantic.ValidationError):
        ToolInvokedContext(call=ToolCall(id="1", name="x"), attempt=0)


def test_command_context_carries_sender_role_and_snapshot():
    ref = TaskRef(task_id="T", channel="C")
    ctx = CommandInvokedContext(
        task=ref,
        participants=(Participant(user_id="U1", role=Role.OWNER),),
        command="model",
        args="gpt-x",
        sender="U1",
        role=Role.OWNER,
        snapshot=TaskSnapshot(ref=ref, model="gpt-4o"),
    )
    assert ctx.role_of("U1") is Role.OWNER
    assert ctx.role_of("U2") is Role.NONE
    assert ctx.snapshot is not None and ctx.snapshot.model == "gpt-4o"


def test_contexts_round_trip_through_json():
    ctx = ToolInvokedContext(
        task=TaskRef(task_id="T"), call=ToolCall(id="1", name="x", arguments={"a": [1, {"b": 2}]})
    )
    again = ToolInvokedContext.model_validate_json(ctx.model_dump_json())
    assert again == ctx
