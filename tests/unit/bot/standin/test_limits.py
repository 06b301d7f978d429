"""The stand-in refuses what Slack refuses (issue 26), over real HTTP as the worker calls it.

Each limit is tried at its edge: the largest message Slack takes is taken, one character
(or block, or element) more is answered ``invalid_blocks`` / ``msg_too_long`` exactly as
Slack answers, is kept in ``refused`` and never in ``calls``; a refused ``chat.update``
leaves the message as it was, and the worker's :class:`SlackChannel` reads Slack's word.
"""

from __future__ import annotations

import json

import aiohttp
import pytest

from bot.standin import RESPONSE_PATH, served
from harness.channels import SlackChannel
from harness.channels.slack import ChannelError
from harness.channels.slack_limits import (
    MAX_BLOCKS,
    MAX_BUTTON_TEXT,
    MAX_CONTEXT_ELEMENTS,
    MAX_HEADER,
    MAX_ID,
    MAX_TEXT,
    MAX_TEXT_OBJECT,
    MAX_VALUE,
)
from harness.domain import ChannelMessage
from harness.http import AiohttpClient


def section(size: int) -> dict:
    return {"type": "section", "text": {"type": "mrkdwn", "text": "x" * size}}


def button(**changes) -> dict:
    element = {
        "type": "button",
        "text": {"type": "plain_text", "text": "Stop"},
        "action_id": "task:stop",
        "value": "v",
    }
    return {"type": "actions", "elements": [element | changes]}


def context(count: int) -> dict:
    return {"type": "context", "elements": [{"type": "mrkdwn", "text": "c"}] * count}


def header(size: int) -> dict:
    return {"type": "header", "text": {"type": "plain_text", "text": "h" * size}}


EDGES = [
    pytest.param([section(MAX_TEXT_OBJECT)], [section(MAX_TEXT_OBJECT + 1)], id="section-text"),
    pytest.param([header(MAX_HEADER)], [header(MAX_HEADER + 1)], id="header"),
    pytest.param([section(1)] * MAX_BLOCKS, [section(1)] * (MAX_BLOCKS + 1), id="blocks"),
    pytest.param(
        [context(MAX_CONTEXT_ELEMENTS)], [context(MAX_CONTEXT_ELEMENTS + 1)], id="context"
    ),
    pytest.param(
        [button(text={"type": "plain_text", "text": "b" * MAX_BUTTON_TEXT})],
        [button(text={"type": "plain_text", "text": "b" * (MAX_BUTTON_TEXT + 1)})],
        id="button-text",
    ),
    pytest.param(
        [button(action_id="a" * MAX_ID)], [button(action_id="a" * (MAX_ID + 1))], id="action-id"
    ),
    pytest.param(
        [button(value="v" * MAX_VALUE)], [button(value="v" * (MAX_VALUE + 1))], id="value"
    ),
    pytest.param(
        [section(1) | {"block_id": "b" * MAX_ID}],
        [section(1) | {"block_id": "b" * (MAX_ID + 1)}],
        id="block-id",
    ),
]


@pytest.fixture
async def standin():
    async with served() as found:
        yield found


async def call(standin, method: str, args: dict, *, form: bool = False) -> dict:
    async with aiohttp.ClientSession() as session:
        if form:
            fields = {k: v if isinstance(v, str) else json.dumps(v) for k, v in args.items()}
            sent = session.post(standin.url + method, data=fields)
        else:
            sent = session.post(standin.url + method, json=args)
        async with sent as response:
            return await response.json()


@pytest.mark.parametrize(("taken", "refused"), EDGES)
async def test_slack_takes_a_limit_and_refuses_one_more(standin, taken, refused):
    ok = await call(standin, "chat.postMessage", {"channel": "C1", "text": "t", "blocks": taken})
    assert ok["ok"] is True
    no = await call(standin, "chat.postMessage", {"channel": "C1", "text": "t", "blocks": refused})
    assert no["ok"] is False and no["error"] == "invalid_blocks"
    [message] = no["response_metadata"]["messages"]
    assert message.startswith("[ERROR] ") and "[json-pointer:/blocks" in message
    assert [m for m, *_ in standin.refused] == ["chat.postMessage"]
    assert len([m for m, _ in standin.calls if m == "chat.postMessage"]) == 1


async def test_text_over_forty_thousand_characters_is_msg_too_long(standin):
    for method in ("chat.postMessage", "chat.postEphemeral"):
        ok = await call(standin, method, {"channel": "C1", "user": "U1", "text": "x" * MAX_TEXT})
        assert ok["ok"] is True
        no = await call(standin, method, {"channel": "C1", "user": "U1", "text": "x" * 40_001})
        assert no == {"ok": False, "error": "msg_too_long"}


async def test_form_encoded_blocks_are_read_as_json_and_bad_json_is_a_format_error(standin):
    too_long = {"channel": "C1", "text": "t", "blocks": [section(MAX_TEXT_OBJECT + 1)]}
    assert (await call(standin, "chat.postMessage", too_long, form=True))["error"] == (
        "invalid_blocks"
    )
    broken = {"channel": "C1", "text": "t", "blocks": "[{"}
    assert await call(standin, "chat.postMessage", broken, form=True) == {
        "ok": False,
        "error": "invalid_blocks_format",
    }


async def test_a_refused_update_leaves_the_message_as_it_was(standin):
    posted = await call(standin, "chat.postMessage", {"channel": "C1", "text": "before"})
    no = await call(
        standin,
        "chat.update",
        {"channel": "C1", "ts": posted["ts"], "text": "after", "blocks": [section(3001)]},
    )
    assert no["error"] == "invalid_blocks"
    [kept] = [m for m in standin.messages if m["ts"] == posted["ts"]]
    assert kept["text"] == "before" and "edits" not in kept


async def test_a_response_url_refuses_the_same_blocks_with_http_400(standin):
    base = standin.url.split("/_local/", 1)[0]
    async with aiohttp.ClientSession() as session:
        url = f"{base}{RESPONSE_PATH}k1"
        async with session.post(url, json={"text": "t", "blocks": [section(3001)]}) as response:
            assert (response.status, await response.text()) == (400, "invalid_blocks")
        async with session.get(url) as response:
            assert await response.json() == []


async def test_the_worker_reads_slacks_word_for_a_refused_post(standin):
    http = AiohttpClient()
    try:
        channel = SlackChannel(http=http, api_url=standin.url, token="xoxb-test")
        message = ChannelMessage(channel="C1", thread="", text="t", blocks=(section(3001),))
        with pytest.raises(ChannelError) as raised:
            await channel.post(message, idempotency_key="k", maybe_posted=False)
        assert raised.value.code == "invalid_blocks"
    finally:
        await http.aclose()
