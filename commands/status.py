"""``/status``: the task as its snapshot shows it (model, effort, state, people, sub-tasks)."""

from __future__ import annotations

from typing import Final

from commands.spec import Args, CommandConfig, CommandSpec, no_arguments
from harness.channels import neutral
from harness.domain import CommandResult, Role, TaskSnapshot
from harness.hooks.contexts import CommandInvokedContext
from harness.temporal import workflow_url

NAME: Final = "status"
_ROLE_ORDER: Final = {Role.OWNER: 0, Role.COLLABORATOR: 1, Role.WATCHER: 2, Role.NONE: 3}


class StatusArgs(Args):
    """No arguments."""


def parse(text: str) -> StatusArgs:
    """Nothing.

    Raises:
        UsageError: any text.
    """
    no_arguments(text, command=NAME, usage=USAGE)
    return StatusArgs()


def render(snapshot: TaskSnapshot, *, ui_url: str = "", namespace: str = "default") -> str:
    """The snapshot as a few lines of Slack mrkdwn; with ``ui_url``, a link to its workflow."""
    title = neutral(snapshot.title or snapshot.ref.task_id)
    people = sorted(snapshot.participants, key=lambda p: (_ROLE_ORDER[p.role], p.user_id))
    lines = [
        f"*{title}* — {snapshot.status}",
        f"model: `{snapshot.model or '(default)'}` · effort: `{snapshot.effort}`",
        "people: " + (", ".join(f"<@{p.user_id}> ({p.role})" for p in people) or "none"),
    ]
    if snapshot.subtasks:
        lines.append("sub-tasks:")
        lines += [f"• {neutral(s.title)} — {s.status} (`{s.task_id}`)" for s in snapshot.subtasks]
    else:
        lines.append("sub-tasks: none")
    if ui_url:
        url = workflow_url(ui_url, namespace, snapshot.ref.task_id)
        lines.append(f"workflow: <{url}|{neutral(snapshot.ref.task_id)}> (Temporal UI)")
    return "\n".join(lines)


async def body(
    ctx: CommandInvokedContext, args: StatusArgs, config: CommandConfig
) -> CommandResult:
    """Render the snapshot the workflow attached."""
    if ctx.snapshot is None:
        return CommandResult(reply="no task state is available yet")
    return CommandResult(reply=render(ctx.snapshot, ui_url=config.temporal_ui_url,
                                      namespace=config.temporal_namespace))  # fmt: skip


SPEC: Final = CommandSpec(
    name=NAME,
    summary="show the task: state, model, effort, people, sub-tasks",
    arguments="",
    args=StatusArgs,
    parse=parse,
    body=body,
)
USAGE: Final = SPEC.usage
