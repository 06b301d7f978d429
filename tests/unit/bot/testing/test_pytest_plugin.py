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
