"""The scan over every post of the scenario suite (issue 26) finds what it looks for.

The conftest's autouse fixture runs :class:`ThreadScan` after every test of this folder;
these show it is not vacuous: each kind of internal is caught in a real stand-in's record
(posts, updates, response-URL replies, refusals) and in the bot's own answers (a slash
command's reply in its ack), and what a person may read is not.
"""

from __future__ import annotations

import json

import aiohttp
import pytest

from bot.standin import RESPONSE_PATH, served
from harness.domain import TaskSpec
from tests.support.thread_scan import ThreadScan, leaks, shown

from .conftest import TEAM

CAUGHT = [
    pytest.param(
        "failed: HookTransportError: POST failed: Connect call failed ('127.0.0.1', 9)",
        {"an exception class: HookTransportError", "socket text: Connect call failed"},
        id="transport",
    ),
    pytest.param("vetoed at tool.invoked.pre", {"a hook point: tool.invoked.pre"}, id="point"),
    pytest.param(
        "refused: no open question help-task/TLOCAL/CLOCAL-190 in this task",
        {"a workflow or question id: help-task/TLOCAL/CLOCAL-190"},
        id="question-id",
    ),
    pytest.param(
        "Cannot connect to host h:443 ssl:default [Errno 111]",
        {"socket text: Cannot connect to host", "socket text: ssl:default", "socket text: [Errno"},
        id="aiohttp",
    ),
    pytest.param(
        "started task `task/T0TEAM1/C0CHAN1`; reply in this thread",
        {"a workflow or question id: task/T0TEAM1/C0CHAN1"},
        id="task-id",
    ),
    pytest.param("it raised ValueError", {"an exception class: ValueError"}, id="python-class"),
]


@pytest.mark.parametrize(("text", "kinds"), CAUGHT)
def test_each_kind_of_internal_is_caught(text, kinds):
    assert kinds <= set(leaks(text)), leaks(text)


@pytest.mark.parametrize(
    "text",
    [
        "the hook service `policy-gate` could not be reached; retrying, 2 of 4",
        "started a task for this channel; reply in this thread to talk to it.",
        "a ReviewError is no class of ours; tool.invoked is no point without its phase",
    ],
)
def test_what_a_person_may_read_is_not_caught(text):
    assert leaks(text) == []


def test_the_status_views_link_to_the_workflow_is_its_one_place_for_an_id():
    link = "workflow: <http://127.0.0.1:8233/namespaces/default/workflows/task%2FT%2FC|task/T/C>"
    assert leaks(f"*t* — idle\n{link} (Temporal UI)") == []
    assert leaks(f"see {link}") != []  # elsewhere, the same text is caught


def test_only_what_a_person_sees_is_read_of_blocks():
    blocks = [
        {"type": "section", "block_id": "help-task/T/C-1", "text": {"type": "mrkdwn", "text": "q"}},
        {"type": "actions", "elements": [{"type": "button", "value": "task/T/C", "text": {}}]},
    ]
    assert list(shown({"text": "t", "blocks": blocks})) == ["t", "q"]


async def test_a_stand_ins_posts_updates_replies_and_refusals_are_read_once():
    scan = ThreadScan()
    async with served() as standin, aiohttp.ClientSession() as session:
        scan.watch(standin)
        base = standin.url.split("/_local/", 1)[0]
        leaky = {"channel": "C1", "text": "failed: KeyError at tool.invoked.pre"}
        async with session.post(standin.url + "chat.postMessage", json=leaky) as response:
            ts = (await response.json())["ts"]
        update = {"channel": "C1", "ts": ts, "text": "x", "blocks": [{"type": "section"}] * 51}
        async with session.post(standin.url + "chat.update", json=update) as response:
            assert (await response.json())["error"] == "invalid_blocks"
        async with session.post(f"{base}{RESPONSE_PATH}k", json={"text": "at 127.0.0.1:80"}):
            pass
        found = scan.problems()
        assert scan.problems() == []
    assert len(found) == 4, found
    assert any(p.startswith("chat.postMessage in C1: an exception class: KeyError") for p in found)
    assert any(p.startswith("chat.postMessage in C1: a hook point") for p in found)
    assert any(p.startswith("chat.update refused by Slack (invalid_blocks)") for p in found)
    assert any(p.startswith("response k: socket text: 127.0.0.1:") for p in found)


def test_the_bots_own_answers_are_read_once_json_or_not():
    scan = ThreadScan()
    scan.answered("/task status", json.dumps({"text": "• sub-task 1 — running (`task/T/C/sub-1`)"}))
    scan.answered("an event", "")
    scan.answered("/task x", "raised KeyError")
    found = scan.problems()
    assert scan.problems() == []
    assert found == [
        "answer to /task status: a workflow or question id: task/T/C in "
        "'• sub-task 1 — running (`task/T/C/sub-1`)'",
        "answer to /task x: an exception class: KeyError in 'raised KeyError'",
    ]


async def test_a_slash_commands_reply_in_its_ack_is_scanned(
    slack, harness, no_internals_in_threads
):
    """Through the real bot: an ack's reply that shows internals is found (here a usage reply
    quoting what was typed), named by its command; nothing is left for the after-test scan."""
    channel = "C0SCANACK"
    await harness.start_task(
        TaskSpec(title="scan", owner="U0OWNER", model="offline"), team=TEAM, channel=channel
    )
    status, reply = await slack.slash("/task", "status KeyError", user="U0OWNER", channel=channel)
    assert status == 200 and "KeyError" in reply, reply
    found = no_internals_in_threads.problems()
    assert any(
        p.startswith("answer to /task status KeyError: an exception class: KeyError") for p in found
    ), found
