"""Roles in words: why someone may not run a command or talk to the agent, and the help each
role reads (which commands they may use).

Who may do what is decided elsewhere (the command guard in ``commands/guard.py``, the
channel guard :mod:`harness.channels.guard`); the sentences that say so are here. The
command lines of the help are each command's summary and synopsis, data of its spec.
"""

from __future__ import annotations

from typing import Final

from harness.domain import Participant, Role
from harness.replies.umbrella import INVITE

__all__ = [
    "NOT_IN_TASK",
    "SEAL_BROKEN",
    "TALK",
    "command_line",
    "direct_message",
    "help_for",
    "help_without_task",
    "not_a_participant",
    "not_heard",
    "owner_only",
    "watchers_look",
]


NOT_IN_TASK: Final = "you are not part of this task"
"""Why a sender with no role is refused a command nobody here knows."""

SEAL_BROKEN: Final = "a hook executor changed the command's sender or role"
"""Why a command is refused when its sender or role changed between executors."""

TALK: Final = "mention me in a thread to talk to the task."
"""The help's last line."""


def not_a_participant() -> str:
    """Why a sender with no role may not run a command: who can invite them."""
    return f"{NOT_IN_TASK}; ask its owner to `{INVITE}` you"


def owner_only(typed: str) -> str:
    """Why a command (as ``typed``) is refused to anyone but the task's owner."""
    return f"only the task's owner can use `{typed}`"


def watchers_look(typed: str) -> str:
    """Why a watcher may not run a command that changes something (``typed``)."""
    return f"watchers can only look; `{typed}` needs a collaborator or the owner"


def not_heard(role: Role, participants: tuple[Participant, ...]) -> str:
    """Why a sender who may not talk to the agent was not heard, naming the task's owners."""
    owners = [p.user_id for p in participants if p.role is Role.OWNER]
    who = ", ".join(f"<@{o}>" for o in owners) if owners else "its owner"
    if role is Role.WATCHER:
        return (
            "watchers can only look, not talk to this task's agent; "
            f"ask {who} to `{INVITE}` you as a collaborator"
        )
    return (
        "you are not part of this task, so its agent did not get your message; "
        f"ask {who} to `{INVITE}` you"
    )


def command_line(synopsis: str, summary: str, *, looks_only: bool = False) -> str:
    """``• `usage` — summary`` of one command in the help; ``looks_only``: its bare form only."""
    return f"• `{synopsis}` — {summary}" + (" (you can only look)" if looks_only else "")


def help_for(role: Role, lines: list[str]) -> str:
    """The help of someone with ``role`` in the task: the commands they may use (``lines``).

    Someone with no role is told how to get one, and ``lines`` are what a collaborator can
    then do: help is the one command that shows nothing of the task.
    """
    if role is Role.NONE:
        head = (
            f"you are not part of this task yet: ask its owner to `{INVITE}` you; as a "
            "collaborator you could use:"
        )
    else:
        head = f"you are *{role}* in this task. commands:"
    return "\n".join([head, *lines, TALK])


def help_without_task(lines: list[str], *, ended: bool = False) -> str:
    """The help where no task runs (``ended``: the channel's task has ended): how to start
    one, and what its owner can then do (``lines``); where a task has ended, not that a
    mention talks to it (a mention there starts a new one, issue 26)."""
    first = (
        "this channel's task has ended: mention me with what you need to start a new one"
        if ended
        else "there is no task here yet: mention me with what you need to start one"
    )
    shown = [f"{first}; you will own it and can use:", *lines]
    return "\n".join(shown if ended else [*shown, TALK])  # ended: a mention starts a new one


def direct_message(lines: list[str], help_typed: str) -> str:
    """The answer to a direct message: tasks live in channels; the owner's commands
    (``lines``) and that the help (``help_typed``) works anywhere."""
    return "\n".join(
        [
            "I run tasks in channels, not in direct messages: add me to a channel and mention "
            "me there with what you need. That starts a task you own, and in that channel you "
            "can use:",
            *lines,
            f"`{help_typed}` works anywhere, here too.",
        ]
    )
