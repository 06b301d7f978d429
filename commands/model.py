"""``/model``: show the task's model, or set it to one of the configured models.

The body only decides (a ``set_model`` effect); the task workflow applies it.
Which models exist is the worker's configuration (:class:`commands.spec.CommandConfig`).
"""

from __future__ import annotations

from typing import Final

from commands.spec import Args, CommandConfig, CommandSpec, UsageError
from harness import replies
from harness.domain import CommandResult, SetModel
from harness.hooks.contexts import CommandInvokedContext

NAME: Final = "model"


class ModelArgs(Args):
    """``name`` empty means "show"."""

    name: str = ""


def parse(text: str) -> ModelArgs:
    """One model name, or nothing.

    Raises:
        UsageError: more than one word.
    """
    words = text.split()
    if len(words) > 1:
        raise UsageError(command=NAME, problem=replies.ONE_MODEL, usage=USAGE)
    return ModelArgs(name=words[0] if words else "")


async def body(ctx: CommandInvokedContext, args: ModelArgs, config: CommandConfig) -> CommandResult:
    """Show the model, or return a ``set_model`` effect for a configured one."""
    current = ctx.snapshot.model if ctx.snapshot else ""
    available = tuple(config.models)
    if not args.name:
        return CommandResult(reply=replies.model_shown(current, available))
    matches = [m for m in config.models if m.lower() == args.name.lower()]
    if not matches:
        return CommandResult(reply=replies.unknown_model(args.name, available))
    chosen = matches[0]
    if ctx.snapshot is not None and ctx.snapshot.model == chosen:
        return CommandResult(reply=replies.model_set(chosen, current, changed=False))
    return CommandResult(
        reply=replies.model_set(chosen, current),
        effects=(SetModel(model=chosen),),
        public=True,  # a change: everyone in the channel sees it
    )


SPEC: Final = CommandSpec(
    name=NAME,
    summary="show the task's model, or set it",
    arguments="[name]",
    top_level=True,
    args=ModelArgs,
    parse=parse,
    body=body,
    mutating=True,
)
USAGE: Final = SPEC.usage
