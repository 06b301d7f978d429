"""Load: N channels' tasks at once, each sending M messages, through the real bot and worker.

Ours: each lane (a channel) mentions the bot, which starts its task, then sends M thread
replies one after another (the mention counts as a message too), each signed as Slack
signs it and POSTed to ``python -m bot`` (local mode, so its Web API stand-in records
every post); a message's time to reply runs
from the POST to the moment the offline agent's answer ("(offline) <text>") is in the
stand-in. All lanes run at once. Printed: messages/s and p50/p99 time to reply; per
message, activities scheduled (task-queue round trips), local activities and history
bytes (stored, and as the codec opens them: ``bench/meter.py``); and where the time to
reply goes (``bench/timeline.py``: bot, Temporal, worker, hooks), read from the histories
of the same run and the worker's metrics endpoint (the worker runs with
``[observability] executor_stats`` for that); and the CPU each process spent per message
(``bench/cpu.py``), which on a machine with few cores is what the time to reply queues on.

Floor, same run, same dev server: the same lanes and messages as bare Temporal updates
that each run one activity (``bench/stack.py`` FloorWorkflow), no bot, hooks or agent:
what Temporal alone costs per message, split and metered the same way. The ratio ours /
floor says how far a message is from Temporal's own cost.

Run: ``.venv/bin/python bench/load.py [--lanes 10 100] [--messages 5]``; the last line is
one JSON object.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import tempfile
import time
import uuid
from collections.abc import Awaitable, Callable
from pathlib import Path

import aiohttp
from cpu import cpu_seconds, per_message, processes
from meter import Meter, Totals, codec_client
from stack import SECRET, FloorWorkflow, Stack, echo, free_port, stack, stats
from temporalio.client import Client
from temporalio.worker import UnsandboxedWorkflowRunner, Worker
from timeline import LABELS, PARTS, hook_ms, read_lanes, split, summary

from bot.say.as_slack import mention_body, signed_headers
from bot.standin import POSTS_PATH

TEAM, OWNER, BOT_USER = "TLOAD", "ULOADOWNER", "UBOTLOCAL"
PATIENCE = float(os.environ.get("LOAD_PATIENCE", "120"))
SETTLE = 1.0
"""Seconds for the workflow tasks after the last reply before the histories are read."""
Sent = tuple[str, float, float]
"""A message: its lane, when it was sent (wall clock) and its time to reply (seconds)."""


class Unanswered(Exception):
    """A message the task did not answer in time."""


class Replies:
    """Polls the stand-in's new posts once for everyone and wakes whoever waits for a text."""

    def __init__(self, session: aiohttp.ClientSession, base: str) -> None:
        self.session, self.url = session, base + POSTS_PATH
        self.waiting: dict[str, asyncio.Future[float]] = {}
        self.seen = 0

    def expect(self, text: str) -> asyncio.Future[float]:
        future: asyncio.Future[float] = asyncio.get_running_loop().create_future()
        self.waiting[text] = future
        return future

    async def run(self) -> None:
        while True:
            async with self.session.get(self.url, params={"after": self.seen}) as response:
                posts = await response.json()
            now = time.perf_counter()
            for post in posts:
                future = self.waiting.pop(str(post.get("text", "")), None)
                if future is not None and not future.done():
                    future.set_result(now)
            self.seen += len(posts)
            await asyncio.sleep(0.02)


async def lane(
    session: aiohttp.ClientSession, replies: Replies, url: str, run: str, index: int, messages: int
) -> list[Sent]:
    """One channel: a mention (it starts the task), then ``messages`` thread replies, each
    awaited; when each was sent and its time to reply."""
    channel = f"CLOAD{run}{index}"

    async def send(text: str, thread: str = "") -> tuple[Sent, str]:
        body = mention_body(
            text, user=OWNER, team=TEAM, channel=channel, bot_user=BOT_USER, thread=thread
        )
        answered = replies.expect(f"(offline) {text}")
        wall, started = time.time(), time.perf_counter()
        async with session.post(
            url, data=body.encode(), headers=signed_headers(SECRET, body, "application/json")
        ) as r:
            if r.status != 200:
                raise SystemExit(f"bot answered {r.status}: {await r.text()}")
        try:
            done = await asyncio.wait_for(answered, PATIENCE)
        except TimeoutError:
            raise Unanswered(f"no answer to {text!r} in {PATIENCE:.0f} s") from None
        return (channel, wall, done - started), json.loads(body)["event"]["ts"]

    first, thread = await send(f"start {channel}")
    return [first] + [(await send(f"m{n} {channel}", thread))[0] for n in range(messages)]


