"""Pure Slack payload -> harness value translation."""

from __future__ import annotations

import json
from pathlib import Path
from urllib.parse import parse_qsl

from bot.payloads import EventKind, classify, command_context, dedupe_keys, request_context

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "slack"


def load(name):
    return json.loads((FIXTURES / name).read_text())


def test_slash_command_becomes_command_context_without_trusting_a_role():
    body = dict(parse_qsl((FIXTURES / "slash_command.txt").read_text().strip()))
    ctx = command_context(body, task_id="task/T0TEAM1/C0CHAN1")
    assert (ctx.command, ctx.args, ctx.sender, ctx.role) == ("model", "gpt-x", "U0OWNER", "none")
    assert (ctx.task.team, ctx.task.channel, ctx.task.thread) == ("T0TEAM1", "C0CHAN1", "")
    assert ctx.correlation_id == "slash/13345224609.738474920.8088930838d88f008e0"


def test_mention_and_its_message_twin_share_a_dedupe_key():
    mention = dedupe_keys(load("app_mention.json"))
    message = dedupe_keys(load("message_with_mention.json"))
    assert mention[0] != message[0]
    assert mention[1] == message[1] == "message:T0TEAM1/C0CHAN1/1700000100.000100"


def test_event_kinds():
    assert classify(load("app_mention.json")["event"]) is EventKind.USER
    assert classify(load("message_changed.json")["event"]) is EventKind.EDIT
    assert classify(load("bot_message_in_thread.json")["event"]) is EventKind.BOT
    assert classify({"type": "message", "subtype": "channel_join", "user": "U1"}) is EventKind.OTHER


def test_request_context_strips_the_bot_mention_and_keeps_the_thread():
    ctx = request_context(load("message_in_thread.json"), bot_user_id="UBOTLOCAL", task_id="t")
    assert (ctx.text, ctx.sender, ctx.thread) == (
        "also check the canary logs",
        "U0COLLAB",
        "1700000100.000100",
    )
    mention = request_context(load("app_mention.json"), bot_user_id="UBOTLOCAL", task_id="t")
    assert mention.text == "please summarise yesterday's deploy failures"
    assert mention.thread == "1700000100.000100"
