"""Load: N channels' tasks at once, each sending M messages, through the real bot and worker.

Ours: each lane (a channel) mentions the bot, which starts its task, then sends M thread
replies one after another (the mention counts as a message too), each signed as Slack
signs it and POSTed to ``python -m bot`` (local mode, so its Web API stand-in records
every post); a message's time to reply runs
from the POST to the moment the offline agent's answer ("(offline) <text>") is in the
stand-in. All lanes run at once. Printed: messages/s and p50/p99 time to reply.

Floor, same run, same dev server: the same lanes and messages as bare Temporal updates
that each run one activity (``bench/stack.py`` FloorWorkflow), no bot, hooks or agent:
what Temporal alone costs per message. The ratio ours / floor says where the time goes
beyond Temporal; the worker's own figures (activities, events) come from its history.

Run: ``.venv/bin/python bench/load.py [--lanes 10 100] [--messages 5]``; the last line is
one JSON object.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import time
import uuid

import aiohttp
from stack import SECRET, FloorWorkflow, Stack, echo, stack, stats
from temporalio.client import Client
from temporalio.worker import UnsandboxedWorkflowRunner, Worker

from bot.say.as_slack import mention_body, signed_headers

TEAM, OWNER, BOT_USER = "TLOAD", "ULOADOWNER", "UBOTLOCAL"
PATIENCE = float(os.environ.get("LOAD_PATIENCE", "120"))


class Unanswered(Exception):
    """A message the task did not answer in time."""


class Replies:
    """Polls the stand-in's posts once for everyone and wakes whoever waits for a text."""

    def __init__(self, session: aiohttp.ClientSession, base: str) -> None:
        self.session, self.url = session, base + "/_local/posts"
        self.waiting: dict[str, asyncio.Future[float]] = {}
        self.seen = 0

    def expect(self, text: str) -> asyncio.Future[float]:
        future: asyncio.Future[float] = asyncio.get_running_loop().create_future()
        self.waiting[text] = future
        return future

    async def run(self) -> None:
        while True:
            async with self.session.get(self.url) as response:
                posts = await response.json()
            now = time.perf_counter()
            for post in posts[self.seen :]:
                future = self.waiting.pop(str(post.get("text", "")), None)
                if future is not None and not future.done():
                    future.set_result(now)
            self.seen = len(posts)
            await asyncio.sleep(0.02)


async def lane(
    session: aiohttp.ClientSession, replies: Replies, url: str, run: str, index: int, messages: int
) -> list[float]:
    """One channel: a mention (it starts the task), then ``messages`` thread replies, each
    awaited; the times of all of them."""
    channel = f"CLOAD{run}{index}"

    async def send(text: str, thread: str = "") -> tuple[float, str]:
        body = mention_body(
            text, user=OWNER, team=TEAM, channel=channel, bot_user=BOT_USER, thread=thread
        )
        answered = replies.expect(f"(offline) {text}")
        started = time.perf_counter()
        async with session.post(
            url, data=body.encode(), headers=signed_headers(SECRET, body, "application/json")
        ) as r:
            if r.status != 200:
                raise SystemExit(f"bot answered {r.status}: {await r.text()}")
        try:
            done = await asyncio.wait_for(answered, PATIENCE)
        except TimeoutError:
            raise Unanswered(f"no answer to {text!r} in {PATIENCE:.0f} s") from None
        return done - started, json.loads(body)["event"]["ts"]

    first, thread = await send(f"start {channel}")
    return [first] + [(await send(f"m{n} {channel}", thread))[0] for n in range(messages)]


async def ours(running: Stack, lanes: int, messages: int) -> dict:
    run = uuid.uuid4().hex[:4]
    connector = aiohttp.TCPConnector(limit=lanes * 2 + 4)
    async with aiohttp.ClientSession(connector=connector) as session:
        replies = Replies(session, running.bot_base)
        poller = asyncio.create_task(replies.run())
        started = time.perf_counter()
        try:
            times = await asyncio.gather(
                *(lane(session, replies, running.bot_url, run, i, messages) for i in range(lanes))
            )
        finally:
            poller.cancel()
        wall = time.perf_counter() - started
    flat = [t for lane_times in times for t in lane_times]
    return {"messages": len(flat), "per_second": round(len(flat) / wall, 2), **stats(flat)}


async def floor(running: Stack, lanes: int, messages: int) -> dict:
    temporal = await Client.connect(running.temporal_address)
    queue = f"load-floor-{uuid.uuid4().hex[:8]}"
    async with Worker(
        temporal,
        task_queue=queue,
        workflows=[FloorWorkflow],
        activities=[echo],
        workflow_runner=UnsandboxedWorkflowRunner(),
    ):
        handles = [
            await temporal.start_workflow(FloorWorkflow.run, id=f"{queue}/{i}", task_queue=queue)
            for i in range(lanes)
        ]

        async def one_lane(i: int) -> list[float]:
            times = []
            for _ in range(messages + 1):  # as many as a lane of ours sends, its mention too
                started = time.perf_counter()
                await handles[i].execute_update(FloorWorkflow.touch, "x")
                times.append(time.perf_counter() - started)
            return times

        started = time.perf_counter()
        times = await asyncio.gather(*(one_lane(i) for i in range(lanes)))
        wall = time.perf_counter() - started
        for handle in handles:
            await handle.signal(FloorWorkflow.stop)
    flat = [t for lane_times in times for t in lane_times]
    return {"messages": len(flat), "per_second": round(len(flat) / wall, 2), **stats(flat)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lanes", type=int, nargs="+", default=[10, 100])
    parser.add_argument("--messages", type=int, default=5)
    args = parser.parse_args()
    results = []
    with stack(f"load-{uuid.uuid4().hex[:8]}") as running:
        for lanes in args.lanes:
            mine = asyncio.run(ours(running, lanes, args.messages))
            base = asyncio.run(floor(running, lanes, args.messages))
            results.append(
                {
                    "lanes": lanes,
                    "ours": mine,
                    "floor": base,
                    "ratio_p50": round(mine["p50_ms"] / base["p50_ms"], 2),
                    "ratio_rate": round(base["per_second"] / mine["per_second"], 2),
                }
            )
    print(f"{'lanes':>5} {'':6} {'msg/s':>8} {'p50 ms':>9} {'p99 ms':>9}")
    for r in results:
        for name in ("ours", "floor"):
            f = r[name]
            print(
                f"{r['lanes']:5} {name:6} {f['per_second']:8.2f} {f['p50_ms']:9.1f} "
                f"{f['p99_ms']:9.1f}"
            )
        print(
            f"{'':5} ratio  p50 ours/floor {r['ratio_p50']:.2f}x, "
            f"throughput floor/ours {r['ratio_rate']:.2f}x"
        )
    print(json.dumps({"bench": "load", "results": results}))


if __name__ == "__main__":
    main()
