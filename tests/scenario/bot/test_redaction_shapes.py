"""Issue 26: values that are not JSON text, as a remote executor is sent them (real bot, worker).

A model's arguments are JSON, so bytes, an ``Enum``, a dataclass or a set reach a context
only from code: here an operator's local executor (``enrich``, named in the hooks file)
that adds them to every ``echo`` call before a remote one (``recorder``) sees it. A Slack
token inside the bytes, the ``Enum``'s value and the dataclass's field is masked in what
the recorder receives, and the set arrives sorted, the same in both of two requests.
"""

from __future__ import annotations

import dataclasses
import enum
import secrets

import pytest

from harness.config import Settings
from harness.hooks.contexts import ToolInvokedContext

from .conftest import posting_to
from .loopback import bot_beside
from .recorder import Recorder
from .threads import Thread, until

TOKEN = "xoxb-" + "-".join(secrets.token_hex(6) for _ in range(3))
TAGS = [f"tag-{secrets.token_hex(3)}" for _ in range(12)]
ME = "tests.scenario.bot.test_redaction_shapes"


class Where(enum.Enum):
    VAULT = f"deploy key {TOKEN}"


@dataclasses.dataclass(frozen=True)
class Note:
    text: str


async def enrich(ctx: ToolInvokedContext) -> ToolInvokedContext | None:
    """A ``tool.invoked.pre`` executor: adds values of four non-JSON shapes to ``echo``'s call."""
    if ctx.call.name != "echo" or "tags" in ctx.call.arguments:
        return None
    extra = {
        "tags": set(TAGS),
        "blob": f"bytes with {TOKEN}".encode(),
        "where": Where.VAULT,
        "note": Note(f"note with {TOKEN}"),
    }
    call = ctx.call.model_copy(update={"arguments": {**ctx.call.arguments, **extra}})
    return ctx.model_copy(update={"call": call})


@pytest.fixture
def recorder() -> Recorder:
    return Recorder(("tool.invoked.pre",))


@pytest.fixture
def settings(settings: Settings, bot_port, tmp_path, recorder) -> Settings:
    hooks = tmp_path / "hooks.toml"
    hooks.write_text(
        "[[executor]]\n"
        'name = "enrich"\n'
        'kind = "local"\n'
        'points = ["tool.invoked.pre"]\n'
        f'target = "{ME}:enrich"\n'
        "\n"
        "[[executor]]\n"
        'name = "recorder"\n'
        'kind = "jsonrpc"\n'
        'points = ["tool.invoked.pre"]\n'
        f'url = "http://127.0.0.1:{recorder.port}/rpc"\n'
    )
    return posting_to(settings, bot_port, hooks_config=hooks)


@pytest.fixture
async def slack(harness, tmp_path, bot_port, worker, recorder):
    async for sender in bot_beside(recorder, harness, tmp_path, bot_port):
        yield sender


async def test_bytes_an_enum_and_a_dataclass_are_masked_and_a_set_goes_sorted(
    slack, harness, recorder
):
    thread = Thread(slack, harness)
    await thread.start('call echo {"text": "one"}')
    await thread.until_posted("Tool results:")
    await thread.say('call echo {"text": "one"}')
    await until(lambda: len(recorder.arguments()) >= 2, what="two tool calls recorded")

    first, second = recorder.arguments()[:2]
    assert first == second  # equal contexts, equal requests
    assert first["tags"] == sorted(TAGS)
    assert {key: first[key] for key in ("blob", "where", "note")} == {
        "blob": "bytes with [REDACTED]",
        "where": "deploy key [REDACTED]",
        "note": {"text": "note with [REDACTED]"},
    }
    received = b"\n".join(recorder.bodies)
    assert TOKEN.encode() not in received
