"""Budgets in the loop, in-process with the offline model: counting, the 80 % notice, the owner
asked at a limit, a raise resuming, a stop ending honestly, named agents' usage, cost."""

from __future__ import annotations

import pytest

from harness.agent import budget
from harness.agent.loop import AgentLoop
from harness.agent.loop_steps import HelpAnswer
from harness.agent.operations import InProcess
from harness.agent.profiles import AgentProfile
from harness.agent.state import AgentState, LoopDefaults, LoopIdentity
from harness.bodies import catalogue_of
from harness.bodies.plan import AgentBodies
from harness.domain import BudgetUsage, ModelPrice, Participant, Role, TaskRef, Usage

from .conftest import PARTICIPANTS, ScriptedPeople, make_loop

ECHO = 'call echo {"text": "hi"}'
"""One tool call: two model calls (the call, then the answer with its result)."""


def fix_usage(manager, operation: str, usage: Usage) -> None:
    """Make every ``operation`` report ``usage`` (a post replacement of its result's usage)."""

    async def fixed(ctx):
        result = ctx.result.model_copy(update={"usage": usage})
        return ctx.model_copy(update={"result": result})

    manager.register(f"{operation}.post", fixed, priority=10)


@pytest.fixture
def metered(manager):
    """Every main model call reports 1,000 input and 200 output tokens; triage and planning
    none (they are counted in their own test)."""
    fix_usage(manager, "llm.invoked", Usage(input_tokens=1000, output_tokens=200))
    fix_usage(manager, "system_one.invoked", Usage())
    fix_usage(manager, "plan.created", Usage())
    return manager


def limited(metered, people, tools, **limits) -> AgentLoop:
    loop = make_loop(metered, people, tools)
    loop.state.budget = BudgetUsage(**limits)
    return loop


def tool_runs(trace) -> int:
    return len(trace.contexts("tool.invoked.in"))


def model_calls(trace) -> int:
    return len(trace.contexts("llm.invoked.in"))


async def test_model_tokens_and_tool_calls_are_counted(metered, people, tools):
    loop = make_loop(metered, people, tools)
    await loop.handle(ECHO)
    assert loop.state.budget == BudgetUsage(tokens=2400, tool_calls=1)
    assert people.asked == [] and people.notices == []


async def test_triage_and_planning_tokens_are_counted_with_their_model(metered, people, tools):
    fix_usage(metered, "system_one.invoked", Usage(input_tokens=100, output_tokens=10))
    fix_usage(metered, "plan.created", Usage(input_tokens=300, output_tokens=50))
    prices = {"offline/fast": ModelPrice(input=1.0), "offline": ModelPrice(output=2.0)}
    loop = make_loop(metered, people, tools, prices=prices, system_one_model="offline/fast")
    await loop.handle("plan: think it over")
    assert loop.state.budget.tokens == 110 + 350 + 1200  # triage, plan, the step's model call
    # Triage priced as the fast model (100 in at $1/M), the rest as the task's (output at $2/M).
    assert loop.state.budget.cost == pytest.approx((100 * 1.0 + 50 * 2.0 + 200 * 2.0) / 1e6)


async def test_the_last_tool_call_a_limit_allows_is_read_by_the_model(
    metered, people, tools, trace
):
    loop = limited(metered, people, tools, tool_call_limit=1)
    assert await loop.handle(ECHO) == "Tool results:\n- echo: hi"
    assert people.asked == [] and model_calls(trace) == 2


async def test_a_new_request_past_a_limit_asks_before_triage(metered, people, tools, trace):
    loop = limited(metered, people, tools, tokens=1000, token_limit=1000)
    people.answers = [HelpAnswer(decided_by="U_OWNER", choice="Stop here")]
    reply = await loop.handle("hello there")
    assert trace.contexts("system_one.invoked.in") == []
    assert reply.startswith("stopped: the token budget of 1,000 is used up")


async def test_at_80_percent_the_thread_is_told_once(metered, people, tools):
    loop = limited(metered, people, tools, token_limit=3000)
    await loop.handle(ECHO)  # 1,200 then 2,400 of 3,000: 80 % on the second call
    assert people.notices == [
        "heads-up: this task has used 80 % of its token budget (2,400 of 3,000); at the limit "
        "its owner is asked whether to go on"
    ]
    loop.state.budget = loop.state.budget.model_copy(update={"tokens": 2500})
    await budget.count(loop, tool_calls=1)
    assert len(people.notices) == 1  # told once per limit


