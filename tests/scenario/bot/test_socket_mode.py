"""Issue 11: the bot over Socket Mode, end to end, the same scenarios as over HTTP.

The real bolt app with slack_sdk's aiohttp Socket Mode client (:mod:`bot.socket_mode`)
connects to a local server speaking Slack's protocol (``apps.connections.open``,
hello, envelopes, acks, disconnect: :mod:`tests.support.socket_mode_server`); bot and
worker (real dev server) both post to the Web API stand-in at that server's base URL,
which takes only the bot token. The payloads are the recorded ones the HTTP tests send.
"""

from __future__ import annotations

import asyncio
import json
import signal
import sys
import uuid
from urllib.parse import parse_qsl

import pytest
from pydantic import SecretStr

from bot.app import build_app
from bot.config import BotSettings
from bot.socket_mode import SlackRefused, socket_mode
from bot.standin import SlackStandIn
from harness.domain import TaskSpec
from harness.storage import database_url
from harness.storage.ledger import Ledger
from tests.integration.temporal.test_busy import Gate
from tests.support.leaks import collect_earlier_leaks
from tests.support.socket_mode_server import SocketModeServer

from .conftest import FIXTURES, TEAM, free_port
from .test_start import ROOT, bot_env

APP_TOKEN = "xapp-1-A0APP1-1-socketmodetest"
BOT_TOKEN = "xoxb-1-2-socketmodetest"
OWNER = "U0OWNER"


@pytest.fixture
async def server():
    async with SocketModeServer(
        app_token=APP_TOKEN, bot_token=BOT_TOKEN, web_api=SlackStandIn("UBOTLOCAL")
    ) as running:
        yield running


@pytest.fixture
def settings(settings, server):
    """The worker posts the agent's replies to the server's Web API, with the bot token."""
    return settings.model_copy(
        update={"slack_api_url": server.api_url, "slack_bot_token": SecretStr(BOT_TOKEN)}
    )


def bot_settings(server, tmp_path, **values) -> BotSettings:
    """Socket Mode as an operator sets it: two tokens, the API URL, no signing secret."""
    given = {
        "app_token": APP_TOKEN,
        "bot_token": BOT_TOKEN,
        "api_url": server.api_url,
        "port": free_port(),
        "data_dir": tmp_path,
    } | values
    return BotSettings(_env_file=None, **given)


@pytest.fixture
async def bot(server, harness, worker, tmp_path):
    """The bot connected over Socket Mode, in front of a real worker."""
    made = build_app(bot_settings(server, tmp_path), harness)
    async with socket_mode(made, APP_TOKEN):
        await server.connected()
        yield made
    await made.slash.drain()
    await made.ledger.aclose()


@pytest.fixture
def channel():
    return f"C{uuid.uuid4().hex[:8].upper()}"


def event(name: str, **overrides) -> dict:
    payload = json.loads((FIXTURES / name).read_text())
    if "event_id" in overrides:
        payload["event_id"] = overrides.pop("event_id")
    payload["event"].update(overrides)
    return payload


def slash(command: str, text: str, *, channel: str, user: str = OWNER) -> dict:
    """The recorded slash command as Socket Mode carries it: the form fields as JSON."""
    fields = dict(parse_qsl((FIXTURES / "slash_command.txt").read_text().strip()))
    fields.update(
        command=command,
        text=text,
        channel_id=channel,
        user_id=user,
        trigger_id=f"{uuid.uuid4().hex}.{user}",
    )
    return fields


def posts(server, channel: str, method: str = "chat.postMessage") -> list[dict]:
    return [a for m, a in server.web_api.calls if m == method and a.get("channel") == channel]


async def until(check, timeout: float = 15.0, what: str = ""):
    async with asyncio.timeout(timeout):
        while not (found := check()):
            await asyncio.sleep(0.02)
    return found


async def mention(server, channel: str, text: str = "", **overrides) -> str:
    """A mention over the socket, acked without a payload (events take none)."""
    given = {"text": f"<@UBOTLOCAL> {text}"} if text else {}
    envelope = await server.push(
        "events_api", event("app_mention.json", channel=channel, **given, **overrides)
    )
    assert await server.ack(envelope) is None
    return envelope


