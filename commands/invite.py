"""``/invite @user watcher|collaborator``: the owner grants someone a role in the task.

Slack sends a mention as ``<@U123|name>`` when the command escapes users (the
manifest sets ``should_escape``); a bare ``@name`` cannot be resolved here, so the
usage error says to pick the person from Slack's mention menu.
"""

from __future__ import annotations

import re
from typing import Final

from commands.spec import Args, CommandConfig, CommandSpec, UsageError
from harness import replies
from harness.domain import CommandResult, GrantableRole, GrantRole, Role
from harness.hooks.contexts import CommandInvokedContext

NAME: Final = "invite"
_MENTION: Final = re.compile(r"^<@([UW][A-Z0-9]+)(?:\|[^>]*)?>$|^([UW][A-Z0-9]{2,})$")


class InviteArgs(Args):
    """Who, and as what."""

    user_id: str
    role: GrantableRole


def parse(text: str) -> InviteArgs:
    """``<@U123|name> watcher`` (or a raw user id).

    Raises:
        UsageError: not exactly a mention and a grantable role.
    """
    words = text.split()
    if len(words) != 2:
        raise UsageError(command=NAME, problem=replies.ONE_PERSON, usage=USAGE)
    match = _MENTION.match(words[0])
    if match is None:
        raise UsageError(
            command=NAME,
            problem=replies.not_a_mention(words[0]),
            usage=USAGE,
        )
    role = words[1].lower()
    if role not in ("watcher", "collaborator"):
        raise UsageError(command=NAME, problem=replies.GRANTABLE, usage=USAGE)
    return InviteArgs(user_id=match.group(1) or match.group(2), role=role)


async def body(
    ctx: CommandInvokedContext, args: InviteArgs, config: CommandConfig
) -> CommandResult:
    """A ``grant_role`` effect, unless it would change nothing or demote the owner."""
    current = ctx.role_of(args.user_id)
    if ctx.snapshot is not None and current is Role.NONE:
        current = next(
            (p.role for p in ctx.snapshot.participants if p.user_id == args.user_id), Role.NONE
        )
    if current is Role.OWNER:
        return CommandResult(reply=replies.owner_keeps(args.user_id))
    if current.value == args.role:
        return CommandResult(reply=replies.invited(args.user_id, args.role, changed=False))
    return CommandResult(
        reply=replies.invited(args.user_id, args.role),
        effects=(GrantRole(user_id=args.user_id, role=args.role),),
        public=True,  # a change: everyone in the channel sees it
    )


SPEC: Final = CommandSpec(
    name=NAME,
    summary="give someone a role in this task (owner only)",
    arguments="@person watcher|collaborator",
    escapes_mentions=True,
    args=InviteArgs,
    parse=parse,
    body=body,
    mutating=True,
    bare_is_read_only=False,
    owner_only=True,
)
USAGE: Final = SPEC.usage
