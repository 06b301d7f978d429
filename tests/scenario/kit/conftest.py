"""The kit's stack for this package, configured as a user's conftest configures theirs.

``pytest_plugins = ["bot.testing.pytest_plugin"]`` is in the root conftest (the only place
pytest reads it); here the session's stack gets a hooks file, by overriding the options
fixture exactly as README's example does, and a bot that never answers a slash command in
its ack, so every reply the client reads is a late one, through the response URL (the
harder path; an answer in the ack is the bot's own tests' business). The stack records
(``BOT_RECORD``), so after each test that used it what it showed is scanned for internals,
as the bot tier's conftest does in process (:mod:`tests.support.thread_scan`, issue 26).
"""

from __future__ import annotations

import json
import urllib.request
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest

from bot.recording.format import line_of
from bot.standin import RECORDING_PATH
from bot.testing import StackOptions
from tests.support.thread_scan import line_leaks

HOOKS = Path(__file__).with_name("hooks.toml")


@pytest.fixture(scope="session")
def harness_stack_options(
    harness_stack_options: StackOptions, tmp_path_factory: pytest.TempPathFactory
) -> StackOptions:
    return replace(
        harness_stack_options,
        hooks_config=HOOKS,
        env={**harness_stack_options.env, "BOT_ACK_BUDGET_SECONDS": "0.001"},
        record=harness_stack_options.record or tmp_path_factory.mktemp("kit") / "session.jsonl",
    )


_READ: dict[str, int] = {}
"""The session stack's bot URL -> how far its recording was scanned."""


@pytest.fixture(autouse=True)
def no_internals_shown(request: pytest.FixtureRequest) -> Iterator[None]:
    """After a test that used the session's stack: what it recorded since the test before
    (answers, posts, response-URL replies) shows no internals."""
    yield
    if "harness_stack" not in request.fixturenames:
        return
    stack = request.getfixturevalue("harness_stack")
    start = _READ.get(stack.bot_base, 0)
    url = f"{stack.bot_base}{RECORDING_PATH}?from={start}"
    with urllib.request.urlopen(url, timeout=10) as response:  # our own stack
        answer = json.loads(response.read())
    _READ[stack.bot_base] = int(answer["next"])
    found = line_leaks(line_of(value, url) for value in answer["lines"])
    if found:
        pytest.fail("what Slack showed (issue 26):\n" + "\n".join(found))
