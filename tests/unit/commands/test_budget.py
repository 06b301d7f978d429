"""``/task budget``: anyone sees what the task used; the owner sets its limits."""

from __future__ import annotations

import pytest

from commands import UsageError, budget, register_all
from harness.domain import BudgetUsage, ModelPrice, SetBudget
from harness.hooks import HookManager
from tests.unit.commands.running import run_command

from .conftest import MODELS, SNAPSHOT

USED = SNAPSHOT.model_copy(
    update={
        "budget": BudgetUsage(tokens=8120, token_limit=10_000, tool_calls=3, tool_call_limit=20)
    }
)


async def test_bare_shows_the_budget_to_a_watcher(manager, ctx):
    result = await run_command(manager, ctx("budget", sender="UWATCH", snapshot=USED))
    assert result.reply.splitlines() == [
        "budget: tokens 8,120 of 10,000 (81 %) · tool calls 3 of 20 (15 %)",
        "the owner sets limits with `/task budget [tokens N | tool-calls N | cost X]` "
        "(0: no limit)",
    ]
    assert result.effects == ()


@pytest.mark.parametrize(
    ("text", "limits"),
    [
        ("tokens 20k", (("tokens", 20_000),)),
        ("tokens 1.5m", (("tokens", 1_500_000),)),
        ("Tokens 20,000", (("tokens", 20_000),)),
        ("tool-calls 30", (("tool_calls", 30),)),
        ("cost $5", (("cost", 5.0),)),
        ("cost 2.555", (("cost", 2.56),)),
        ("cost 0.004", (("cost", 0.004),)),  # issue 26: was rounded to "no limit"
        ("cost $0.0000001", (("cost", 0.000001),)),  # the finest limit, never none
        ("tokens off", (("tokens", 0),)),
        ("tokens 0 tool-calls 50 cost $1.5", (("tokens", 0), ("tool_calls", 50), ("cost", 1.5))),
        ("", ()),
    ],
    ids=repr,
)
def test_parse_sizes_sensibly(text, limits):
    assert budget.parse(text).limits == limits


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("tokens", "give each limit a size, e.g. `tokens 20k`"),
        ("money 5", "`money` is not a limit; use tokens, tool-calls or cost"),
        ("tokens lots", "`lots` is not a size for tokens (like `20k`)"),
        ("tokens -5", "`-5` is not a size for tokens (like `20k`)"),
        ("tool-calls $5", "`$5` is not a size for tool-calls (like `20k`)"),
        ("tokens 1.0005k", "tokens take a whole number up to 1,000,000,000,000"),
        ("cost <!here>", "`&lt;!here&gt;` is not a size for cost (like `$5`)"),
    ],
    ids=repr,
)
def test_parse_refuses_with_the_usage(text, problem):
    with pytest.raises(UsageError) as raised:
        budget.parse(text)
    assert raised.value.problem == problem
    assert raised.value.usage == "/task budget [tokens N | tool-calls N | cost X]"


@pytest.fixture
def priced() -> HookManager:
    """The commands with the offline model priced (``HARNESS_MODEL_PRICES``)."""
    manager = HookManager()
    register_all(manager, models=MODELS, model_prices={"offline": ModelPrice(input=1, output=2)})
    return manager


async def test_the_owner_sets_limits_one_effect_each(priced, ctx):
    result = await run_command(
        priced, ctx("budget", "tokens 20k tool-calls 20 cost $5", snapshot=USED)
    )
    assert result.effects == (
        SetBudget(limit="tokens", amount=20_000, user_id="UOWNER"),
        SetBudget(limit="cost", amount=5.0, user_id="UOWNER"),
    )  # tool calls were already 20
    assert result.reply == "<@UOWNER> set the budget: tokens 20,000, cost $5.00"
    assert result.public


async def test_zero_removes_a_limit_and_an_unchanged_one_is_said(manager, ctx):
    off = await run_command(manager, ctx("budget", "tokens 0", snapshot=USED))
    assert off.reply == "<@UOWNER> set the budget: tokens no limit"
    same = await run_command(manager, ctx("budget", "tool-calls 20", snapshot=USED))
    assert same.effects == () and same.reply.startswith("the budget is already so: tokens 8,120")


@pytest.mark.parametrize("sender", ["UCOLLAB", "UWATCH"])
async def test_only_the_owner_sets_limits(manager, ctx, sender):
    result = await run_command(manager, ctx("budget", "tokens 1m", sender=sender))
    assert result.reply == "refused: only the task's owner can use `/task budget`"
    assert result.effects == ()


async def test_a_bad_size_is_a_usage_reply_with_no_effect(manager, ctx):
    result = await run_command(manager, ctx("budget", "tokens many"))
    assert result.effects == ()
    assert result.reply == (
        "`many` is not a size for tokens (like `20k`)\n"
        "usage: `/task budget [tokens N | tool-calls N | cost X]`"
    )


async def test_a_cost_limit_below_a_cent_is_kept_and_said_as_it_is(priced, ctx):
    result = await run_command(priced, ctx("budget", "cost 0.004", snapshot=USED))
    assert result.effects == (SetBudget(limit="cost", amount=0.004, user_id="UOWNER"),)
    assert result.reply == "<@UOWNER> set the budget: cost $0.004"


async def test_a_cost_limit_nobody_can_count_is_refused_in_words(manager, ctx):
    """No price for the task's model: its cost stays $0.00, the limit would never be reached."""
    result = await run_command(manager, ctx("budget", "tokens 20k cost $5", snapshot=USED))
    assert result.effects == ()
    assert result.reply == (
        "a cost limit cannot be counted here: the model `offline` has no price (an operator "
        "sets prices in HARNESS_MODEL_PRICES), so the cost would stay $0.00 and never reach "
        "the limit; limit tokens instead: `/task budget tokens 20k`"
    )
    off = await run_command(manager, ctx("budget", "cost 0", snapshot=USED))
    assert off.effects == () and off.reply.startswith("the budget is already so")


async def test_a_budget_whose_cost_is_not_counted_says_so(manager, priced, ctx):
    limited = SNAPSHOT.model_copy(update={"budget": BudgetUsage(cost_limit=5.0)})
    shown = await run_command(manager, ctx("budget", sender="UWATCH", snapshot=limited))
    assert shown.reply.splitlines()[:2] == [
        "budget: tokens 0 (no limit) · tool calls 0 (no limit) · cost $0.00 of $5.00 (0 %)",
        "note: the cost is not counted, `offline` has no price (HARNESS_MODEL_PRICES)",
    ]
    counted = await run_command(priced, ctx("budget", sender="UWATCH", snapshot=limited))
    assert "note:" not in counted.reply
