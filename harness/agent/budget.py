"""A task's budget: tokens, tool calls and cost counted as the loop runs, and what a limit does.

The loop counts what ``llm.invoked`` (its response's usage, priced by
``HARNESS_MODEL_PRICES``) and ``tool.invoked`` report, and what a named agent's or a
sub-task's run used; at 80 % of a limit the thread is told once, and before the next
model or tool call a used-up limit is a question to the task's **owner** (a help request
of kind ``budget``: raise it, or stop). The task waits for the answer rather than fails;
"stop" (or no answer in time) ends the turn with an honest reply. Deterministic (it runs in
workflow code): the limits are the task's state, set from the worker's defaults
(:class:`~harness.agent.state.LoopDefaults`) and by ``/task budget`` (the workflow applies
:func:`with_limit`). :func:`describe` is how the status view and ``/task budget`` print it.
Not the hooks file's chain budget (time per chain, :mod:`harness.hooks.monitors.budget`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final, Protocol

from harness import replies
from harness.agent.state import AgentState, LoopIdentity
from harness.domain import (
    BUDGET_LIMITS,
    BudgetLimit,
    BudgetUsage,
    HelpDecision,
    HelpRequest,
    ModelPrice,
    Role,
    Usage,
)
from harness.errors import HarnessError

Limit = BudgetLimit
"""A limit's name (the domain's :data:`~harness.domain.BudgetLimit`, which a ``set_budget``
effect carries)."""

LIMITS: Final[tuple[Limit, ...]] = BUDGET_LIMITS
MODEL_LIMITS: Final[tuple[Limit, ...]] = ("tokens", "cost")
"""What a model call spends: checked before each one."""
TOOL_LIMITS: Final[tuple[Limit, ...]] = ("tool_calls",)
"""What a tool call spends: checked before each one (a named agent's run: every limit)."""
NOTICE_AT: Final = 0.8
"""The share of a limit at which the thread is told (once per limit and size)."""

STOP: Final = replies.STOP_HERE
_FIELDS: Final[dict[Limit, tuple[str, str]]] = {
    "tokens": ("tokens", "token_limit"),
    "tool_calls": ("tool_calls", "tool_call_limit"),
    "cost": ("cost", "cost_limit"),
}
_NOUN: Final[dict[Limit, str]] = {"tokens": "token", "tool_calls": "tool-call", "cost": "cost"}
TYPED: Final[dict[Limit, str]] = {"tokens": "tokens", "tool_calls": "tool-calls", "cost": "cost"}
"""How ``/task budget`` spells each limit."""


class BudgetSpent(HarnessError):
    """A limit is used up and the owner chose to stop (or nobody answered): the turn ends.

    Raised before a model or tool call and caught by the loop's ``handle``, whose reply
    is :attr:`reply`; it never leaves the loop.
    """

    def __init__(self, *, limit: Limit, usage: BudgetUsage, timed_out: bool = False) -> None:
        self.limit = limit
        self.usage = usage
        self.timed_out = timed_out
        self.reply = replies.budget_spent(
            _NOUN[limit],
            amount(limit, limit_of(usage, limit)),
            f"/task budget {TYPED[limit]} N",
            timed_out=timed_out,
        )
        super().__init__(self.reply)

    @property
    def retryable(self) -> bool:
        """A person decided: another attempt would ask again, not help."""
        return False

    @property
    def user_message(self) -> str:
        """The honest reply."""
        return self.reply


class Notifier(Protocol):
    """Where a notice goes (the loop's :class:`~harness.agent.loop_steps.HelpWaiter`)."""

    async def notify(self, text: str) -> None:
        """Say ``text`` in the task's thread."""
        ...


class Steps(Protocol):
    """What the budget needs of the loop: its state, who is in it, and how it asks people."""

    state: AgentState
    identity: LoopIdentity

    @property
    def waiter(self) -> Notifier:
        """Tells the thread."""
        ...

    async def decide(self, request: HelpRequest) -> HelpDecision:
        """``help.requested``, then wait until ``help.decided`` accepts an answer."""
        ...


def used(usage: BudgetUsage, limit: Limit) -> float:
    """What ``usage`` used of ``limit``."""
    return float(getattr(usage, _FIELDS[limit][0]))


def limit_of(usage: BudgetUsage, limit: Limit) -> float:
    """The size of ``limit`` (0: no limit)."""
    return float(getattr(usage, _FIELDS[limit][1]))


COST_STEP: Final = 0.000001
"""The finest cost limit, in USD: a millionth of a dollar (a token of a cheap model)."""


def cost_limit(size: float) -> float:
    """A cost limit as kept: to the cent from a dollar up, else to :data:`COST_STEP`.

    Any positive size stays positive (issue 26: ``cost 0.004`` became "no limit"); one
    below :data:`COST_STEP` is that step.
    """
    if size <= 0:
        return 0.0
    return round(size, 2) if size >= 1 else max(round(size, 6), COST_STEP)


def with_limit(usage: BudgetUsage, limit: Limit, size: float) -> BudgetUsage:
    """``usage`` with ``limit`` set to ``size`` (0: no limit); what ``set_budget`` applies."""
    value: float = cost_limit(size) if limit == "cost" else int(size)
    return usage.model_copy(update={_FIELDS[limit][1]: max(value, 0)})


def added(usage: BudgetUsage, other: BudgetUsage) -> BudgetUsage:
    """``usage`` plus what ``other`` used (a named agent's or a sub-task's run); limits kept."""
    return usage.model_copy(
        update={
            "tokens": usage.tokens + other.tokens,
            "tool_calls": usage.tool_calls + other.tool_calls,
            "cost": usage.cost + other.cost,
        }
    )


def spent_since(usage: BudgetUsage, before: BudgetUsage) -> BudgetUsage:
    """What ``usage`` used beyond ``before`` (a running sub-task's report since its last one);
    never below zero, no limits."""
    return BudgetUsage(
        tokens=max(usage.tokens - before.tokens, 0),
        tool_calls=max(usage.tool_calls - before.tool_calls, 0),
        cost=max(usage.cost - before.cost, 0.0),
    )


def price_of(prices: Mapping[str, ModelPrice], model: str) -> ModelPrice | None:
    """The price of ``model``: by its name, else without its provider (``openai/gpt-4o``)."""
    return prices.get(model) or prices.get(model.rsplit("/", 1)[-1])


def cost_of(tokens: Usage, price: ModelPrice | None) -> float:
    """What ``tokens`` cost at ``price`` (0 when the model has no price)."""
    if price is None:
        return 0.0
    return (tokens.input_tokens * price.input + tokens.output_tokens * price.output) / 1_000_000


def counted(
    usage: BudgetUsage,
    *,
    tokens: Usage | None = None,
    price: ModelPrice | None = None,
    tool_calls: int = 0,
) -> BudgetUsage:
    """``usage`` after one model call's ``tokens`` (priced) and ``tool_calls`` tool calls."""
    spent = tokens or Usage()
    return added(
        usage,
        BudgetUsage(
            tokens=spent.input_tokens + spent.output_tokens,
            tool_calls=tool_calls,
            cost=cost_of(spent, price),
        ),
    )


def amount(limit: Limit, value: float) -> str:
    """``10,000`` tokens or tool calls; ``$5.00``, or ``$0.0045`` below a dollar, of cost.

    Below a cent a cost keeps the places it needs (``$0.000002``), so no limit kept reads
    as ``$0.00``.
    """
    if limit != "cost":
        return f"{int(value):,}"
    if value >= 1 or value == 0:
        return f"${value:,.2f}"
    fine = f"{value:.{4 if value >= 0.0001 else 6}f}".rstrip("0")
    return f"${fine if len(fine.split('.')[1]) >= 2 else f'{value:.2f}'}"


def share(usage: BudgetUsage, limit: Limit) -> int:
    """How much of ``limit`` is used, in whole percent (rounded down; 0 with no limit)."""
    size = limit_of(usage, limit)
    return int(used(usage, limit) * 100 / size + 1e-9) if size else 0


def describe(usage: BudgetUsage) -> str:
    """``tokens 8,120 of 10,000 (81 %) · tool calls 3 of 20``; cost when priced or limited."""
    parts = []
    for limit in LIMITS:
        spent, size = used(usage, limit), limit_of(usage, limit)
        if limit == "cost" and not spent and not size:
            continue
        name = TYPED[limit].replace("-", " ")
        shown = amount(limit, size) if size else ""
        parts.append(replies.limit_used(name, amount(limit, spent), shown, share(usage, limit)))
    return " · ".join(parts)


def spent_limit(usage: BudgetUsage, limits: tuple[Limit, ...] = LIMITS) -> Limit | None:
    """The first of ``limits`` that ``usage`` has used up, if any."""
    for limit in limits:
        size = limit_of(usage, limit)
        if size and used(usage, limit) >= size:
            return limit
    return None


def exceeded(usage: BudgetUsage) -> Limit | None:
    """The first limit ``usage`` has gone past (not only reached: the call that reached it
    was allowed), if any."""
    for limit in LIMITS:
        size = limit_of(usage, limit)
        if size and used(usage, limit) > size:
            return limit
    return None


def raised(usage: BudgetUsage, limit: Limit) -> float:
    """The size offered when ``limit`` is used up: double, and more than what is used."""
    size = limit_of(usage, limit)
    bigger = size * 2
    while bigger <= used(usage, limit):
        bigger += size
    return bigger


def owner_of(identity: LoopIdentity) -> str:
    """The task's owner (``""`` when the loop's participants name none)."""
    return next((p.user_id for p in identity.participants if p.role is Role.OWNER), "")


def notices(usage: BudgetUsage, told: list[str]) -> list[str]:
    """What to tell the thread of limits newly 80 % used; each is added to ``told``.

    A limit passed in one step (a long model call) is not announced: the question to the
    owner before the next call says it.
    """
    texts = []
    for limit in LIMITS:
        size = limit_of(usage, limit)
        key = f"{limit}:{size:g}"
        if not size or key in told or share(usage, limit) < NOTICE_AT * 100:
            continue
        told.append(key)
        if used(usage, limit) >= size:
            continue  # past it already: the owner is asked at the next call instead
        texts.append(
            replies.heads_up(
                share(usage, limit),
                _NOUN[limit],
                amount(limit, used(usage, limit)),
                amount(limit, size),
            )
        )
    return texts


async def count(
    steps: Steps,
    *,
    tokens: Usage | None = None,
    model: str = "",
    tool_calls: int = 0,
    usage: BudgetUsage | None = None,
) -> None:
    """Add one model call, tool calls, or another run's ``usage`` to the task's budget."""
    state = steps.state
    price = price_of(state.prices, model) if tokens is not None else None
    state.budget = counted(state.budget, tokens=tokens, price=price, tool_calls=tool_calls)
    if usage is not None:
        state.budget = added(state.budget, usage)
    await tell(steps)


async def tell(steps: Steps) -> None:
    """Tell the thread of each limit newly 80 % used (once per limit and size)."""
    for text in notices(steps.state.budget, steps.state.budget_told):
        await steps.waiter.notify(text)


async def gate(steps: Steps, limits: tuple[Limit, ...] = LIMITS) -> None:
    """Before a model or tool call: while one of ``limits`` is used up, ask the owner to raise it.

    A model call checks :data:`MODEL_LIMITS`, a tool call :data:`TOOL_LIMITS`: the last tool
    call a limit allows still gets its result read by the model.

    Raises:
        BudgetSpent: the owner chose to stop, or nobody answered in time.
    """
    await tell(steps)  # a sub-task's usage arrives between calls
    state = steps.state
    while (limit := spent_limit(state.budget, limits)) is not None:
        size, bigger = limit_of(state.budget, limit), raised(state.budget, limit)
        owner = owner_of(steps.identity)
        raise_to = replies.raise_to(limit, amount(limit, bigger))
        decision = await steps.decide(
            HelpRequest(
                request_id=f"budget-{steps.identity.task.task_id}-{state.sequence + 1}",
                kind="budget",
                question=replies.budget_question(
                    owner,
                    _NOUN[limit],
                    amount(limit, size),
                    amount(limit, used(state.budget, limit)),
                ),
                options=(raise_to, STOP),
            )
        )
        choice = decision.choice.strip().lower()
        if decision.timed_out or not (choice == raise_to.lower() or choice.startswith("raise")):
            raise BudgetSpent(limit=limit, usage=state.budget, timed_out=decision.timed_out)
        # A ``/task budget`` while the question was open may have raised it further: keep that.
        bigger = max(bigger, limit_of(state.budget, limit))
        state.budget = with_limit(state.budget, limit, bigger)
        await steps.waiter.notify(
            replies.budget_raised(decision.decided_by, _NOUN[limit], amount(limit, bigger))
        )
