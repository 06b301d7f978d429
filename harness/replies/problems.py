"""Usage problems in words: what is wrong with a command's arguments, the first line of the
reply whose second is the command's synopsis (:func:`~harness.replies.commands.usage`).

The parsers (``commands/<name>.py``) find the problem; this says it.
"""

from __future__ import annotations

from typing import Final

from harness.replies.neutral import neutral

__all__ = [
    "GRANTABLE",
    "LIMIT_SIZES",
    "ONE_MODEL",
    "ONE_PERSON",
    "SKILL_ACTION",
    "SUBTASK_TEXT",
    "bad_approval_default",
    "bad_effort",
    "bad_mid_turn",
    "no_arguments",
    "not_a_limit",
    "not_a_mention",
    "not_a_size",
    "too_long",
    "whole_number",
]


ONE_MODEL: Final = "give one model name"
SUBTASK_TEXT: Final = "say what the sub-task should do"
ONE_PERSON: Final = "name one person and one role"
GRANTABLE: Final = "the role must be watcher or collaborator"
SKILL_ACTION: Final = "say load or unload, and one skill"
LIMIT_SIZES: Final = "give each limit a size, e.g. `tokens 20k`"


def no_arguments(synopsis: str) -> str:
    """A command that takes nothing was given something."""
    return f"`{synopsis}` takes no arguments"


def bad_effort(choices: tuple[str, ...]) -> str:
    """``/task effort`` named no effort there is."""
    return f"effort must be one of {', '.join(choices)}"


def bad_approval_default(choices: tuple[str, ...]) -> str:
    """``/task approvals`` named no default there is."""
    return f"the approval default must be one of {', '.join(choices)}"


def bad_mid_turn(choices: tuple[str, ...]) -> str:
    """``/task mid-turn`` named no mode there is."""
    return f"the mode must be one of {', '.join(choices)}"


def not_a_mention(text: str) -> str:
    """``/task invite`` named someone not as a Slack mention."""
    return f"`{neutral(text)}` is not a Slack mention; pick the person from the @ menu"


def not_a_limit(word: str) -> str:
    """``/task budget`` named no limit it has."""
    return f"`{neutral(word)}` is not a limit; use tokens, tool-calls or cost"


def not_a_size(text: str, limit: str, example: str) -> str:
    """A budget size that is not a number (``example``: one that is)."""
    return f"`{neutral(text)}` is not a size for {limit} (like `{example}`)"


def whole_number(limit: str, most: int) -> str:
    """A token or tool-call limit that is not a whole number up to ``most``."""
    return f"{limit} take a whole number up to {most:,}"


def too_long(limit: int) -> str:
    """A finish or cancel note over ``limit`` characters."""
    return f"keep it under {limit:,} characters"
