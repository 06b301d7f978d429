"""The kit's stack for this package, configured as a user's conftest configures theirs.

``pytest_plugins = ["bot.testing.pytest_plugin"]`` is in the root conftest (the only place
pytest reads it); here the session's stack gets a hooks file, by overriding the options
fixture exactly as README's example does.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from bot.testing.pytest_plugin import StackOptions

HOOKS = Path(__file__).with_name("hooks.toml")


@pytest.fixture(scope="session")
def harness_stack_options(harness_stack_options: StackOptions) -> StackOptions:
    return replace(harness_stack_options, hooks_config=HOOKS)
