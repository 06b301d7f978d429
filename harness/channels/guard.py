"""The conversation guard: who may talk to a task's agent, as commands are guarded by role.

A built-in ``channel.received`` pre executor at :data:`ROLE_GUARD_PRIORITY`, the
same spirit as the ``command.invoked`` role guard (DESIGN.md, "Roles guard every
input"): a message from someone with no role in the running task never reaches the
agent or the transcript, and a watcher's only when the worker allows it. The role
comes from the context's participants, which the task's workflow fills from its own
list, never from the sender. Starting a task is not guarded here: a mention in a
channel without a task opens one owned by its sender (``request.received``).
"""

from __future__ import annotations

from typing import Final, final

from harness import replies
from harness.domain import Role
from harness.hooks import HookAbort, HookContext
from harness.hooks.contexts import ChannelReceivedContext

TALKING_ROLES: Final = frozenset({Role.OWNER, Role.COLLABORATOR})


@final
class ConversationGuard:
    """Refuses conversation input from a sender without a role that may talk to the agent.

    Args:
        watchers_may_talk: let watchers talk to the agent too (``HARNESS_WATCHERS_MAY_TALK``).
    """

    name: Final = "harness.channels.guard.ConversationGuard"

    def __init__(self, *, watchers_may_talk: bool = False) -> None:
        self.roles = TALKING_ROLES | ({Role.WATCHER} if watchers_may_talk else set())

    async def __call__(self, ctx: HookContext, /) -> HookContext | None:
        """Pass a message from someone who may talk; refuse anyone else.

        Raises:
            HookAbort: ``refusal=True``; the reason, written for the sender, names who
                can invite them.
        """
        if not isinstance(ctx, ChannelReceivedContext):
            return None
        # A message without a sender is a stranger's too (role none): refused, not waved through.
        role = ctx.role_of(ctx.message.user)
        if role in self.roles:
            return None
        raise HookAbort(replies.not_heard(role, ctx.participants), refusal=True)
