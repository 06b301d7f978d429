"""Two of issue 26's seams, through the real bot, worker and dev server.

A tool call whose arguments break the schema offered to the model is not run: the model
(and so the thread) reads what is wrong. Bare ``/task skill`` lists the skills the worker
finds, with their descriptions: before, nothing listed them.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from harness.config import Settings
from harness.domain import TaskStatus

from .conftest import posting_to, serve_bot
from .threads import Thread

ROOT = Path(__file__).resolve().parents[3]


@pytest.fixture
def settings(settings: Settings, bot_port) -> Settings:
    """The worker posts to this test's bot stand-in and finds the repository's skills."""
    posting = posting_to(settings, bot_port)
    return posting.model_copy(update={"skills_dir": ROOT / "skills"})


@pytest.fixture
async def slack(harness, tmp_path, bot_port, worker):
    async for sender in serve_bot(harness, tmp_path, port=bot_port):
        yield sender


async def test_a_tool_call_outside_its_schema_is_answered_with_what_is_wrong_and_not_run(
    slack, harness
):
    thread = Thread(slack, harness)
    await thread.start('call calculator {"expression": "6*7", "precision": 3}')
    answer = await thread.until_posted("calculator")
    assert "42" not in answer, answer  # the tool did not run
    assert "precision" in answer, answer  # the model reads which argument is wrong
    assert (await harness.snapshot(thread.task_id)).status != TaskStatus.FAILED

    await thread.say('call calculator {"expression": "6*7"}')
    assert "calculator: 42" in await thread.until_posted("calculator: 42")


async def test_a_bare_task_skill_lists_the_skills_with_their_descriptions(slack, harness):
    thread = Thread(slack, harness)
    await thread.start("hello")
    await thread.until_posted("(offline) hello")
    listed = await thread.slash("/task skill")
    assert "arithmetic" in listed, listed
    assert "Do arithmetic with the calculator tool" in listed, listed
