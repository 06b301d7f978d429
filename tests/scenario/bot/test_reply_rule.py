"""Issue 25's reply rule end to end: a hook service that is down reads as words in Slack.

Real bot, real worker, real dev server; the hooks file names a JSON-RPC executor,
``policy-gate``, on ``tool.invoked.pre`` and ``command.invoked.pre`` at a loopback port
nobody listens on. A message whose tool call needs it, and a slash command, both fail;
what the thread and the sender read says which service could not be reached and what to
do, and holds no exception class, no address, no hook point and no internal id (those
stay in the logs and the status view's detail).
"""

from __future__ import annotations

import re

import pytest

from harness.config import Settings

from .conftest import free_port, posting_to, serve_bot
from .threads import Thread

DOWN = "the hook service `policy-gate` could not be reached"
LEAKS = re.compile(
    r"127\.0\.0\.1|localhost|Error\b|Exception|Connect call|ssl:|"
    r"\b(tool|command)\.invoked\b|\.pre\b|task/|help-|gave up"
)


@pytest.fixture
def settings(settings: Settings, bot_port, tmp_path) -> Settings:
    hooks = tmp_path / "hooks.toml"
    hooks.write_text(
        "[[executor]]\n"
        'name = "policy-gate"\n'
        'kind = "jsonrpc"\n'
        'points = ["tool.invoked.pre", "command.invoked.pre"]\n'
        f'url = "http://127.0.0.1:{free_port()}/rpc"\n'
        "timeout = 1.0\n"
    )
    return posting_to(settings, bot_port, hooks_config=hooks)


@pytest.fixture
async def slack(harness, tmp_path, bot_port, worker):
    async for sender in serve_bot(harness, tmp_path, port=bot_port):
        yield sender


async def test_a_down_hook_service_is_said_in_words_without_internals(slack, harness):
    thread = Thread(slack, harness)
    await thread.start('call echo {"text": "hi"}')
    failed = await thread.until_posted(f"failed: {DOWN}")  # after its retries are said (issue 26)
    assert failed == f"failed: {DOWN} (tried 4 times); try again in a minute"
    reply = await thread.slash("/effort high")
    assert f"/effort failed: {DOWN}; try again in a minute" in reply
    # The task's id names the task on purpose in the bot's start notice only (left as it
    # is: people use it); nothing else in the thread carries it, nor any other internal.
    said = [t for t in [*thread.posts(), reply] if not t.startswith("started a task ")]
    assert failed in said and len(said) >= 2
    assert [t for t in said if LEAKS.search(t) or thread.task_id in t] == []
    # The detail is kept where operators look: the status view's last error is the same
    # sentence, and the task is still running (one request failed, not the task).
    snapshot = await harness.snapshot(thread.task_id)
    assert snapshot.last_error == failed and snapshot.status == "running"
