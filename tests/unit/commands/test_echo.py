"""Echoed text is neutral (issue 10): what a command repeats from its argument pings nobody."""

from __future__ import annotations

import re

import pytest

from bot import replies
from harness.domain import TaskSnapshot
from harness.replies.neutral import neutral
from tests.unit.commands.running import run_command

from .conftest import SNAPSHOT

PINGS = ("<!channel>", "<!here>", "<@UOWNER>", "<!subteam^S1|@ops>")
_LIVE = re.compile(r"<[!@#][^>]*>")  # what Slack would turn into a mention


def live_mentions(text: str) -> list[str]:
    return _LIVE.findall(text)


@pytest.mark.parametrize("ping", PINGS)
@pytest.mark.parametrize(
    ("command", "args"),
    [
        ("model", "{ping}"),
        ("invite", "{ping} watcher"),
        ("skill", "load {ping}"),
        ("sub-task", "tell {ping} about it"),
        ("effort", "{ping}"),
    ],
    ids=["model", "invite", "skill", "sub-task", "effort"],
)
async def test_a_reply_quoting_the_argument_holds_no_live_mention(
    manager, ctx, ping, command, args
):
    result = await run_command(manager, ctx(command, args.format(ping=ping)))
    if command == "invite" and ping.startswith("<@"):
        # A real mention is what /invite takes: naming that person is the reply's point.
        assert live_mentions(result.reply) == [ping]
        return
    assert live_mentions(result.reply) == [], result.reply
    escaped = ping.replace("<", "&lt;").replace(">", "&gt;")
    if command in ("model", "invite", "sub-task"):  # these quote it: shown as typed
        assert escaped in result.reply


async def test_titles_in_status_are_shown_as_typed(manager, ctx):
    snapshot = SNAPSHOT.model_copy(update={"title": "ping <!channel> & <@UOWNER>"})
    result = await run_command(manager, ctx("status", snapshot=snapshot))
    first = result.reply.splitlines()[0]
    assert first.startswith("*ping &lt;!channel&gt; &amp; &lt;@UOWNER&gt;*")
    # The people line mentions participants on purpose: that is the harness's own text.
    assert "<@UOWNER> (owner)" in result.reply
    assert isinstance(snapshot, TaskSnapshot)


@pytest.mark.parametrize("ping", PINGS)
def test_the_working_on_note_pings_nobody(ping):
    assert live_mentions(replies.working("model", ping)) == []


def test_neutral_escapes_exactly_what_slack_asks():
    assert neutral("a & b <c> d") == "a &amp; b &lt;c&gt; d"
    assert neutral("plain text") == "plain text"
