"""Issue 26 end to end: a cost limit on a model with no price is refused in words, or noted.

With no price for the task's model (``HARNESS_MODEL_PRICES``) its cost stays $0.00, so a cost
limit would never be reached: ``/task budget cost $5`` is refused with what to do instead
(only its sender reads it, nothing changes), and a budget that has one (the worker's
``HARNESS_BUDGET_COST``, priced for another model) says it is not counted; on a priced model
the same command sets the limit. Real bot over HTTP, real worker, real dev server.
"""

from __future__ import annotations

import re

import pytest

from harness.config import Settings

from .conftest import posting_to, serve_bot
from .threads import WATCHER, Thread, command_as, snapshot

REFUSED = (
    "a cost limit cannot be counted here: the model `offline` has no price (an operator "
    "sets prices in HARNESS_MODEL_PRICES), so the cost would stay $0.00 and never reach "
    "the limit; limit tokens instead: `/task budget tokens 20k`"
)
NOTE = "note: the cost is not counted, `offline` has no price (HARNESS_MODEL_PRICES)"


@pytest.fixture
def prices() -> dict:
    return {}


@pytest.fixture
def settings(settings: Settings, bot_port, prices) -> Settings:
    cost = {"model_prices": prices, "budget_cost": 5.0} if prices else {}
    return posting_to(settings, bot_port, **cost)


@pytest.fixture
async def slack(harness, tmp_path, bot_port, worker):
    async for sender in serve_bot(harness, tmp_path, port=bot_port):
        yield sender


async def started(slack, harness) -> Thread:
    thread = Thread(slack, harness)
    await thread.start("hello")
    await thread.until_posted("(offline) hello")
    await thread.invite()
    return thread


async def test_a_cost_limit_on_a_model_with_no_price_is_refused_and_changes_nothing(slack, harness):
    thread = await started(slack, harness)
    for typed in ("cost $5", "cost 0.004", "tokens 20k cost $5"):
        said = await thread.slash(f"/task budget {typed}")
        assert said == REFUSED, (typed, said)
    budget = (await snapshot(slack, thread)).budget
    assert (budget.cost_limit, budget.token_limit) == (0.0, 0)  # all or nothing: no limit set
    # Said to the sender only; in the thread, only the invitations.
    assert not any("budget" in p or "cost" in p for p in thread.posts())
    # What it points to works, and the budget shows no cost it cannot count.
    said = await thread.slash("/task budget tokens 20k")
    assert said.endswith("<@U0OWNER> set the budget: tokens 20,000"), said
    shown = await command_as(slack, thread, WATCHER, "/task budget")
    assert re.match(r"budget: tokens \d+ of 20,000 \(\d %\) · tool calls 0 \(no limit\)\n", shown)
    assert "cost $" not in shown and "note:" not in shown, shown


@pytest.mark.parametrize("prices", [{"gpt-x": {"input": 1.0, "output": 2.0}}])
async def test_a_default_cost_limit_not_counted_for_the_tasks_model_is_noted(slack, harness):
    thread = await started(slack, harness)
    assert (await snapshot(slack, thread)).budget.cost_limit == 5.0  # the worker's default
    shown = (await command_as(slack, thread, WATCHER, "/task budget")).splitlines()
    assert shown[0].endswith("cost $0.00 of $5.00 (0 %)") and shown[1] == NOTE, shown
    assert await thread.slash("/task budget cost $6") == REFUSED
    # On a model with a price, the same command sets the limit.
    said = await thread.slash("/model gpt-x")
    assert "gpt-x" in said, said
    said = await thread.slash("/task budget cost $6")
    assert said.endswith("<@U0OWNER> set the budget: cost $6.00"), said
    assert (await snapshot(slack, thread)).budget.cost_limit == 6.0
    shown = await command_as(slack, thread, WATCHER, "/task budget")
    assert "cost $0.00 of $6.00" in shown and "note:" not in shown, shown
