"""Budgets in words: how a budget reads (``tokens 8,120 of 10,000 (81 %)``), the heads-up near
a limit, the owner's question at it, the turn stopped by it, and ``/task budget``'s replies.

The arithmetic (what is used, of which limit, amounts as ``$0.0045``) is
:mod:`harness.agent.budget`'s; it hands the amounts here already formatted.
"""

from __future__ import annotations

from typing import Final

from harness.domain import BudgetLimit
from harness.replies.neutral import neutral

__all__ = [
    "STOP_HERE",
    "budget_question",
    "budget_raised",
    "budget_set",
    "budget_shown",
    "budget_spent",
    "budget_unchanged",
    "cost_not_counted",
    "cost_uncounted",
    "heads_up",
    "limit_used",
    "raise_to",
]


STOP_HERE: Final = "Stop here"
"""The budget question's button that stops the turn."""

_UNITS: Final[dict[BudgetLimit, str]] = {"tokens": " tokens", "tool_calls": " tool calls"}


def limit_used(name: str, spent: str, size: str, percent: int) -> str:
    """One limit of a budget: ``tokens 8,120 of 10,000 (81 %)``, or ``… (no limit)``."""
    if size:
        return f"{name} {spent} of {size} ({percent} %)"
    return f"{name} {spent} (no limit)"


def budget_spent(noun: str, amount: str, raise_with: str, *, timed_out: bool) -> str:
    """The reply of a turn stopped because a budget is used up (``raise_with`` raises it)."""
    waited = " and nobody answered in time" if timed_out else ""
    return f"stopped: the {noun} budget of {amount} is used up{waited}; `{raise_with}` raises it"


def heads_up(percent: int, noun: str, spent: str, size: str) -> str:
    """The thread's notice that a limit is nearly used (``percent`` of it)."""
    return (
        f"heads-up: this task has used {percent} % of its {noun} budget ({spent} of {size}); "
        "at the limit its owner is asked whether to go on"
    )


def budget_question(owner: str, noun: str, size: str, spent: str) -> str:
    """What the owner (``""``: none named) is asked when a limit is used up."""
    who = f"<@{owner}>, t" if owner else "T"
    return f"{who}he {noun} budget of {size} is used up ({spent} used). Raise it, or stop here?"


def raise_to(limit: BudgetLimit, amount: str) -> str:
    """The budget question's button that raises ``limit`` to ``amount``."""
    return f"Raise to {amount}{_UNITS.get(limit, '')}"


def budget_raised(user: str, noun: str, amount: str) -> str:
    """The thread's notice that ``user`` raised a limit and the turn goes on."""
    return f"<@{user}> raised the {noun} budget to {amount}; going on"


def cost_uncounted(model: str, instead: str) -> str:
    """Why a cost limit is not set: the task's model has no price, so its cost stays $0.00.

    ``instead`` is the command that limits tokens (``/task budget tokens 20k``).
    """
    which = f"the model `{neutral(model)}`" if model else "this task's model"
    return (
        f"a cost limit cannot be counted here: {which} has no price (an operator sets "
        f"prices in HARNESS_MODEL_PRICES), so the cost would stay $0.00 and never reach "
        f"the limit; limit tokens instead: `{instead}`"
    )


def cost_not_counted(model: str) -> str:
    """The line under a budget whose cost limit cannot be reached (no price for ``model``)."""
    which = f"`{neutral(model)}`" if model else "this task's model"
    return f"note: the cost is not counted, {which} has no price (HARNESS_MODEL_PRICES)"


def budget_shown(described: str, note: str, synopsis: str) -> str:
    """``/task budget``: the budget (``described``), a note under it, who sets limits, how."""
    under = "\n" + note if note else ""
    return f"budget: {described}{under}\nthe owner sets limits with `{synopsis}` (0: no limit)"


def budget_unchanged(described: str) -> str:
    """``/task budget`` that changes no limit."""
    return f"the budget is already so: {described}"


def budget_set(user: str, changes: tuple[tuple[str, str], ...]) -> str:
    """Who set which limits (``changes``: each limit as typed, and its size, ``""``: none)."""
    said = ", ".join(f"{typed} {size or 'no limit'}" for typed, size in changes)
    return f"<@{user}> set the budget: {said}"
