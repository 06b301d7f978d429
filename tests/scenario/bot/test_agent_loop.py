"""Issue 5 end to end: the agent loop in the real worker, driven through the real bot.

Signed recorded Slack payloads (mentions, thread replies, slash commands, a
``block_actions`` click) go over HTTP to the bolt app; the worker (real dev server)
answers through the bot's own Slack stand-in, and a replay server stands in for the
OpenAI-compatible and Anthropic APIs. Two tasks cover every path: channel A talks to
the vendors (``/model``, ``/effort``, tool calls, a veto, a rewrite, a failing attempt,
a slow call, an ``in`` replacement), channel B uses the offline model (skills, a plan
with a named agent, a sub-task, compaction, a help question across a worker restart).
"""

from __future__ import annotations

import asyncio
import json
import time
import uuid
from urllib.parse import urlencode

import pytest
from pydantic import SecretStr

from bot.config import STANDIN_PATH
from commands import register_all
from harness.agent.prompts import SUMMARY_PREFIX
from harness.agent.tokens import estimate_tokens
from harness.config import Settings
from harness.domain import LlmResponse
from harness.hooks import OPERATIONS, HookAbort
from harness.hooks.contexts import context_type
from harness.temporal.worker import build_manager, serve
from tests.integration.temporal.conftest import Recorder
from tests.support.replay_server import ReplayServer

from .conftest import FIXTURES, MODELS, TEAM, free_port, serve_bot

OWNER, WATCHER = "U0OWNER", "U0WATCH"
BUDGET = 1500


@pytest.fixture
async def replay():
    async with ReplayServer() as server:
        yield server


@pytest.fixture
def bot_port() -> int:
    return free_port()


@pytest.fixture
def settings(settings: Settings, replay, bot_port) -> Settings:
    """The shared test settings, pointed at the replay server and this test's bot stand-in."""
    return settings.model_copy(
        update={
            "models": ["offline", "gpt-x", "claude-y"],  # new tasks start on the offline model
            "openai_base_url": replay.openai_base_url,
            "anthropic_api_key": SecretStr("test-anthropic-key"),
            "anthropic_base_url": replay.url,
            "slack_api_url": f"http://127.0.0.1:{bot_port}{STANDIN_PATH}",
            "agent_token_budget": BUDGET,
            "compaction_keep_last": 4,
        }
    )


@pytest.fixture
async def slack(harness, tmp_path, bot_port):
    """The bot at ``bot_port`` (the workers below post to its stand-in); no worker of its own."""
    async for sender in serve_bot(harness, tmp_path, port=bot_port):
        yield sender


def make_manager(settings, store, recorder: Recorder, seen_args: list):
    manager = build_manager(settings, store.database)
    register_all(manager, models=MODELS)
    recorder.attach(manager, OPERATIONS)

    async def policy(ctx):  # pre on tool.invoked: veto one call, rewrite another
        if ctx.call.name == "calculator":
            raise HookAbort("no arithmetic here", refusal=True)
        if ctx.call.name == "echo" and ctx.call.arguments.get("text") == "hello":
            call = ctx.call.model_copy(update={"arguments": {"text": "rewritten"}})
            return ctx.model_copy(update={"call": call})
        return None

    async def tool_sees(ctx):  # in, before the body: what the tool receives
        seen_args.append((ctx.call.name, dict(ctx.call.arguments)))

    async def canned(ctx):  # in on llm.invoked: replaces the model call
        if "canned" in ctx.messages[-1].content:
            return ctx.model_copy(update={"result": LlmResponse(text="from the executor")})
        return None

    manager.register("tool.invoked.pre", policy, priority=50)
    manager.register("tool.invoked.in", tool_sees, priority=5)
    manager.register("llm.invoked.in", canned, priority=10)
    return manager


async def until(check, timeout: float = 20.0, what: str = ""):
    deadline = time.monotonic() + timeout
    while not (found := check()):
        assert time.monotonic() < deadline, f"timed out waiting for {what or check}"
        await asyncio.sleep(0.05)
    return found


def posts(slack, channel, method="chat.postMessage"):
    return [a for m, a in slack.bot.standin.calls if m == method and a.get("channel") == channel]


async def click(slack, user: str, channel: str, thread: str, request_id: str, choice: str):
    payload = json.loads((FIXTURES / "block_actions_help.json").read_text())
    action = payload["actions"][0]
    action.update(action_id=f"help:{request_id}:0", value=choice)
    payload["user"]["id"] = user
    payload["channel"]["id"] = payload["container"]["channel_id"] = channel
    payload["container"]["thread_ts"] = payload["message"]["thread_ts"] = thread
    payload["response_url"] = f"{slack.base}/_local/response/click-{user}"
    payload["trigger_id"] = f"{uuid.uuid4().int % 10**12}.{user}"  # Slack's: one per click
    body = urlencode({"payload": json.dumps(payload)})
    return await slack.post(body, slack.build_headers(body, "application/x-www-form-urlencoded"))


