"""pytest fixtures of the testing kit: one real stack per session, a Slack client per test.

Opt in from the conftest.py at the root of your tests (pytest reads ``pytest_plugins``
only there)::

    pytest_plugins = ["bot.testing.pytest_plugin"]

and import nothing from this module yourself (:class:`~bot.testing.StackOptions` is in
``bot.testing``): pytest warns about a plugin module imported before it registers it.

Fixtures: ``harness_stack_options`` (session; override it to choose the hooks file,
plugins, environment), ``harness_stack`` (session: :class:`~bot.testing.stack.Stack`,
started on first use) and ``harness_slack`` (per test: a
:class:`~bot.testing.slack.SlackClient` in a channel of its own, so each test has its own
task; another person of the test, ``harness_slack.as_user("U2")`` or
``SlackClient.of(harness_stack, user="U2")``, talks in the same channel). Without code,
the ini options ``harness_hooks_config``, ``harness_plugins`` and ``harness_env`` and the
command-line options ``--harness-hooks-config`` and ``--harness-record`` (which win over
the ini file) set the same. Every fixture is synchronous and the client opens its
connections per call, so the kit works under pytest-asyncio (which async tests need:
``pip install 'tiny-harness[testing]'``) in strict or auto mode and with any loop scope.
Not loaded automatically on install (no ``pytest11`` entry point): a project's own tests
decide.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from bot.testing.slack import SlackClient, end_conversations, new_conversation
from bot.testing.stack import DEFAULT_PLUGINS, Stack, StackOptions, running_stack

__all__ = [
    "harness_conversation",
    "harness_slack",
    "harness_stack",
    "harness_stack_options",
    "pytest_addoption",
]


def pytest_addoption(parser: pytest.Parser) -> None:
    """The kit's command-line and ini options (``pytest --help`` lists them)."""
    group = parser.getgroup("tiny-harness", "tiny-harness testing kit (bot.testing)")
    group.addoption(
        "--harness-hooks-config",
        metavar="FILE",
        default=None,
        help="the worker's hooks file for the session's stack "
        "(HARNESS_HOOKS_CONFIG); wins over the ini option",
    )
    group.addoption(
        "--harness-record",
        metavar="FILE",
        default=None,
        help="record the bot's traffic to FILE (BOT_RECORD)",
    )
    parser.addini(
        "harness_hooks_config",
        "the worker's hooks file for the session's stack, relative to the ini file",
        default="",
    )
    parser.addini(
        "harness_plugins",
        "the worker's code plugins, one module:function a line",
        type="linelist",
        default=list(DEFAULT_PLUGINS),
    )
    parser.addini(
        "harness_env",
        "more environment for the stack, one NAME=value a line",
        type="linelist",
        default=[],
    )


@pytest.fixture(scope="session")
def harness_stack_options(pytestconfig: pytest.Config) -> StackOptions:
    """The stack's options from the command line and the ini file; override to set them in code.

    Raises:
        pytest.UsageError: an ``harness_env`` line is not ``NAME=value``.
    """
    here = pytestconfig.inipath.parent if pytestconfig.inipath else pytestconfig.rootpath
    given = pytestconfig.getoption("harness_hooks_config")
    ini = str(pytestconfig.getini("harness_hooks_config"))
    hooks = Path(given) if given else (here / ini if ini else None)
    record = pytestconfig.getoption("harness_record")
    env = {}
    for line in pytestconfig.getini("harness_env"):
        name, equals, value = str(line).partition("=")
        if not equals or not name.strip():
            raise pytest.UsageError(f"harness_env takes NAME=value lines, not {line!r}")
        env[name.strip()] = value.strip()
    plugins = tuple(str(p) for p in pytestconfig.getini("harness_plugins"))
    return StackOptions(
        hooks_config=hooks, plugins=plugins, env=env, record=Path(record) if record else None
    )


@pytest.fixture(scope="session")
def harness_stack(
    harness_stack_options: StackOptions, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Stack]:
    """The dev server, worker and bot of the session, started on first use, stopped at its end.

    Its data and logs stay in pytest's temporary directory (``harness-stack*``) after the
    session, for a look when a test failed; a start that fails names the process and shows
    the end of its log.
    """
    options = harness_stack_options
    with running_stack(
        env=options.env,
        hooks_config=options.hooks_config,
        plugins=options.plugins,
        record=options.record,
        ready_timeout=options.ready_timeout,
        data_dir=tmp_path_factory.mktemp("harness-stack"),
    ) as stack:
        yield stack


@pytest.fixture
def harness_slack(harness_stack: Stack) -> SlackClient:
    """A client of the session's bot in a fresh channel: this test's own task, which every
    other client of the test (``SlackClient.of(harness_stack, user=…)``) joins."""
    new_conversation(harness_stack)
    return SlackClient.of(harness_stack)


@pytest.fixture(autouse=True)
def harness_conversation() -> Iterator[None]:
    """After each test, forget its channel: the next test's clients never join its task."""
    yield
    end_conversations()
