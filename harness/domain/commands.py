"""A slash command's outcome, as values: the reply, who sees it, the effects to apply.

Plain frozen values; the effects themselves are :mod:`harness.domain.effects`, the
commands the top-level ``commands`` package, their hook context
:mod:`harness.hooks.contexts.command`.
"""

from __future__ import annotations

from harness.domain.effects import CommandEffect
from harness.domain.frozen import Frozen


class CommandResult(Frozen):
    """The reply to post, who sees it, and the effects to apply.

    ``public`` is for replies everyone in the task's channel should see (a change of
    model, effort or people, a new sub-task); refusals, errors and read-only answers
    stay private to the sender, so a channel is not flooded with one person's lookups.
    """

    reply: str
    effects: tuple[CommandEffect, ...] = ()
    public: bool = False
