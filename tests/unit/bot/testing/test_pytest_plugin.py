"""The kit's pytest plugin in a user's project: a pytest of its own, in a directory of its own.

The project (pytester's, run in this process: a subprocess would cost seconds of
imports) opts in from its root conftest, uses pytest-asyncio's default strict mode and
turns warnings into errors; its options come from the ini file, the command line (which
wins) or a conftest that overrides ``harness_stack_options``. No stack is started here:
the options are what is checked (the stack itself: ``tests/scenario/kit``).
"""

from __future__ import annotations

import pytest

INI = """\
[pytest]
asyncio_mode = strict
asyncio_default_fixture_loop_scope = function
filterwarnings = error
harness_hooks_config = hooks/ours.toml
harness_plugins =
    commands:plugin
    mine:plugin
harness_env =
    HARNESS_PROGRESS=off
    HARNESS_MODELS = ["offline"]
"""
TESTS = """\
from pathlib import Path
import os
import pytest

def test_the_options(harness_stack_options):
    o = harness_stack_options
    assert o.hooks_config == Path(os.environ["EXPECT_HOOKS"])
    assert o.record == (Path(os.environ["EXPECT_RECORD"]) if os.environ["EXPECT_RECORD"] else None)
    assert tuple(o.plugins) == ("commands:plugin", "mine:plugin")
    assert dict(o.env) == {"HARNESS_PROGRESS": "off", "HARNESS_MODELS": '["offline"]'}

@pytest.mark.asyncio
async def test_an_async_test_runs_in_strict_mode():
    assert True
"""
OVERRIDE = """\
from dataclasses import replace
import pytest
from bot.testing import StackOptions

@pytest.fixture(scope="session")
def harness_stack_options(harness_stack_options: StackOptions) -> StackOptions:
    return replace(harness_stack_options, plugins=["commands:plugin"], env={"X": "1"})
"""
OVERRIDDEN = """\
def test_a_conftest_overrides_the_options(harness_stack_options):
    assert (harness_stack_options.plugins, harness_stack_options.env) == (["commands:plugin"],
                                                                          {"X": "1"})
"""


def project(pytester: pytest.Pytester) -> None:
    pytester.makeini(INI)
    pytester.makeconftest('pytest_plugins = ["bot.testing.pytest_plugin"]\n')
    pytester.makepyfile(test_options=TESTS)
    pytester.mkpydir("sub")
    pytester.makepyfile(**{"sub/conftest": OVERRIDE, "sub/test_overridden": OVERRIDDEN})


def test_options_come_from_the_ini_file_the_command_line_and_a_conftest(pytester, monkeypatch):
    project(pytester)
    monkeypatch.setenv("EXPECT_HOOKS", str(pytester.path / "hooks" / "ours.toml"))
    monkeypatch.setenv("EXPECT_RECORD", "")
    pytester.runpytest("-p", "no:cacheprovider").assert_outcomes(passed=3)

    monkeypatch.setenv("EXPECT_HOOKS", "other.toml")
    monkeypatch.setenv("EXPECT_RECORD", "traffic.jsonl")
    pytester.runpytest(
        "-p",
        "no:cacheprovider",
        "--harness-hooks-config",
        "other.toml",
        "--harness-record",
        "traffic.jsonl",
    ).assert_outcomes(passed=3)


def test_the_options_are_listed_in_pytest_help(pytester):
    project(pytester)
    listed = pytester.runpytest("--help").stdout.str()
    assert "tiny-harness testing kit (bot.testing):" in listed
    assert "--harness-hooks-config=FILE" in listed
    assert "harness_env (linelist):" in listed


BLANK_STACK = """\
from pathlib import Path
import pytest
from bot.testing import Stack

pytest_plugins = ["bot.testing.pytest_plugin"]

@pytest.fixture(scope="session")
def harness_stack(tmp_path_factory):  # no processes: the clients below send nothing
    return Stack(
        temporal_address="127.0.0.1:1", task_queue="q", bot_url="http://127.0.0.1:2/slack/events",
        signing_secret="s", bot_user="UBOTLOCAL", payload_key="k",
        worker_health_url="http://127.0.0.1:3/readyz", data_dir=tmp_path_factory.mktemp("d"),
        env={},
    )
"""
CONVERSATIONS = """\
from bot.testing import SlackClient, new_channel

SEEN = []

def test_another_person_joins_the_tests_channel(harness_slack, harness_stack):
    other = SlackClient.of(harness_stack, user="U2")
    assert other.channel == harness_slack.channel == harness_slack.as_user("U3").channel
    assert (other.user, harness_slack.as_user("U3").user) == ("U2", "U3")
    assert SlackClient.of(harness_stack, channel=new_channel()).channel != other.channel
    SEEN.append(harness_slack.channel)

def test_clients_of_a_test_without_the_fixture_share_a_fresh_channel(harness_stack):
    alone = SlackClient.of(harness_stack)
    assert alone.channel not in SEEN
    assert SlackClient.of(harness_stack, user="U2").channel == alone.channel
    SEEN.append(alone.channel)

def test_no_test_joins_an_earlier_tests_channel(harness_stack):
    assert SlackClient.of(harness_stack).channel not in SEEN
"""


def test_the_clients_of_one_test_share_its_channel_and_no_later_test_joins_it(pytester):
    pytester.makeini(INI)
    pytester.makeconftest(BLANK_STACK)
    pytester.makepyfile(test_conversations=CONVERSATIONS)
    pytester.runpytest("-p", "no:cacheprovider").assert_outcomes(passed=3)
