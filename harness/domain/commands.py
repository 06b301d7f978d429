"""A slash command's outcome, as values: the reply, who sees it, the effects to apply.

Plain frozen values; the commands themselves are the top-level ``commands`` package, their
hook context :mod:`harness.hooks.contexts.command`.
"""

from __future__ import annotations

from typing import Literal

from harness.domain.frozen import Frozen
from harness.domain.plans import SubtaskSpec


class CommandEffect(Frozen):
    """A change the workflow applies after the command's activity returns (workflows act).

    ``stop_turn`` cancels the turn running now (the task waits for the next message);
    ``finish`` and ``cancel`` end the task (``value``: a summary); ``set_mid_turn`` and
    ``set_approvals`` take a mode in ``value``; ``set_budget`` a limit named in ``value``
    (``tokens``, ``tool_calls``, ``cost``) and its new size in ``amount`` (0: no limit).
    ``user_id`` is who asked, where the effect is about a person or said in their name.
    """

    kind: Literal[
        "set_model",
        "set_effort",
        "spawn_subtask",
        "grant_role",
        "load_skill",
        "unload_skill",
        "stop_turn",
        "finish",
        "cancel",
        "set_mid_turn",
        "set_approvals",
        "set_budget",
    ]
    value: str = ""
    user_id: str = ""
    subtask: SubtaskSpec | None = None
    amount: float = 0.0


class CommandResult(Frozen):
    """The reply to post, who sees it, and the effects to apply.

    ``public`` is for replies everyone in the task's channel should see (a change of
    model, effort or people, a new sub-task); refusals, errors and read-only answers
    stay private to the sender, so a channel is not flooded with one person's lookups.
    """

    reply: str
    effects: tuple[CommandEffect, ...] = ()
    public: bool = False