async def test_every_operation_fires_through_the_bot_with_vendors_help_and_a_restart(
    client, settings, store, harness, replay, slack
):
    recorder, seen_args = Recorder(), []
    stop_a = asyncio.Event()
    manager_a = make_manager(settings, store, recorder, seen_args)
    worker_a = asyncio.create_task(serve(settings, stop_a, client=client, manager=manager_a))
    # --- Channel A: vendors. A mention starts the task (offline until /model).
    chan_a, root_a = "C0VENDOR", "1700000100.000100"
    status, _ = await slack.event(
        "app_mention.json",
        channel=chan_a,
        ts=root_a,
        event_ts=root_a,
        event_id="EvA1",
        text='<@UBOTLOCAL> call echo {"text": "warm up"}',
    )
    assert status == 200
    await until(lambda: any("echo: warm up" in p["text"] for p in posts(slack, chan_a)))
    assert (await slack.slash("/model", "gpt-x", user=OWNER, channel=chan_a))[0] == 200
    assert (await slack.slash("/effort", "high", user=OWNER, channel=chan_a))[0] == 200

    replay.queue(
        "openai/triage_main_loop", "openai/error_502_html", "openai/tool_calls", "openai/text_slow"
    )
    await slack.event(
        "message_in_thread.json",
        channel=chan_a,
        thread_ts=root_a,
        ts="1700000200.000200",
        user=OWNER,
        event_id="EvA2",
        text="greet and compute",
    )
    await until(lambda: replay.pending == 0 and len(posts(slack, chan_a)) >= 3, what="reply")
    _triage, failed, first, second = (r.body for r in replay.requests[:4])
    assert (first["model"], first["reasoning_effort"]) == ("gpt-x", "high")
    assert failed == first  # the failed attempt is retried with the same request
    assert [
        m
        for m in second["messages"]
        if m.get("tool_call_id", "").startswith("call_")
        and not m["tool_call_id"].startswith("call_1")
    ][-2:] == [
        {"role": "tool", "tool_call_id": "call_echo_1", "content": "rewritten"},
        {"role": "tool", "tool_call_id": "call_calc_1", "content": "refused: no arithmetic here"},
    ]
    assert ("echo", {"text": "rewritten"}) in seen_args
    assert not any(name == "calculator" for name, _ in seen_args)

    sent = len(replay.requests)
    replay.queue("openai/triage_main_loop")
    await slack.event(
        "message_in_thread.json",
        channel=chan_a,
        thread_ts=root_a,
        ts="1700000201.000200",
        user=OWNER,
        event_id="EvA3",
        text="canned answer please",
    )
    await until(lambda: any(p["text"] == "from the executor" for p in posts(slack, chan_a)))
    assert len(replay.requests) == sent + 1  # the triage only: llm.invoked made no call

    assert (await slack.slash("/model", "claude-y", user=OWNER, channel=chan_a))[0] == 200
    replay.queue("anthropic/text", "anthropic/text")
    await slack.event(
        "message_in_thread.json",
        channel=chan_a,
        thread_ts=root_a,
        ts="1700000202.000200",
        user=OWNER,
        event_id="EvA4",
        text="hi claude",
    )
    await until(lambda: replay.pending == 0 and len(posts(slack, chan_a)) >= 5, what="claude")
    claude = replay.requests[-1]
    assert claude.path == "/v1/messages" and claude.body["model"] == "claude-y"
    assert claude.body["thinking"] == {"type": "enabled", "budget_tokens": 8192}

    # --- Channel B: offline model. Skills, a plan with a named agent, a sub-task.
    chan_b, root_b = "C0OFFLINE", "1700000500.000100"
    await slack.event(
        "app_mention.json",
        channel=chan_b,
        ts=root_b,
        event_ts=root_b,
        event_id="EvB1",
        text="<@UBOTLOCAL> hello",
    )
    await until(lambda: posts(slack, chan_b), what="task B")
    _, _reply = await slack.slash(
        "/task", f"invite <@{WATCHER}|w> watcher", user=OWNER, channel=chan_b
    )
    assert (await slack.slash("/task", "skill load arithmetic", user=OWNER, channel=chan_b))[
        1
    ] == "skill `arithmetic` loaded"
    assert (await slack.slash("/task", "skill unload arithmetic", user=OWNER, channel=chan_b))[
        1
    ] == "skill `arithmetic` unloaded"

    async def say_b(text: str, ts: str) -> None:
        before = len(posts(slack, chan_b))
        await slack.event(
            "message_in_thread.json",
            channel=chan_b,
            thread_ts=root_b,
            ts=ts,
            user=OWNER,
            event_id=f"Ev{ts}",
            text=text,
        )
        await until(lambda: len(posts(slack, chan_b)) > before, what=text)

    await say_b('plan: @reviewer call echo {"text": "agent"}; wrap up', "1700000501.1")
    assert "— done" in posts(slack, chan_b)[-1]["text"]
    assert (await slack.slash("/sub-task", "research", user=OWNER, channel=chan_b))[0] == 200
    # The sub-task works on its prompt in the same thread.
    await until(
        lambda: any(p["text"] == "sub-task 1: (offline) research" for p in posts(slack, chan_b))
    )
    # Its request answered, it ends by itself (issue 26), before the thread goes on.
    ended = "sub-task 1: “research” is done."
    await until(lambda: any(p["text"] == ended for p in posts(slack, chan_b)))
    # Compaction: a long message, then a turn of the main loop over budget.
    await say_b("notes " + "lorem ipsum dolor " * 400, "1700000502.1")
    await say_b("short note", "1700000502.2")  # the long one leaves the kept tail
    await say_b('call echo {"text": "after"}', "1700000503.1")
    assert "echo: after" in posts(slack, chan_b)[-1]["text"]

    # Help: the question is posted with buttons; the worker restarts while it waits.
    await say_b(
        'call ask_human {"question": "which environment?", "options": ["staging", "prod"]}',
        "1700000504.1",
    )
    question = posts(slack, chan_b)[-1]
    assert question["text"] == "which environment?" and question["thread_ts"] == root_b
    buttons = question["blocks"][1]["elements"]
    assert [(b["text"]["text"], b["value"]) for b in buttons] == [
        ("staging", "staging"),
        ("prod", "prod"),
    ]
    request_id = buttons[0]["action_id"].split(":")[1]
    assert all(b["action_id"] == f"help:{request_id}:{i}" for i, b in enumerate(buttons))
    stop_a.set()
    await asyncio.wait_for(worker_a, 20)
    stop_b = asyncio.Event()
    worker_b = asyncio.create_task(
        serve(
            settings,
            stop_b,
            client=client,
            manager=make_manager(settings, store, recorder, seen_args),
        )
    )
    status, _ = await click(slack, WATCHER, chan_b, root_b, request_id, "prod")
    assert status == 200
    refusal = await until(lambda: posts(slack, chan_b, "chat.postEphemeral"), what="refusal")
    assert refusal[-1]["user"] == WATCHER and refusal[-1]["text"].startswith("refused: ")
    assert "watcher" in refusal[-1]["text"]
    before = len(posts(slack, chan_b))
    await click(slack, OWNER, chan_b, root_b, request_id, "staging")
    await until(lambda: len(posts(slack, chan_b)) > before, what="resumed")
    assert posts(slack, chan_b)[-1]["text"] == (
        "Tool results:\n- ask_human: <@U0OWNER> answered: staging"
    )
    await harness.finish(harness.task_id(TEAM, chan_b), children_grace_seconds=0)
    await until(lambda: recorder.seen("task.complete.post"), what="task.complete")
    stop_b.set()
    await asyncio.wait_for(worker_b, 20)

    # Every operation fired, each with a valid context of its own type.
    assert recorder.operations() == set(OPERATIONS)
    for point, ctx in recorder.trace:
        cls = context_type(point.rsplit(".", 1)[0])
        assert type(ctx) is cls, point
        cls.model_validate(ctx.model_dump())
    # Compaction in the workflow: the transcript went back under budget, tail verbatim.
    at = next(i for i, (p, _) in enumerate(recorder.trace) if p == "compaction.keep.post")
    keep = recorder.trace[at][1]
    kept = [keep.messages[i] for i in keep.result]
    after = [
        c
        for p, c in recorder.trace[at:]
        if p == "context.created.pre" and c.task.task_id == keep.task.task_id
    ]
    transcript = list(after[0].transcript)
    assert transcript[0].content.startswith(SUMMARY_PREFIX)
    assert transcript[1:] == kept and estimate_tokens(transcript) <= BUDGET
    assert recorder.seen("shutdown.in") and recorder.seen("heartbeat.tick.post")
    assert {c.failed_operation for c in recorder.seen("activity.failed.post")} >= {"llm.invoked"}
