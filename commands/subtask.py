"""``/sub-task <text>``: ask the task to spawn a child task doing ``text``.

The body returns a ``spawn_subtask`` effect; the workflow starts the child workflow
(running ``subtask.spawned``, whose body assigns the id) and appends the child's id
to the reply (`` as `task/…/sub-1` ``), since only it knows the id.
There is no read-only form, so watchers are refused outright.
"""

from __future__ import annotations

from typing import Final

from pydantic import Field

from commands.spec import Args, CommandConfig, CommandSpec, UsageError
from harness import replies
from harness.domain import DEFAULT_EFFORT, CommandResult, SpawnSubtask, SubtaskSpec
from harness.hooks.contexts import CommandInvokedContext

NAME: Final = "sub-task"
TITLE_CHARS: Final = 80


class SubtaskArgs(Args):
    """What the child should do; never empty."""

    text: str = Field(min_length=1)


def parse(text: str) -> SubtaskArgs:
    """The whole text is the request.

    Raises:
        UsageError: the text is empty.
    """
    text = text.strip()
    if not text:
        raise UsageError(command=NAME, problem=replies.SUBTASK_TEXT, usage=USAGE)
    return SubtaskArgs(text=text)


def title_of(text: str) -> str:
    """First line, cut to :data:`TITLE_CHARS` with an ellipsis."""
    first = text.splitlines()[0].strip()
    return first if len(first) <= TITLE_CHARS else first[: TITLE_CHARS - 1].rstrip() + "…"


async def body(
    ctx: CommandInvokedContext, args: SubtaskArgs, config: CommandConfig
) -> CommandResult:
    """A ``spawn_subtask`` effect inheriting the parent's model and effort."""
    snapshot = ctx.snapshot
    spec = SubtaskSpec(
        title=title_of(args.text),
        prompt=args.text,
        requested_by=ctx.sender,
        model=snapshot.model if snapshot else "",
        effort=snapshot.effort if snapshot else DEFAULT_EFFORT,
    )
    return CommandResult(
        reply=replies.starting_subtask(spec.title),
        effects=(SpawnSubtask(subtask=spec, user_id=ctx.sender),),
        public=True,  # a change: everyone in the channel sees it
    )


SPEC: Final = CommandSpec(
    name=NAME,
    summary="spawn a sub-task of this task",
    arguments="<what the sub-task should do>",
    top_level=True,
    args=SubtaskArgs,
    parse=parse,
    body=body,
    mutating=True,
    bare_is_read_only=False,
)
USAGE: Final = SPEC.usage
