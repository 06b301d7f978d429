"""Commands in words: what each slash command answers when it shows, changes or keeps a
setting, and how a command is named in a reply.

The command modules (``commands/``) decide which answer fits (the setting changed, was
already so, was only shown); the sentences are here, from typed values: the setting's
name, the values before and after, who did it. A command's summary and synopsis are data
of its spec (``commands/<name>.py``), one source per command, and stay there.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Final

from harness.domain import (
    APPROVAL_DEFAULTS,
    MID_TURN_MODES,
    ApprovalDefault,
    GrantableRole,
    MidTurn,
    TaskStatus,
)
from harness.replies.neutral import neutral
from harness.replies.umbrella import command_name, invocation

__all__ = [
    "APPROVAL_MEANINGS",
    "HELP",
    "MID_TURN_MEANINGS",
    "NO_STATE",
    "NO_TURN",
    "SKILL_UNREADABLE",
    "WORKERS_APPROVALS",
    "already_over",
    "approvals_set",
    "approvals_shown",
    "effort_set",
    "effort_shown",
    "ended_by",
    "invited",
    "mid_turn_set",
    "mid_turn_shown",
    "model_set",
    "model_shown",
    "owner_keeps",
    "skill_changed",
    "skill_not_loaded",
    "skill_unavailable",
    "skills_listed",
    "spelled",
    "stop_over",
    "stopping",
    "unknown",
    "unknown_model",
    "usage",
]


HELP: Final = invocation("help")
"""``/task help``, where an unknown command points (a test checks the registry agrees)."""

NO_STATE: Final = "no task state is available yet"
"""``/task status`` before the workflow attached a snapshot."""

APPROVAL_MEANINGS: Final[dict[ApprovalDefault, str]] = {
    "strict": "a person approves every tool call, except tools that only read",
    "safe": "a person approves calls of the tools that require approval",
    "off": "no tool call waits for a person (rules that deny still deny)",
}
"""One line per default: which tool calls wait for a person's approval."""

WORKERS_APPROVALS: Final = (
    "the worker's default (the hooks file's `[approvals] default`, else `safe`)"
)
"""What a task without its own default follows (the snapshot's ``approvals`` is ``None``)."""

MID_TURN_MEANINGS: Final[dict[MidTurn, str]] = {
    "steer": "added to what the agent is doing, at its next step",
    "queue": "answered after the current turn, in order",
    "interrupt": "answered at once, stopping the current turn",
}
"""One line per mode: what a message sent while a turn runs does."""

SKILL_UNREADABLE: Final = (
    "(its SKILL.md cannot be read: the worker's log says why when it is loaded)"
)
"""Beside a listed skill whose description cannot be read."""


def spelled(command: str, typed: str = "") -> str:
    """How a reply names ``command``: as ``typed`` (``/model``), else ``/task <name>``."""
    return typed or invocation(command_name(command))


def unknown(typed: str) -> str:
    """The reply to what runs no command here (``/task teleport``), pointing at the help.

    The bot says it of what it cannot route, the task of a command no body answered.
    """
    return f"`{neutral(typed)}` is not a command here; `{HELP}` lists them"


def usage(problem: str, synopsis: str) -> str:
    """The reply to arguments that do not fit: what is wrong, then the right form."""
    return f"{problem}\nusage: `{synopsis}`"


def _choices(current: str, meanings: Iterable[tuple[str, str]]) -> list[str]:
    return [
        f"• `{name}`{' (now)' if name == current else ''}: {meaning}" for name, meaning in meanings
    ]


def _settled(current: str) -> str:
    return f"`{current}`"


def effort_shown(current: str, choices: tuple[str, ...]) -> str:
    """``/task effort``: the effort now and the ones to choose from."""
    return f"effort: `{current}` (choose from {', '.join(choices)})"


def effort_set(level: str, was: str, *, changed: bool = True) -> str:
    """The effort set to ``level`` (from ``was``), or already so (``changed`` false)."""
    if not changed:
        return f"effort is already {_settled(level)}"
    return f"effort set to `{level}` (was `{was}`)"


def model_shown(current: str, available: tuple[str, ...]) -> str:
    """``/model``: the task's model (``""``: the default) and the configured ones."""
    return f"model: `{current or '(default)'}` (available: {_listed(available)})"


def unknown_model(name: str, available: tuple[str, ...]) -> str:
    """A model name the worker has not configured: the ones it has."""
    return f"unknown model `{neutral(name)}`; available: {_listed(available)}"