async def test_a_mention_starts_the_task_and_the_agents_reply_is_posted(
    bot, server, harness, channel
):
    await mention(server, channel, 'call echo {"text": "over the socket"}')
    reply = await until(
        lambda: [p for p in posts(server, channel) if "echo: over the socket" in p["text"]]
    )
    assert reply[0]["thread_ts"] == "1700000100.000100"
    started = [p for p in posts(server, channel) if p["text"].startswith("started a task")]
    assert len(started) == 1
    assert started[0]["text"].startswith("started a task")
    assert [m.user for m in await harness.transcript(harness.task_id(TEAM, channel))] == [OWNER]
    assert [call.error for call in server.opened] == [None]  # one connection, the app token's
    assert ("auth.test", {}) in server.web_api.calls  # bolt authorized with the bot token there


async def test_slash_commands_are_acked_with_their_reply_as_the_envelopes_payload(
    bot, server, channel
):
    await mention(server, channel, "hello")
    changed = await server.push("slash_commands", slash("/model", "gpt-x", channel=channel))
    assert await server.ack(changed) == {
        "text": "model set to `gpt-x` (was `offline`)",
        "response_type": "in_channel",
    }
    status = await server.ack(
        await server.push("slash_commands", slash("/task", "status", channel=channel))
    )
    assert status is not None and status["response_type"] == "ephemeral"
    assert "model: `gpt-x`" in status["text"]  # the status reads what the first command set
    unknown = await server.ack(
        await server.push("slash_commands", slash("/task", "teleport", channel=channel))
    )
    assert unknown == {
        "text": "`/task teleport` is not a command here; `/task help` lists them",
        "response_type": "ephemeral",
    }


async def test_a_thread_reply_reaches_the_task(bot, server, harness, channel):
    await mention(server, channel, "hello")
    reply = event("message_in_thread.json", channel=channel, user=OWNER)
    assert await server.ack(await server.push("events_api", reply)) is None
    messages = await harness.transcript(harness.task_id(TEAM, channel))
    assert [(m.user, m.text) for m in messages] == [
        (OWNER, "hello"),
        (OWNER, "also check the canary logs"),
    ]


async def test_a_redelivered_event_is_acked_and_not_handled_twice(bot, server, harness, channel):
    payload = event("app_mention.json", channel=channel)
    first = await server.push("events_api", payload)
    assert await server.ack(first) is None
    again = await server.push("events_api", payload, retry_attempt=1, retry_reason="timeout")
    assert await server.ack(again) is None
    assert (len(server.acks[first]), len(server.acks[again])) == (1, 1)
    await until(lambda: posts(server, channel), what="the first delivery's post")
    assert len(await harness.transcript(harness.task_id(TEAM, channel))) == 1
    assert [
        p["text"].split(";")[0] for p in posts(server, channel) if p["text"].startswith("started")
    ] == ["started a task for this channel"]


async def test_a_button_click_over_the_socket_answers_the_tasks_question(bot, server, channel):
    ask = 'call ask_human {"question": "which environment?", "options": ["staging", "prod"]}'
    await mention(server, channel, ask)
    [question] = await until(
        lambda: [p for p in posts(server, channel) if p.get("blocks")], what="question"
    )
    button = question["blocks"][1]["elements"][0]
    click = json.loads((FIXTURES / "block_actions_help.json").read_text())
    click["actions"][0].update(action_id=button["action_id"], value=button["value"])
    click["channel"]["id"] = click["container"]["channel_id"] = channel
    assert await server.ack(await server.push("interactive", click)) is None
    answer = await until(lambda: [p for p in posts(server, channel) if "answered" in p["text"]])
    assert answer[0]["text"] == "Tool results:\n- ask_human: <@U0OWNER> answered: staging"


