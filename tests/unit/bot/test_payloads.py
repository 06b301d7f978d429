"""Pure Slack payload -> harness value translation."""

from __future__ import annotations

import json
from pathlib import Path
from urllib.parse import parse_qsl

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bot.actions import help_click
from bot.markup import plain_text
from bot.payloads import (
    EventKind,
    classify,
    command_context,
    dedupe_keys,
    event_place,
    mentions,
    obj,
    request_context,
    slash_command,
    slash_place,
    strip_mention,
)

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "slack"
JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=12),
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.dictionaries(
            st.sampled_from(
                [
                    "event",
                    "text",
                    "user",
                    "ts",
                    "team",
                    "team_id",
                    "actions",
                    "id",
                    "channel",
                    "thread_ts",
                    "subtype",
                    "event_id",
                    "command",
                ]
            )
            | st.text(max_size=4),
            inner,
            max_size=4,
        )
    ),
    max_leaves=16,
)


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


def test_command_context_leaves_the_response_url_out():
    body = dict(parse_qsl((FIXTURES / "slash_command.txt").read_text().strip()))
    ctx = command_context(body, task_id="task/T0TEAM1/C0CHAN1")
    assert dict(ctx.entities) == {}
    assert "hooks.slack.com" not in ctx.model_dump_json()


# --- Slack text in, plain text out (issue 9) ------------------------------------------


@pytest.mark.parametrize(
    ("slack", "plain"),
    [
        ("fish &amp; chips", "fish & chips"),
        ("use &lt;b&gt; for bold", "use <b> for bold"),
        ("&amp;lt; stays an entity", "&lt; stays an entity"),  # one pass, not two
        ("&lt;@U1&gt; typed by hand", "<@U1> typed by hand"),  # text, not a mention
        ("ask <@U2> or <@U3|bob>", "ask <@U2> or <@U3|bob>"),  # mentions kept as is
        ("in <#C1|general> and <#C2>", "in <#C1|general> and <#C2>"),  # channels kept too
        (
            "see <https://x.example/a?b=1&amp;c=2|the docs>",
            "see the docs (https://x.example/a?b=1&c=2)",
        ),
        ("see <https://x.example/>", "see https://x.example/"),
        ("<https://x.example|https://x.example>", "https://x.example"),
        ("mail <mailto:a@b.example|a@b.example>", "mail a@b.example (mailto:a@b.example)"),
        ("<!here> and <!channel> and <!everyone>", "@here and @channel and @everyone"),
        ("<!subteam^S1|@ops> look", "@ops look"),
        ("<!date^1700000000^{date}|Nov 14> ok", "Nov 14 ok"),
        ("a < b &gt; c", "a < b > c"),  # a bare < is not markup
        ("&quot;as is&quot;", "&quot;as is&quot;"),  # Slack escapes only three
    ],
)
def test_slack_markup_becomes_plain_text(slack, plain):
    assert plain_text(slack) == plain


@pytest.mark.parametrize(
    ("text", "stripped"),
    [
        ("<@UBOT> fix it", "fix it"),
        ("<@UBOT|bot>   fix it  ", "fix it"),
        ("please <@UBOT> fix it", "please fix it"),
        ("fix it <@UBOT>", "fix it"),
        ("<@UBOT> first line\nsecond line", "first line\nsecond line"),
        ("<@UBOT>\n\n  indented\n\tand tabbed", "  indented\n\tand tabbed"),
        ("one\n<@UBOT> two\nthree", "one\ntwo\nthree"),
        ("keep  <@U2>  spaces", "keep  <@U2>  spaces"),  # other mentions untouched
    ],
)
def test_mention_stripping_keeps_line_breaks(text, stripped):
    assert strip_mention(text, "UBOT") == stripped


def test_a_mentions_text_reaches_the_task_as_plain_text_with_its_lines():
    body = load("app_mention.json")
    body["event"]["text"] = "<@UBOTLOCAL> fish &amp; chips\nthen &lt;b&gt;bold&lt;/b&gt; <@U2>"
    ctx = request_context(body, bot_user_id="UBOTLOCAL", task_id="t")
    assert ctx.text == "fish & chips\nthen <b>bold</b> <@U2>"


def test_a_typed_mention_of_the_bot_is_neither_stripped_nor_a_mention():
    event = {"text": "&lt;@UBOTLOCAL&gt; hi", "user": "U1"}
    assert not mentions(event, "UBOTLOCAL")
    ctx = request_context({"event": event}, bot_user_id="UBOTLOCAL", task_id="t")
    assert ctx.text == "<@UBOTLOCAL> hi"


def test_command_arguments_are_plain_text_and_keep_mentions():
    body = {"command": "/task", "text": " invite <@U2|w> watcher &amp; more ", "user_id": "U1"}
    ctx = command_context(body, task_id="t")
    assert (ctx.command, ctx.args) == ("invite", "<@U2|w> watcher & more")


def test_the_umbrella_names_the_command_and_alone_is_help():
    assert slash_command({"command": "/task", "text": "status"}) == ("status", "")
    assert slash_command({"command": "/task", "text": ""}) == ("help", "")
    assert slash_command({"command": "/model", "text": "x"}) == ("model", "x")
    assert slash_command({"command": "/status", "text": ""}) is None
    assert slash_command({"command": "/task", "text": "teleport"}) is None
    # Unresolved, the context keeps what was typed (the task answers "unknown command").
    assert command_context({"command": "/status"}, task_id="t").command == "status"


# --- any JSON in, never an exception (issue 9) ------------------------------------------


@given(JSON)
def test_every_payload_function_takes_any_json(value):
    body = (
        value
        if isinstance(value, dict)
        else {"event": value, "actions": value, "team": value, "text": value}
    )
    for make in (
        lambda: command_context(body, task_id="t"),
        lambda: dedupe_keys(body),
        lambda: request_context(body, bot_user_id="UBOT", task_id="t"),
        lambda: event_place(body),
        lambda: slash_place(body),
        lambda: help_click(body),
        lambda: slash_command(body),
        lambda: classify(obj(body.get("event"))),
        lambda: mentions(obj(body.get("event")), "UBOT"),
    ):
        make()