async def ours(running: Stack, lanes: int, messages: int) -> list[Sent]:
    run = uuid.uuid4().hex[:4]
    connector = aiohttp.TCPConnector(limit=lanes * 2 + 4)
    async with aiohttp.ClientSession(connector=connector) as session:
        replies = Replies(session, running.bot_base)
        poller = asyncio.create_task(replies.run())
        try:
            times = await asyncio.gather(
                *(lane(session, replies, running.bot_url, run, i, messages) for i in range(lanes))
            )
        finally:
            poller.cancel()
    return [sent for lane_times in times for sent in lane_times]


async def floor(temporal: Client, lanes: int, messages: int, queue: str) -> list[Sent]:
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

        async def one_lane(i: int) -> list[Sent]:
            times = []
            for _ in range(messages + 1):  # as many as a lane of ours sends, its mention too
                wall, started = time.time(), time.perf_counter()
                await handles[i].execute_update(FloorWorkflow.touch, "x")
                times.append((handles[i].id, wall, time.perf_counter() - started))
            return times

        times = await asyncio.gather(*(one_lane(i) for i in range(lanes)))
        for handle in handles:
            await handle.signal(FloorWorkflow.stop)
    return [sent for lane_times in times for sent in lane_times]


def figures(
    sent: list[Sent], cost: Totals, where: dict[str, dict[str, float]], cpu: dict[str, float]
) -> dict:
    """The JSON of one side: rate and time to reply, cost per message, where the time goes."""
    wall = max(w + d for _, w, d in sent) - min(w for _, w, _ in sent)
    n = len(sent)
    return {
        "messages": n,
        "per_second": round(n / wall, 2),
        **stats([d for _, _, d in sent]),
        "activities_per_message": round(cost.activities / n, 2),
        "local_activities_per_message": round(cost.local / n, 2),
        "events_per_message": round(cost.events / n, 1),
        "stored_bytes_per_message": round(cost.bytes / n),
        "opened_bytes_per_message": round(cost.opened / n),
        "profile_ms": where,
        "cpu_ms_per_message": cpu,
    }


async def measured(
    run: Callable[[], Awaitable[list[Sent]]],
    temporal: Client,
    meter: Meter,
    lane_of: Callable[[str], str | None],
    pids: dict[str, int],
) -> tuple[list[Sent], Totals, dict[str, dict[str, float]], dict[str, float]]:
    """Run one side; what it cost in Temporal and in CPU (``pids``' processes), and the
    split of each message's time."""
    before, cpu_before = await meter.totals(), cpu_seconds(pids)
    sent = await run()
    await asyncio.sleep(SETTLE)
    cpu = per_message(cpu_before, cpu_seconds(pids), len(sent))
    cost = (await meter.totals()).minus(before)
    lanes = await read_lanes(temporal, lane_of)
    return sent, cost, summary([split(w, w + d, lanes[name]) for name, w, d in sent]), cpu


async def one_size(running: Stack, lanes: int, messages: int, metrics_url: str) -> dict:
    temporal = await codec_client(running.temporal_address, running.payload_key)
    meter = Meter(temporal, running.data_dir)

    def our_lane(workflow_id: str) -> str | None:  # task/T/C, request/task/T/C/<key>
        parts = workflow_id.split("/")
        return parts[parts.index(TEAM) + 1] if TEAM in parts[:-1] else None

    queue = f"load-floor-{uuid.uuid4().hex[:8]}"
    pids = processes(running.data_dir)
    floor_pids = {k: v for k, v in pids.items() if k in ("temporal", "bench")}
    async with aiohttp.ClientSession() as http:
        hooks_before = hook_ms(await (await http.get(metrics_url)).text())
        mine = await measured(
            lambda: ours(running, lanes, messages), temporal, meter, our_lane, pids
        )
        hooks_after = hook_ms(await (await http.get(metrics_url)).text())
    base = await measured(
        lambda: floor(temporal, lanes, messages, queue),
        temporal,
        meter,
        lambda i: i if i.startswith(queue + "/") else None,
        floor_pids,
    )
    n = len(mine[0])
    hooks = {p: (v - hooks_before.get(p, 0.0)) / n for p, v in hooks_after.items()}
    top = sorted(hooks.items(), key=lambda kv: -kv[1])[:5]
    ours_figures, floor_figures = figures(*mine), figures(*base)
    ours_figures["hooks_ms_per_message"] = {
        "all": round(sum(hooks.values()), 1),
        **{p: round(v, 1) for p, v in top},
    }
    return {
        "lanes": lanes,
        "ours": ours_figures,
        "floor": floor_figures,
        "ratio_p50": round(ours_figures["p50_ms"] / floor_figures["p50_ms"], 2),
        "ratio_rate": round(floor_figures["per_second"] / ours_figures["per_second"], 2),
        "ratio_activities": round(
            ours_figures["activities_per_message"] / floor_figures["activities_per_message"], 2
        ),
        "ratio_opened_bytes": round(
            ours_figures["opened_bytes_per_message"] / floor_figures["opened_bytes_per_message"],
            2,
        ),
    }


