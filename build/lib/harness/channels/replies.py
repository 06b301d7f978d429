"""The reply rule of a slash command: what its sender reads when it was refused, failed, is
unknown or was typed wrong, with the command spelled as people type it.

One rule for both runners of ``command.invoked``: the task's workflow
(:mod:`harness.temporal.workflows`, production) and ``commands.run_command`` (in process,
what the command tests run), and for the bodies' own usage and failure replies
(``commands.spec``). Harness never imports ``commands``, which alone knows whether a command
is top level, so the spelling travels in the context (``CommandInvokedContext.invocation``,
set by the bot from the registry); without it the umbrella form is shown, which runs every
command (:mod:`harness.channels.umbrella`). What the bot says around a command (the task is
unreachable, busy, ...) is ``bot.replies``.
"""

from __future__ import annotations

from typing import Final

from harness.channels.neutral import neutral
from harness.channels.umbrella import command_name, invocation

HELP: Final = invocation("help")
"""``/task help``, where an unknown command points (a test checks the registry agrees)."""

IDENTITY_CHANGED: Final = "an executor changed the sender or the role"
"""Why a command whose context came back with another sender or role is refused."""


def spelled(command: str, typed: str = "") -> str:
    """How a reply names ``command``: as ``typed`` (``/model``), else ``/task <name>``."""
    return typed or invocation(command_name(command))


def is_refusal(*, refusal: bool, point: str) -> bool:
    """Whether an abort refused the command on purpose rather than failing it.

    A refusal is an abort flagged so in any phase (the identity seal's on post), or any
    abort of a pre executor (DESIGN.md "command.invoked").
    """
    return refusal or point.endswith(".pre")


def refused(reason: str) -> str:
    """``refused: <reason>``; the reason is written for the sender, mentions and all."""
    return f"refused: {reason}"


def failed(typed: str, message: str) -> str:
    """``/model failed: <message>``; the message may quote the arguments, so it pings nobody."""
    return f"{neutral(typed)} failed: {neutral(message)}"


def unknown(typed: str) -> str:
    """The reply to what runs no command here (``/task teleport``), pointing at the help.

    The bot says it of what it cannot route, the task of a command no body answered.
    """
    return f"`{neutral(typed)}` is not a command here; `{HELP}` lists them"


def usage(problem: str, synopsis: str) -> str:
    """The reply to arguments that do not fit: what is wrong, then the right form."""
    return f"{problem}\nusage: `{synopsis}`"