def model_set(chosen: str, was: str, *, changed: bool = True) -> str:
    """The model set to ``chosen`` (from ``was``, ``""``: the default), or already so."""
    if not changed:
        return f"model is already {_settled(chosen)}"
    return f"model set to `{chosen}` (was `{was or '(default)'}`)"


def _listed(names: tuple[str, ...]) -> str:
    return ", ".join(f"`{name}`" for name in names)


def _approvals(current: ApprovalDefault | None) -> str:
    return f"`{current}`" if current else WORKERS_APPROVALS


def approvals_shown(current: ApprovalDefault | None, standing: tuple[str, ...]) -> str:
    """``/task approvals``: the default (``None``: the worker's), each choice, and the tools
    approved for the rest of the task."""
    meanings = [(name, APPROVAL_MEANINGS[name]) for name in APPROVAL_DEFAULTS]
    lines = [f"approvals: {_approvals(current)}", *_choices(current or "", meanings)]
    if standing:
        lines.append(f"approved for the rest of the task: {_listed(standing)}")
    return "\n".join(lines)


def approvals_set(
    chosen: ApprovalDefault, was: ApprovalDefault | None, *, changed: bool = True
) -> str:
    """The approval default set to ``chosen`` (from ``was``), or already so."""
    if not changed:
        return f"approvals are already {_settled(chosen)}"
    return f"approvals set to `{chosen}` (was {_approvals(was)}): {APPROVAL_MEANINGS[chosen]}"


def mid_turn_shown(current: MidTurn) -> str:
    """``/task mid-turn``: the mode now and what each does."""
    meanings = [(mode, MID_TURN_MEANINGS[mode]) for mode in MID_TURN_MODES]
    head = f"mid-turn: `{current}` — a message sent while a turn runs is:"
    return "\n".join([head, *_choices(current, meanings)])


def mid_turn_set(mode: MidTurn, was: MidTurn, *, changed: bool = True) -> str:
    """The mid-turn mode set to ``mode`` (from ``was``), or already so."""
    if not changed:
        return f"mid-turn is already {_settled(mode)}"
    return (
        f"mid-turn set to `{mode}` (was `{was}`): a message sent while a turn runs is "
        f"{MID_TURN_MEANINGS[mode]}"
    )


def invited(user: str, role: GrantableRole, *, changed: bool = True) -> str:
    """``user`` given ``role`` in the task, or already holding it."""
    if not changed:
        return f"<@{user}> is already a {role}"
    return f"<@{user}> is now a {role} of this task"


def owner_keeps(user: str) -> str:
    """Why the owner ``user`` is not given another role."""
    return f"<@{user}> owns this task; the owner keeps that role"


def already_over(status: TaskStatus) -> str:
    """The reply to ``finish`` or ``cancel`` of a task that has ended."""
    return f"this task has already ended ({status})"


def ended_by(user: str, done: str, note: str) -> str:
    """Who ended the task (``done``: finished, cancelled), with their note, and what next."""
    said = f": {neutral(note)}" if note else ""
    return f"<@{user}> {done} this task{said}\nmention me in the channel to start a new one"


def stop_over(status: TaskStatus) -> str:
    """The reply to ``stop`` in a task that has ended."""
    return f"this task has ended ({status}); nothing to stop"


NO_TURN: Final = "no turn is running; nothing to stop"
"""The reply to ``stop`` while the task waits for a message."""


def stopping(user: str) -> str:
    """The public reply to ``stop``: who stops the current turn."""
    return (
        f"<@{user}> is stopping the current turn; what it did and did not do follows in the thread"
    )


def skill_changed(name: str, action: str) -> str:
    """``skill `x` loaded`` (``action``: load or unload)."""
    return f"skill `{neutral(name)}` {action}ed"


def skills_listed(skills: tuple[tuple[str, str], ...], synopsis: str) -> str:
    """The skills a task can load (name, description), one a line, and how to load one."""
    if not skills:
        return usage("no skills to load here (the worker's skills directory has none)", synopsis)
    lines = ["skills you can load:"]
    lines += [f"• `{name}`" + (f": {neutral(about)}" if about else "") for name, about in skills]
    return "\n".join([*lines, f"usage: `{synopsis}`"])


def skill_unavailable(name: str, *, missing: bool) -> str:
    """Why skill ``name`` was not loaded: there is none of that name, or its folder is not
    a valid skill (what is wrong, with its paths, stays in the worker's log)."""
    if missing:
        return f"there is no skill `{neutral(name)}` here; `{invocation('skill')}` lists them"
    return f"the skill `{neutral(name)}` cannot be read; the worker's log says why"


def skill_not_loaded(name: str) -> str:
    """Why ``unload`` did nothing: the skill was not loaded."""
    return f"skill {name} is not loaded"
