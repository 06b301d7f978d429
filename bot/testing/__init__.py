"""A testing kit for the harness: the real stack in processes, and Slack's side of the talk.

For users' own tests of their hooks files and plugins, and for this project's scenario
tests (issue 16): :func:`running_stack` starts the dev server, the worker and the bot in
local mode; :class:`SlackClient` sends what Slack would and reads what was posted back;
``pytest_plugins = ["bot.testing.pytest_plugin"]`` gives both as fixtures. Shipped in the
package because it is a seam, as :mod:`bot.standin` is; importing it needs no pytest.
"""

from __future__ import annotations

from bot.testing.results import Clicked, Message, Post, Sent, SlashReply
from bot.testing.slack import SlackClient, new_channel, new_conversation
from bot.testing.stack import (
    DEFAULT_PLUGINS,
    Stack,
    StackOptions,
    StackStartError,
    running_stack,
)

__all__ = [
    "DEFAULT_PLUGINS",
    "Clicked",
    "Message",
    "Post",
    "Sent",
    "SlackClient",
    "SlashReply",
    "Stack",
    "StackOptions",
    "StackStartError",
    "new_channel",
    "new_conversation",
    "running_stack",
]