async def test_at_the_limit_the_owner_is_asked_and_a_raise_resumes(metered, people, tools, trace):
    loop = limited(metered, people, tools, token_limit=1000)
    people.answers = [HelpAnswer(decided_by="U_OWNER", choice="Raise to 2,000 tokens")]
    reply = await loop.handle(ECHO)
    (asked,) = people.asked
    assert asked.kind == "budget"
    assert asked.options == ("Raise to 2,000 tokens", "Stop here")
    assert asked.question == (
        "<@U_OWNER>, the token budget of 1,000 is used up (1,200 used). Raise it, or stop here?"
    )
    assert tool_runs(trace) == 1 and reply == "Tool results:\n- echo: hi"  # it went on
    assert loop.state.budget.token_limit == 2000
    assert people.accepted_by == ["U_OWNER"]
    assert "<@U_OWNER> raised the token budget to 2,000; going on" in people.notices


async def test_stop_ends_the_turn_with_an_honest_reply(metered, people, tools, trace):
    loop = limited(metered, people, tools, token_limit=1000)
    people.answers = [HelpAnswer(decided_by="U_OWNER", choice="Stop here")]
    reply = await loop.handle(ECHO)
    assert reply == (
        "stopped: the token budget of 1,000 is used up; `/task budget tokens N` raises it"
    )
    # A token limit holds model calls: the tool ran, the model never read its result.
    assert (tool_runs(trace), model_calls(trace)) == (1, 1)
    assert loop.state.transcript[-1].content == reply
    assert loop.state.budget.token_limit == 1000


async def test_no_answer_in_time_stops_and_says_so(metered, people, tools, trace):
    loop = limited(metered, people, tools, token_limit=1000)
    people.answers = [HelpAnswer(decided_by="", choice="", timed_out=True)]
    reply = await loop.handle(ECHO)
    assert reply == (
        "stopped: the token budget of 1,000 is used up and nobody answered in "
        "time; `/task budget tokens N` raises it"
    )
    assert people.refusals == [] and model_calls(trace) == 1


async def test_a_raise_keeps_a_larger_limit_set_while_the_question_was_open(metered, people, tools):
    loop = limited(metered, people, tools, token_limit=1000)

    async def owner_meanwhile_sets(request):
        people.asked.append(request)
        loop.state.budget = budget.with_limit(loop.state.budget, "tokens", 50_000)
        return HelpAnswer(decided_by="U_OWNER", choice="Raise to 2,000 tokens")

    people.wait = owner_meanwhile_sets
    await loop.handle(ECHO)
    assert loop.state.budget.token_limit == 50_000 and len(people.asked) == 1


async def test_a_tool_call_limit_is_asked_before_the_next_tool_call(metered, people, tools, trace):
    loop = limited(metered, people, tools, tool_call_limit=1)
    people.answers = [HelpAnswer(decided_by="U_OWNER", choice="stop here")]
    reply = await loop.handle('call echo {"text": "a"} call echo {"text": "b"}')
    assert tool_runs(trace) == 1 and len(people.asked) == 1
    assert people.asked[0].options == ("Raise to 2 tool calls", "Stop here")
    assert reply == (
        "stopped: the tool-call budget of 1 is used up; `/task budget tool-calls N` raises it"
    )


async def test_only_the_owner_may_answer_a_budget_question(metered, tools, trace):
    people = ScriptedPeople(
        answers=[
            HelpAnswer(decided_by="U_WATCHER", choice="Raise to 2,000 tokens"),
            HelpAnswer(decided_by="U_COLLAB", choice="Raise to 2,000 tokens"),
            HelpAnswer(decided_by="U_OWNER", choice="Stop here"),
        ]
    )
    with_collaborator = (*PARTICIPANTS, Participant(user_id="U_COLLAB", role=Role.COLLABORATOR))
    state = AgentState(
        model="offline", catalogue=catalogue_of(tools), budget=BudgetUsage(token_limit=1000)
    )
    identity = LoopIdentity(task=TaskRef(task_id="T1"), participants=with_collaborator)
    reply = await AgentLoop(InProcess(metered), people, state, identity).handle(ECHO)
    assert [who for who, _ in people.refusals] == ["U_WATCHER", "U_COLLAB"]
    assert all("only the task's owner can raise its budget" in why for _, why in people.refusals)
    assert people.accepted_by == ["U_OWNER"]
    assert reply.startswith("stopped: the token budget of 1,000 is used up")
    assert model_calls(trace) == 1


