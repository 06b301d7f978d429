"""The commands as people type them in Slack: which slash commands exist, and what each reaches.

Derived from the registry (:data:`commands.COMMANDS`) and nothing else, so the app
manifest (``python -m bot.manifest``) declares exactly what the bot routes
(:mod:`bot.slash`): a spec marked ``top_level`` is a slash command of its own
(``/model``), every other one is reached under the umbrella (``/task status``;
:mod:`harness.replies.umbrella`), which also takes the top-level ones
(``/task model x``) and alone means ``/task help``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final, final

from commands import help
from commands.registry import Registry
from harness.replies.umbrella import UMBRELLA, command_name

DEFAULT: Final = help.NAME
"""What the umbrella alone runs: ``/task`` is ``/task help``."""


@final
@dataclass(frozen=True, slots=True)
class SlashCommand:
    """One slash command as the manifest declares it.

    Attributes:
        command: with the slash, ``"/model"`` or ``"/task"``.
        description: Slack shows it in the command picker.
        usage_hint: Slack shows it after the command.
        should_escape: Slack sends mentions as ids (``<@U123|name>``).
        reaches: the registry names it runs.
    """

    command: str
    description: str
    usage_hint: str
    should_escape: bool
    reaches: tuple[str, ...]


def slash_commands(registry: Registry) -> tuple[SlashCommand, ...]:
    """The top-level commands in registry order, then the umbrella (when anything is under it)."""
    found = [
        SlashCommand(
            command=spec.invocation,
            description=_sentence(spec.summary),
            usage_hint=spec.arguments,
            should_escape=spec.escapes_mentions,
            reaches=(spec.name,),
        )
        for spec in registry.values()
        if spec.top_level
    ]
    under = [spec for spec in registry.values() if not spec.top_level]
    if under:
        names = ", ".join(spec.name for spec in under)
        found.append(
            SlashCommand(
                command=f"/{UMBRELLA}",
                description=f"This channel's task: {names} (/{UMBRELLA} help lists every command)",
                usage_hint="|".join(spec.name for spec in under) + " …",
                should_escape=any(spec.escapes_mentions for spec in under),
                reaches=tuple(registry),
            )
        )
    return tuple(found)


def resolve(command: str, text: str, registry: Registry) -> tuple[str, str] | None:
    """``(registry name, argument text)`` of what was typed, or ``None`` if it runs nothing.

    ``("/task", "invite <@U2> watcher")`` -> ``("invite", "<@U2> watcher")``;
    ``("/task", "")`` -> ``("help", "")``; ``("/model", "x")`` -> ``("model", "x")``;
    ``("/status", "")`` -> ``None`` (not a slash command of this app).
    """
    typed = command_name(command)
    if typed == UMBRELLA:
        words = text.split(maxsplit=1)
        name = command_name(words[0]) if words else DEFAULT
        return (name, words[1].strip() if len(words) > 1 else "") if name in registry else None
    spec = registry.get(typed)
    return (typed, text.strip()) if spec is not None and spec.top_level else None


def _sentence(summary: str) -> str:
    return summary[:1].upper() + summary[1:]