async def test_slacks_disconnect_makes_the_bot_reconnect_and_keep_working(
    bot, server, harness, channel
):
    old = await server.disconnect("refresh_requested")
    new = await server.connected(2)
    await until(lambda: old.closed, what="the old connection closed")
    assert new is not old and new.ticket != old.ticket
    assert [call.error for call in server.opened] == [None, None]  # a fresh URL, asked again
    assert new.sent[0]["type"] == "hello"
    await mention(server, channel, "after the refresh")
    assert [m.text for m in await harness.transcript(harness.task_id(TEAM, channel))] == [
        "after the refresh"
    ]


@pytest.mark.parametrize(
    ("kind", "payload"),
    [
        ("events_api", {"type": "event_callback", "event": "not an object"}),
        ("slash_commands", {"command": "/model", "text": 42}),
        ("interactive", {"type": "block_actions", "actions": []}),
    ],
    ids=["event-a-string", "text-a-number", "no-actions"],
)
async def test_a_malformed_payload_is_acked_unread_in_one_log_line(
    bot, server, harness, channel, caplog, kind, payload
):
    collect_earlier_leaks()
    caplog.clear()
    assert await server.ack(await server.push(kind, payload)) is None
    [line] = [r for r in caplog.records if "malformed payload acked unread" in r.getMessage()]
    assert line.levelname == "WARNING" and "wrong shape at" in line.getMessage()
    assert not [r for r in caplog.records if r.exc_info or r.levelname == "ERROR"]
    await mention(server, channel, "still here")  # the connection and the bot carry on
    assert [m.text for m in await harness.transcript(harness.task_id(TEAM, channel))] == [
        "still here"
    ]


async def test_a_refused_app_token_stops_the_start_with_slacks_error(server, tmp_path):
    made = build_app(bot_settings(server, tmp_path), client=None)
    with pytest.raises(SlackRefused) as refused:
        async with socket_mode(made, "xapp-1-A0APP1-1-revoked"):
            pass
    assert refused.value.error == "invalid_auth"
    assert "revoked" not in str(refused.value) and "connections:write" in str(refused.value)
    assert server.connections == []
    await made.ledger.aclose()


async def test_python_m_bot_runs_socket_mode_without_a_signing_secret(
    server, settings, worker, tmp_path, channel
):
    process = await python_m_bot(server, settings, tmp_path)
    try:
        await server.connected(timeout=30)
        await mention(server, channel, 'call echo {"text": "from python -m bot"}')
        await until(
            lambda: any("echo: from python -m bot" in p["text"] for p in posts(server, channel)),
            what="reply",
        )
    finally:
        process.terminate()
        _, err = await asyncio.wait_for(process.communicate(), 20)
    log = err.decode()
    assert "Socket Mode (/slack/events not served: no SLACK_SIGNING_SECRET, none needed)" in log
    assert "Traceback" not in log and APP_TOKEN not in log and BOT_TOKEN not in log


async def test_sigterm_keeps_the_socket_until_the_envelope_in_flight_is_acked(
    server, settings, manager, worker, harness, tmp_path, channel
):
    ref = await harness.start_task(TaskSpec(title="t", owner=OWNER), team=TEAM, channel=channel)
    gate = Gate()  # holds every command in the worker until opened
    manager.register("command.invoked.pre", gate, priority=200)
    process = await python_m_bot(
        server, settings, tmp_path, BOT_ACK_BUDGET_SECONDS="2.5", BOT_SHUTDOWN_GRACE_SECONDS="10"
    )
    try:
        await server.connected(timeout=30)
        envelope = await server.push("slash_commands", slash("/effort", "high", channel=channel))
        await gate.until_held(1)  # the envelope is in flight: its listener waits for the task
        process.send_signal(signal.SIGTERM)
        await asyncio.sleep(0.3)
        late = await server.push("slash_commands", slash("/effort", "low", channel=channel))
        gate.open.set()
        acked = await server.ack(envelope)  # on the socket the bot kept open for it
        assert acked is not None
        # The reply itself, or (on a slow machine, past the 2.5 s budget) the promise of it.
        assert acked["text"] in {
            "effort set to `high` (was `medium`)",
            "working on `/effort high` …",
        }, acked
        _, err = await asyncio.wait_for(process.communicate(), 15)
    finally:
        if process.returncode is None:
            process.kill()
            await process.wait()
    log = err.decode()
    assert process.returncode == 0, log
    assert late not in server.acks  # taken while draining: left for Slack to deliver again
    assert "left unacked: shutting down" in log and "every reply owed was sent" in log, log
    assert (await harness.snapshot(ref.task_id)).effort == "high"