async def test_a_named_agents_usage_is_counted(metered, people, tools, trace):
    loop = make_loop(metered, people, tools)
    await loop.handle(f"plan: @reviewer {ECHO}")
    (invoked,) = trace.contexts("agent.invoked.post")
    assert invoked.result.usage == BudgetUsage(tokens=2400, tool_calls=1)
    assert loop.state.budget == BudgetUsage(tokens=2400, tool_calls=1)


async def test_a_named_agent_waits_for_the_budget_before_it_starts(metered, people, tools, trace):
    loop = limited(metered, people, tools, tokens=5000, token_limit=5000)
    people.answers = [HelpAnswer(decided_by="U_OWNER", choice="Stop here")]
    reply = await loop.handle(f"plan: @reviewer {ECHO}")
    assert trace.contexts("agent.invoked.in") == []
    assert reply.startswith("stopped: the token budget of 5,000 is used up")


async def test_cost_is_counted_from_the_models_prices(metered, people, tools):
    prices = {"offline": ModelPrice(input=2.5, output=10.0)}
    loop = make_loop(metered, people, tools, prices=prices)
    loop.state.budget = BudgetUsage(cost_limit=0.01)
    people.answers = [HelpAnswer(decided_by="U_OWNER", choice="Stop here")]
    await loop.handle(ECHO)
    # (1,000 x 2.5 + 200 x 10) / 1e6 = $0.0045 a call; two calls: 90 % of $0.01.
    assert loop.state.budget.cost == pytest.approx(0.009)
    assert people.notices[0].startswith(
        "heads-up: this task has used 90 % of its cost budget ($0.009 of $0.01)"
    )
    assert people.asked == []  # under the limit: nobody asked


async def test_a_named_agents_cost_is_priced_too(metered, people, tools):
    """The worker's prices reach the named agent's own loop (AgentBodies, from LoopDefaults)."""
    bodies = AgentBodies(
        manager=metered,
        agents={"reviewer": AgentProfile(tools=("echo",))},
        catalogue=catalogue_of(tools),
        default_model="offline",
        prices={"offline": ModelPrice(input=2.5, output=10.0)},
    )
    metered.register("agent.invoked.in", bodies.agent_invoked, priority=10)  # before the default
    loop = make_loop(metered, people, tools)
    await loop.handle(f"plan: @reviewer {ECHO}")
    assert loop.state.budget.cost == pytest.approx(0.009)
    assert loop.state.budget.tokens == 2400


def test_loop_defaults_give_a_task_its_limits_once_and_prices_every_run():
    prices = {"gpt-x": ModelPrice(input=1, output=2)}
    defaults = LoopDefaults(
        budget=BudgetUsage(token_limit=10_000, tool_call_limit=20), model_prices=prices
    )
    state = AgentState()
    defaults.apply(state)
    assert (state.budget.token_limit, state.budget.tool_call_limit) == (10_000, 20)
    assert state.prices == prices
    state.budget = budget.with_limit(state.budget, "tokens", 50_000)  # /task budget tokens 50k
    LoopDefaults(budget=BudgetUsage(token_limit=1)).apply(state)  # the next run (continue-as-new)
    assert state.budget.token_limit == 50_000 and state.prices == {}


def test_limits_raise_and_add():
    usage = BudgetUsage(tokens=4500, token_limit=1000, cost=0.5, cost_limit=0.25)
    assert budget.raised(usage, "tokens") == 5000  # doubled, and past what is used
    assert budget.raised(usage, "cost") == 0.75
    assert budget.spent_limit(usage) == "tokens"
    child = BudgetUsage(tokens=10, tool_calls=2, cost=0.01, token_limit=99)
    assert budget.added(usage, child) == usage.model_copy(
        update={"tokens": 4510, "tool_calls": 2, "cost": 0.51}
    )
    assert budget.with_limit(usage, "cost", 1.234).cost_limit == 1.23
    assert budget.with_limit(usage, "tool_calls", -3).tool_call_limit == 0
    assert budget.price_of({"gpt-4o": ModelPrice(input=1)}, "openai/gpt-4o") == ModelPrice(input=1)
