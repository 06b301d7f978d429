"""``/task approvals [strict|safe|off]``: when the task asks a person before a tool runs.

Bare, anyone in the task sees the task's approval default, what each one means and the
tools approved for the rest of the task; with a default, the owner changes it (a
``set_approvals`` effect the task workflow applies). Rules of the hooks file
(``[[approvals.rules]]``) come first whatever the default; the policy itself is
:mod:`harness.hooks.monitors.approvals`.
"""

from __future__ import annotations

from typing import Final

from commands.spec import Args, CommandConfig, CommandSpec, UsageError
from harness import replies
from harness.domain import (
    APPROVAL_DEFAULTS,
    ApprovalDefault,
    CommandResult,
    SetApprovals,
)
from harness.hooks.contexts import CommandInvokedContext

NAME: Final = "approvals"


class ApprovalsArgs(Args):
    """``default`` ``None`` means "show"."""

    default: ApprovalDefault | None = None


def parse(text: str) -> ApprovalsArgs:
    """One of the defaults (any case), or nothing.

    Raises:
        UsageError: any other text.
    """
    word = text.strip().lower()
    if not word:
        return ApprovalsArgs()
    for default in APPROVAL_DEFAULTS:
        if word == default:
            return ApprovalsArgs(default=default)
    raise UsageError(
        command=NAME,
        problem=replies.bad_approval_default(APPROVAL_DEFAULTS),
        usage=USAGE,
    )


async def body(
    ctx: CommandInvokedContext, args: ApprovalsArgs, config: CommandConfig
) -> CommandResult:
    """Show the default, the choices and the standing approvals, or a ``set_approvals`` effect."""
    snapshot = ctx.snapshot
    current = snapshot.approvals if snapshot else None
    if args.default is None:
        standing = snapshot.approved_tools if snapshot else ()
        return CommandResult(reply=replies.approvals_shown(current, tuple(standing)))
    if args.default == current:
        return CommandResult(reply=replies.approvals_set(current, current, changed=False))
    return CommandResult(
        reply=replies.approvals_set(args.default, current),
        effects=(SetApprovals(approvals=args.default, user_id=ctx.sender),),
        public=True,
    )


SPEC: Final = CommandSpec(
    name=NAME,
    summary="show which tool calls wait for a person's approval, or set it (owner only)",
    arguments="[" + "|".join(APPROVAL_DEFAULTS) + "]",
    args=ApprovalsArgs,
    parse=parse,
    body=body,
    mutating=True,
    owner_only=True,
)
USAGE: Final = SPEC.usage
