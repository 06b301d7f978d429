"""Issue 26: the hooks file's ``[redaction]`` table, through the real bot, worker and dev server.

An operator adds a pattern (``ACME-[0-9]{6}``, their ticket numbers) and a field name
(``Acme-Session``) in the hooks file; a remote JSON-RPC executor (``recorder``) named in
the same file keeps every request body it is sent. A message holding a ticket number,
and a tool call whose arguments hold one and a session field, are masked in everything
the executor receives, in what the thread shows (the offline model repeats what it
read), and in the workflow's history as the codec opens it.
"""

from __future__ import annotations

import json
import secrets

import pytest

from harness.config import Settings
from harness.hooks.config import load_redaction
from tests.support.history import opened_bytes

from .conftest import posting_to, serve_bot
from .loopback import bot_beside
from .recorder import Recorder
from .threads import Thread, until

TICKET = f"ACME-{secrets.randbelow(900_000) + 100_000}"
OTHER_TICKET = f"ACME-{secrets.randbelow(900_000) + 100_000}"
SESSION = "sess" + secrets.token_hex(8)
POINTS = ("channel.received.pre", "llm.invoked.pre", "tool.invoked.pre", "channel.sent.pre")


@pytest.fixture
def recorder() -> Recorder:
    return Recorder(POINTS)


@pytest.fixture
def settings(settings: Settings, bot_port, tmp_path, recorder) -> Settings:
    hooks = tmp_path / "hooks.toml"
    points = ", ".join(f'"{point}"' for point in POINTS)
    hooks.write_text(
        "[redaction]\n"
        'patterns = ["ACME-[0-9]{6}"]\n'
        'fields = ["Acme-Session"]\n'
        "\n"
        "[[executor]]\n"
        'name = "recorder"\n'
        'kind = "jsonrpc"\n'
        f"points = [{points}]\n"
        f'url = "http://127.0.0.1:{recorder.port}/rpc"\n'
    )
    return posting_to(settings, bot_port, hooks_config=hooks)


@pytest.fixture
async def slack(harness, tmp_path, bot_port, worker, recorder):
    async for sender in bot_beside(recorder, harness, tmp_path, bot_port):
        yield sender


async def test_the_tables_pattern_and_field_are_masked_for_executors_the_thread_and_history(
    slack, harness, recorder
):
    thread = Thread(slack, harness)
    await thread.start(f"remember ticket {TICKET} for the release")
    echo = await thread.until_posted("remember ticket")
    assert echo.endswith("remember ticket [REDACTED] for the release")

    arguments = {"text": f"ticket {OTHER_TICKET}", "acme_session": SESSION}
    await thread.say(f"call echo {json.dumps(arguments)}")
    await thread.until_posted("Tool results:")
    await until(lambda: "tool.invoked.pre" in recorder.methods(), what="the tool call's request")

    assert set(POINTS) <= recorder.methods()  # the control: it was asked at every point
    [called] = [a for a in recorder.arguments() if "acme_session" in a]
    assert called == {"text": "ticket [REDACTED]", "acme_session": "[REDACTED]"}
    received = b"\n".join(recorder.bodies).decode()
    opened = (await opened_bytes(harness.temporal, thread.task_id)).decode(errors="replace")
    assert "remember ticket" in opened  # the control: the message is in history
    places = {"executor": received, "thread": "\n".join(thread.posts()), "history": opened}
    for canary in (TICKET, OTHER_TICKET):
        leaked = [where for where, text in places.items() if canary in text]
        assert leaked == [], f"{canary} in {leaked}"


async def test_the_bot_masks_the_tables_pattern_in_its_own_texts(settings, harness, tmp_path):
    """What the bot words itself (an unknown sub-command echoed) knows the table as the worker
    does: ``python -m bot`` hands the file's table to the app."""
    table = load_redaction(settings.hooks_config)
    async for slack in serve_bot(harness, tmp_path, redaction=table):
        status, reply = await slack.slash("/task", TICKET, user="U0OWNER", channel="C1")
    assert (status, reply) == (
        200,
        "`/task [REDACTED]` is not a command here; `/task help` lists them",
    )
    async for slack in serve_bot(harness, tmp_path):  # the control: without the table
        _, reply = await slack.slash("/task", TICKET, user="U0OWNER", channel="C1")
    assert TICKET in reply