def report(r: dict) -> None:
    """One size's table: rates and costs, ours beside the floor; then where the time goes."""
    print(
        f"{'lanes':>5} {'':6} {'msg/s':>8} {'p50 ms':>9} {'p99 ms':>9} {'act/msg':>8}"
        f" {'local/msg':>9} {'opened B/msg':>13}"
    )
    for name in ("ours", "floor"):
        f = r[name]
        print(
            f"{r['lanes']:5} {name:6} {f['per_second']:8.2f} {f['p50_ms']:9.1f} "
            f"{f['p99_ms']:9.1f} {f['activities_per_message']:8.2f} "
            f"{f['local_activities_per_message']:9.2f} {f['opened_bytes_per_message']:13}"
        )
    print(
        f"{'':5} ratio  p50 ours/floor {r['ratio_p50']:.2f}x, throughput floor/ours "
        f"{r['ratio_rate']:.2f}x, activities {r['ratio_activities']:.2f}x, opened bytes "
        f"{r['ratio_opened_bytes']:.2f}x"
    )
    ours, base = r["ours"]["profile_ms"], r["floor"]["profile_ms"]
    print(
        f"where the time to reply goes, ms per message (p50: the middle fifth around it)\n"
        f"{'part':36} {'ours p50':>9} {'floor p50':>10} {'ours mean':>10} {'floor mean':>11}"
    )
    for part in (*PARTS, "total"):
        label = LABELS.get(part, "total")
        print(
            f"{label:36} {ours['p50'][part]:9.1f} {base['p50'][part]:10.1f} "
            f"{ours['mean'][part]:10.1f} {base['mean'][part]:11.1f}"
        )
    hooks = r["ours"]["hooks_ms_per_message"]
    slowest = ", ".join(f"{p} {v:.1f}" for p, v in hooks.items() if p != "all")
    print(f"  of worker: activities, hook executors (mean) {hooks['all']:.1f} ms: {slowest}")
    cpu, cpu_floor = r["ours"]["cpu_ms_per_message"], r["floor"]["cpu_ms_per_message"]
    print(
        "CPU ms per message, by process (the floor's worker runs in the bench): ours "
        + ", ".join(f"{k} {v:.1f}" for k, v in cpu.items())
        + "; floor "
        + ", ".join(f"{k} {v:.1f}" for k, v in cpu_floor.items())
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lanes", type=int, nargs="+", default=[10, 100])
    parser.add_argument("--messages", type=int, default=5)
    parser.add_argument(
        "--env",
        type=lambda text: tuple(text.split("=", 1)),
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="a variable for the stack's processes, e.g. HARNESS_PLUGINS='[...]' (repeatable)",
    )
    args = parser.parse_args()
    results = []
    metrics = f"127.0.0.1:{free_port()}"
    with tempfile.TemporaryDirectory(prefix="load-") as scratch:
        hooks_file = Path(scratch) / "hooks.toml"
        hooks_file.write_text("[observability]\nexecutor_stats = true\n")
        env = {"HARNESS_METRICS_ADDRESS": metrics, **dict(args.env)}
        with stack(f"load-{uuid.uuid4().hex[:8]}", env, hooks_config=hooks_file) as running:
            for lanes in args.lanes:
                results.append(
                    asyncio.run(
                        one_size(running, lanes, args.messages, f"http://{metrics}/metrics")
                    )
                )
    for r in results:
        report(r)
    print(json.dumps({"bench": "load", "results": results}))


if __name__ == "__main__":
    main()
