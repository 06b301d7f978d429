"""Shapes beyond models, mappings and text: bytes, dataclasses, enums, cycles (issue 26)."""

from __future__ import annotations

import dataclasses
import enum

import pytest

from harness.domain import TaskRef, ToolCall
from harness.errors import HarnessError
from harness.hooks import HookManager
from harness.hooks.contexts import ToolInvokedContext
from harness.redaction import RedactionError, Redactor

CANARY = "xoxb-123456789012-1234567890123-CanaryCanaryCanaryCan"


@dataclasses.dataclass(frozen=True)
class Credentials:
    user: str
    note: str


@dataclasses.dataclass
class Computed:
    raw: str
    size: int = dataclasses.field(init=False, default=0)


class Where(enum.Enum):
    VAULT = f"vault at {CANARY}"
    NOWHERE = "nowhere"


@pytest.fixture
def redactor() -> Redactor:
    return Redactor()


def test_bytes_are_masked_and_stay_bytes(redactor):
    raw = f"key={CANARY}\n".encode() + b"\xff\xfe"
    out = redactor.redact(raw)
    assert type(out) is bytes and CANARY.encode() not in out
    assert out.endswith(b"\n\xff\xfe")  # undecodable bytes kept as they were
    assert redactor.redact(bytearray(raw)) == bytearray(out)


def test_dataclasses_are_rebuilt_with_their_fields_masked(redactor):
    out = redactor.redact({"who": Credentials(user="ann", note=f"use {CANARY}")})
    assert out["who"] == Credentials(user="ann", note="use [REDACTED]")
    computed = Computed(raw=CANARY)
    computed.size = 3
    masked = redactor.redact([computed])[0]
    assert masked.raw == "[REDACTED]" and masked.size == 3 and computed.raw == CANARY


def test_an_enum_holding_a_secret_becomes_its_masked_value(redactor):
    assert redactor.redact({"at": Where.VAULT}) == {"at": "vault at [REDACTED]"}
    clean = {"at": Where.NOWHERE}
    assert redactor.redact(clean) is clean


async def test_executors_see_none_of_the_three_shapes_unmasked():
    manager = HookManager()
    seen: list[str] = []

    async def spy(ctx):
        seen.append(repr(ctx.call.arguments) + ctx.model_dump_json())

    manager.register("tool.invoked.pre", spy)
    ctx = ToolInvokedContext(
        task=TaskRef(task_id="T"),
        call=ToolCall(
            id="1",
            name="echo",
            arguments={
                "blob": CANARY.encode(),
                "creds": Credentials(user="ann", note=CANARY),
                "where": Where.VAULT,
            },
        ),
    )
    await manager.run("tool.invoked", ctx)
    assert seen and CANARY not in seen[0]


def test_a_cyclic_value_fails_closed_with_a_clear_error(redactor):
    loop: dict[str, object] = {"token": "t"}
    loop["self"] = loop
    call = ToolCall.model_construct(id="1", name="n", arguments=loop)
    with pytest.raises(RedactionError, match="refers to itself") as caught:
        redactor.redact(call)
    assert isinstance(caught.value, HarnessError) and not caught.value.retryable
    assert caught.value.__context__ is None  # no RecursionError traceback thousands deep


async def test_a_cyclic_context_never_reaches_an_executor():
    manager = HookManager()
    seen: list[object] = []

    async def spy(ctx):
        seen.append(ctx)

    manager.register("tool.invoked.pre", spy)
    loop: list[object] = [CANARY]
    loop.append(loop)
    call = ToolCall.model_construct(id="1", name="echo", arguments={"a": loop})
    ctx = ToolInvokedContext.model_construct(task=TaskRef(task_id="T"), call=call)
    with pytest.raises(RedactionError):
        await manager.run("tool.invoked", ctx)
    assert seen == []
