"""``/task budget [tokens N | tool-calls N | cost X]``: show the task's budget, or set its limits.

Bare, anyone in the task sees what it used of each limit; with limits, the owner sets
them (one ``set_budget`` effect each, 0 meaning no limit), which the task workflow
applies. Counting, the 80 % notice and the question at the limit are the loop's
(:mod:`harness.agent.budget`).
"""

from __future__ import annotations

import re
from typing import Final

from commands.spec import Args, CommandConfig, CommandSpec, UsageError
from harness import replies
from harness.agent.budget import TYPED, Limit, amount, cost_limit, describe, limit_of, price_of
from harness.domain import BudgetUsage, CommandResult, SetBudget
from harness.hooks.contexts import CommandInvokedContext

NAME: Final = "budget"
_NAMES: Final[dict[str, Limit]] = {
    "tokens": "tokens",
    "token": "tokens",
    "tool-calls": "tool_calls",
    "tool_calls": "tool_calls",
    "tool-call": "tool_calls",
    "calls": "tool_calls",
    "cost": "cost",
    "usd": "cost",
}
_NUMBER: Final = re.compile(r"^\$?(\d+(?:\.\d+)?|\.\d+)([km]?)$")
_SCALE: Final = {"": 1, "k": 1_000, "m": 1_000_000}
_NONE: Final = frozenset({"0", "off", "none", "unlimited"})
MAX_TOKENS: Final = 10**12
"""Larger than any budget a person means; a typo of that size is refused."""


class BudgetArgs(Args):
    """``limits`` empty means "show"; otherwise each ``(limit, size)`` to set, 0 for none."""

    limits: tuple[tuple[Limit, float], ...] = ()


def parse(text: str) -> BudgetArgs:
    """``tokens 20k``, ``tool-calls 30``, ``cost $5`` (several at once too), or nothing.

    Sizes take ``k`` and ``m`` (``1.5m`` tokens), commas (``20,000``) and, for cost,
    a ``$``; ``0``, ``off`` or ``none`` removes a limit.

    Raises:
        UsageError: an unknown limit, a size that is not a number, or a pair cut short.
    """
    words = text.lower().replace(",", "").split()
    if len(words) % 2:
        raise UsageError(command=NAME, problem=replies.LIMIT_SIZES, usage=USAGE)
    found: dict[Limit, float] = {}
    for word, size in zip(words[::2], words[1::2], strict=True):
        limit = _NAMES.get(word)
        if limit is None:
            raise UsageError(
                command=NAME,
                problem=replies.not_a_limit(word),
                usage=USAGE,
            )
        found[limit] = _size(limit, size)
    return BudgetArgs(limits=tuple(found.items()))


def _size(limit: Limit, text: str) -> float:
    if text in _NONE:
        return 0.0
    match = _NUMBER.match(text)
    if match is None or (text.startswith("$") and limit != "cost"):
        example = "$5" if limit == "cost" else "20k"
        raise UsageError(
            command=NAME,
            problem=replies.not_a_size(text, TYPED[limit], example),
            usage=USAGE,
        )
    value = float(match.group(1)) * _SCALE[match.group(2)]
    if limit == "cost":
        return cost_limit(value)  # any positive size stays a limit (0.004 is no "no limit")
    if value != int(value) or value > MAX_TOKENS:
        raise UsageError(
            command=NAME,
            problem=replies.whole_number(TYPED[limit], MAX_TOKENS),
            usage=USAGE,
        )
    return float(int(value))


async def body(
    ctx: CommandInvokedContext, args: BudgetArgs, config: CommandConfig
) -> CommandResult:
    """Show the budget, or return one ``set_budget`` effect per limit that changes.

    A cost limit on a model with no price could never be reached (its cost stays $0.00):
    setting one is refused in words, and a budget that has one says so (issue 26).
    """
    usage = ctx.snapshot.budget if ctx.snapshot else BudgetUsage()
    model = ctx.snapshot.model if ctx.snapshot else ""
    priced = (
        price_of(config.model_prices, model) is not None if model else bool(config.model_prices)
    )
    if not args.limits:
        note = "" if priced or not limit_of(usage, "cost") else replies.cost_not_counted(model)
        return CommandResult(reply=replies.budget_shown(describe(usage), note, USAGE))
    if not priced and any(limit == "cost" and size for limit, size in args.limits):
        return CommandResult(reply=replies.cost_uncounted(model, f"{SPEC.invocation} tokens 20k"))
    changes = [(limit, size) for limit, size in args.limits if size != limit_of(usage, limit)]
    if not changes:
        return CommandResult(reply=replies.budget_unchanged(describe(usage)))
    said = tuple((TYPED[limit], amount(limit, size) if size else "") for limit, size in changes)
    effects = tuple(
        SetBudget(limit=limit, amount=size, user_id=ctx.sender) for limit, size in changes
    )
    return CommandResult(reply=replies.budget_set(ctx.sender, said), effects=effects, public=True)


SPEC: Final = CommandSpec(
    name=NAME,
    summary="show what the task used of its budget, or set its limits (owner only)",
    arguments="[tokens N | tool-calls N | cost X]",
    args=BudgetArgs,
    parse=parse,
    body=body,
    mutating=True,
    owner_only=True,
)
USAGE: Final = SPEC.usage