async def python_m_bot(server, settings, tmp_path, **extra: str) -> asyncio.subprocess.Process:
    """``python -m bot`` in Socket Mode as an operator configures it: no signing secret."""
    env = bot_env(
        tmp_path,
        BOT_LOCAL="",
        SLACK_APP_TOKEN=APP_TOKEN,
        SLACK_BOT_TOKEN=BOT_TOKEN,
        BOT_API_URL=server.api_url,
        HARNESS_TEMPORAL_ADDRESS=settings.temporal_address,
        HARNESS_TASK_QUEUE=settings.task_queue,
        **extra,
    )
    assert "SLACK_SIGNING_SECRET" not in env
    return await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "bot",
        cwd=ROOT,
        env=env,
        stdout=asyncio.subprocess.DEVNULL,
        stderr=asyncio.subprocess.PIPE,
    )


async def test_two_replicas_on_one_database_take_a_thread_and_a_retry_as_one_bot(
    server, harness, worker, tmp_path, channel, postgres
):
    """Slack spreads envelopes over the app's connections: one per replica (issue 13)."""
    url = database_url(postgres.create_database(f"sm_{uuid.uuid4().hex[:12]}"), tmp_path / "x")
    made = [build_app(bot_settings(server, tmp_path / name), harness, Ledger(url)) for name in "ab"]
    async with socket_mode(made[0], APP_TOKEN), socket_mode(made[1], APP_TOKEN):
        a, b = await server.connected(1), await server.connected(2)
        task_id = harness.task_id(TEAM, channel)
        mentioned = event("app_mention.json", channel=channel)
        assert await server.ack(await server.push("events_api", mentioned, on=a)) is None
        reply = event("message_in_thread.json", channel=channel, user=OWNER)
        assert await server.ack(await server.push("events_api", reply, on=b)) is None
        retried = await server.push(
            "events_api", mentioned, retry_attempt=1, retry_reason="timeout", on=b
        )
        assert await server.ack(retried) is None
        async with asyncio.timeout(15):
            while len(texts := [m.text for m in await harness.transcript(task_id)]) < 2:
                await asyncio.sleep(0.05)
        assert texts == [
            "please summarise yesterday's deploy failures",
            "also check the canary logs",
        ]
    for bot in made:
        await bot.slash.drain()
        await bot.ledger.aclose()
    started = [p for p in posts(server, channel) if p["text"].startswith("started a task")]
    assert len(started) == 1


async def test_with_bot_record_each_envelope_is_recorded_with_its_ack_and_no_token(
    server, harness, worker, tmp_path, channel
):
    from bot.recording import load

    path = tmp_path / "socket.jsonl"
    made = build_app(bot_settings(server, tmp_path, record=path), harness)
    async with socket_mode(made, APP_TOKEN):
        await server.connected()
        await mention(server, channel, "hello")
        command = await server.push("slash_commands", slash("/effort", "high", channel=channel))
        await server.ack(command)
    await made.slash.drain()
    await made.ledger.aclose()
    made.recorder.close()
    recording = load(path)
    assert not recording.header.local and "worker_web_api" not in recording.header.captures
    assert recording.header.bot_user_id == "UBOTLOCAL"  # as auth.test answered bolt
    [event, effort] = recording.requests
    assert (event.transport, event.envelope.type) == ("socket_mode", "events_api")
    assert effort.envelope.envelope_id == command and effort.envelope.payload["text"] == "high"
    assert effort.envelope.payload["token"] == "[REDACTED]"
    assert json.loads(effort.response.body)["text"] == "effort set to `high` (was `medium`)"
    assert BOT_TOKEN not in path.read_text() and APP_TOKEN not in path.read_text()
