"""The kit's stack for this package, configured as a user's conftest configures theirs.

``pytest_plugins = ["bot.testing.pytest_plugin"]`` is in the root conftest (the only place
pytest reads it); here the session's stack gets a hooks file, by overriding the options
fixture exactly as README's example does, and a bot that never answers a slash command in
its ack, so every reply the client reads is a late one, through the response URL (the
harder path; an answer in the ack is the bot's own tests' business).
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from bot.testing import StackOptions

HOOKS = Path(__file__).with_name("hooks.toml")


@pytest.fixture(scope="session")
def harness_stack_options(harness_stack_options: StackOptions) -> StackOptions:
    return replace(
        harness_stack_options,
        hooks_config=HOOKS,
        env={**harness_stack_options.env, "BOT_ACK_BUDGET_SECONDS": "0.001"},
    )
