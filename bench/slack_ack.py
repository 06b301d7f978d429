"""Slash-command ack latency of the real bot, side by side with its floor, in one run.

Ours: signed ``/model x`` requests (alternating between two models, so every one is a
real state change) POSTed to ``python -m bot`` (aiohttp + signature gate + bolt) in its
own process, which sends a Temporal update to the channel's task on a real
``python -m harness.worker`` (built-in and ``commands`` plugins) on a tuned dev server.
The ack *is* the reply, so this is the full round trip a Slack user waits for.

Floor (issue 4): a bare slack-bolt ``AsyncApp`` (``process_before_response=True``,
signature verification on) that only acks, served by aiohttp in its own process, plus
one bare Temporal update that runs one activity, on the same dev server. The floor's
p50 is the sum of the two p50s (ours does both, in sequence).

Where ours goes (issue 27): the same ``/model`` updates, sent from this process straight
to the task with :class:`HarnessClient` as the bot sends them (no bot); ours minus that
is the bot's own share (gate, bolt, listener, its HTTP hop), and that beside the bare
update is the task's (Temporal and the worker).

Sequential requests, then rounds of 50 concurrent ones, the four kinds taking turns
(request by request, round by round) so that they meet the same load on a shared
machine. An ack over the bot's budget is the "working on" note: counted, with its
time, and reported. Each kind's concurrent rounds also print the CPU every process spent
per command (``bench/cpu.py``): on few cores, what a round of 50 queues on. Everything
listens on
127.0.0.1 and is started and stopped by this script; the last line is one JSON
object, ``ratio`` = ours / floor, sequential p50.

Run: ``.venv/bin/python bench/slack_ack.py [--requests 200] [--concurrency 50]``
"""

from __future__ import annotations

import argparse
import asyncio
import json
import re
import sys
import time
import uuid
from collections.abc import Awaitable, Callable, Mapping
from pathlib import Path
from urllib.parse import urlencode

import aiohttp
from cpu import cpu_seconds, per_message, processes
from slack_sdk.signature import SignatureVerifier
from stack import SECRET, FloorWorkflow, echo, free_port, stack, stats
from temporalio.client import Client
from temporalio.worker import UnsandboxedWorkflowRunner, Worker

from bot import replies
from bot.config import RESPONSE_PATH
from bot.gateway import task_id
from bot.payloads import command_context
from harness.config import Settings
from harness.domain import TaskSpec
from harness.replies import model_set
from harness.temporal.client import HarnessClient

TEAM, CHANNEL, OWNER = "TBENCH", "CBENCH", "UBENCHOWNER"
MODELS = ("offline", "gpt-x")


# --- the floor's two halves -------------------------------------------------------------


def serve_bare_bolt(port: int) -> None:
    """A slack-bolt app that only acks (signature verified), over aiohttp."""
    from aiohttp import web
    from slack_bolt.async_app import AsyncApp
    from slack_bolt.authorization import AuthorizeResult
    from slack_bolt.request.async_request import AsyncBoltRequest

    async def authorize(enterprise_id, team_id):
        return AuthorizeResult(
            enterprise_id=enterprise_id,
            team_id=team_id,
            bot_token="xoxb-bench",
            bot_user_id="UBOT",
            bot_id="BBOT",
        )

    app = AsyncApp(
        signing_secret=SECRET,
        authorize=authorize,
        process_before_response=True,
        request_verification_enabled=True,
    )

    @app.command(re.compile(r"^/"))
    async def ack_only(ack):
        await ack(text="ok", response_type="ephemeral")

    async def handle(request: web.Request) -> web.Response:
        body = await request.text()
        response = await app.async_dispatch(
            AsyncBoltRequest(body=body, headers=dict(request.headers))
        )
        return web.Response(
            status=response.status, body=response.body, headers={"Content-Type": "application/json"}
        )

    web_app = web.Application()
    web_app.router.add_post("/slack/events", handle)
    web.run_app(web_app, host="127.0.0.1", port=port, print=None, access_log=None)


class Direct:
    """The update a ``/model x`` becomes, sent with the harness client, no bot in between.

    It shares ``slash.counts``, so every update still changes its channel's model.
    """

    def __init__(self, client: HarnessClient, slash: Slash) -> None:
        self.client, self.slash = client, slash

    async def __call__(self, lane: int) -> float:
        channel = f"{CHANNEL}{lane}"
        count = self.slash.counts[channel] = self.slash.counts.get(channel, 0) + 1
        body = {
            "team_id": TEAM,
            "channel_id": channel,
            "user_id": OWNER,
            "command": "/model",
            "text": MODELS[count % 2],
            "trigger_id": f"bench.{uuid.uuid4().hex}",
        }
        started = time.perf_counter()
        ctx = command_context(body, task_id=task_id(TEAM, channel))
        result = await self.client.send_command(ctx)
        elapsed = time.perf_counter() - started
        if not answered(result.reply, MODELS[count % 2]):
            raise SystemExit(f"unexpected reply: {result.reply}")
        return elapsed


def answered(reply: str, model: str) -> bool:
    """Whether ``reply`` is /model's answer to setting ``model``: set, or already so.

    Already so only after an ack over the budget ("working on"): that command was still on
    its way to the task when its lane's next one was sent, and may have come second.
    """
    was = MODELS[1 - MODELS.index(model)]
    return reply in (model_set(model, was), model_set(model, was, changed=False))


# --- measuring ---------------------------------------------------------------------------


class Slash:
    """Signs and posts ``/model x`` as Slack does; every one changes its channel's model."""

    def __init__(self, session: aiohttp.ClientSession, url: str, *, strict: bool) -> None:
        self.session, self.url, self.strict = session, url, strict
        # The bot's own (local mode's) response URL, as Slack sends a valid one: any other
        # is dropped with a warning per request, a hostile input's path, not an ack's.
        base = url.rsplit("/slack/events", 1)[0]
        self.response_url = f"{base}{RESPONSE_PATH}bench"
        self.counts: dict[str, int] = {}
        self.working = 0
        """Acks that were the "working on …" note: the task took longer than the ack budget
        (the reply followed through the response URL); each counts with its ack's time."""

    async def __call__(self, lane: int) -> float:
        channel = f"{CHANNEL}{lane}"
        count = self.counts[channel] = self.counts.get(channel, 0) + 1
        body = urlencode(
            {
                "team_id": TEAM,
                "channel_id": channel,
                "user_id": OWNER,
                "command": "/model",
                "text": MODELS[count % 2],
                "response_url": self.response_url,
                "trigger_id": f"bench.{uuid.uuid4().hex}",
            }
        )
        ts = str(int(time.time()))
        headers = {
            "Content-Type": "application/x-www-form-urlencoded",
            "X-Slack-Request-Timestamp": ts,
            "X-Slack-Signature": SignatureVerifier(SECRET).generate_signature(
                timestamp=ts, body=body
            ),
        }
        started = time.perf_counter()
        async with self.session.post(self.url, data=body.encode(), headers=headers) as response:
            text = await response.text()
        elapsed = time.perf_counter() - started
        said = json.loads(text)["text"] if response.status == 200 else ""
        model = MODELS[count % 2]
        if not self.strict:
            if said != "ok":
                raise SystemExit(f"unexpected reply {response.status}: {text}")
        elif said == replies.working("model", model):
            self.working += 1
        elif not answered(said, model):
            raise SystemExit(f"unexpected reply {response.status}: {text}")
        return elapsed


Call = Callable[[int], Awaitable[float]]


async def measure(
    calls: Mapping[str, Call], requests: int, concurrency: int, pids: Mapping[str, int]
) -> dict[str, dict[str, dict[str, float]]]:
    """Sequential calls on lane 0, then rounds of ``concurrency`` calls, one per lane; each
    of ``calls`` in turn, request by request and round by round.

    Taking turns, ours and the floor meet the same load: the machine is shared, and a load
    that came or went between one part measured whole and the next moved the ratio by more
    than the difference it measures. Each kind's rounds also say the CPU each process of
    ``pids`` spent on them, per command (``cpu``): what the rounds queue on with few cores.
    A lane is one channel's task (one workflow): Temporal admits 10 in-flight updates
    per workflow by default, and 50 people typing in one channel at once is not the
    load a Slack app sees; 50 channels at once is.
    """
    for call in calls.values():  # warm-up: connections, caches, sticky queues
        for lane in range(concurrency):
            await call(lane)
    seq: dict[str, list[float]] = {name: [] for name in calls}
    for _ in range(requests):
        for name, call in calls.items():
            seq[name].append(await call(0))
    conc: dict[str, list[float]] = {name: [] for name in calls}
    spent: dict[str, dict[str, float]] = {name: {} for name in calls}
    for _ in range(max(1, requests // concurrency)):
        for name, call in calls.items():
            before = cpu_seconds(pids)
            conc[name] += await asyncio.gather(*(call(lane) for lane in range(concurrency)))
            for process, seconds in per_message(before, cpu_seconds(pids), 1).items():
                spent[name][process] = spent[name].get(process, 0.0) + seconds
    return {
        name: {
            "seq": stats(seq[name]),
            "conc": stats(conc[name]),
            "cpu": {k: round(v / len(conc[name]), 2) for k, v in spent[name].items()},
        }
        for name in calls
    }


async def bench(
    args: argparse.Namespace, address: str, bot_url: str, bare_url: str, data_dir: Path
) -> dict:
    settings = Settings(
        _env_file=None,
        temporal_address=address,
        task_queue=args.queue,
        payload_key=args.payload_key,
    )
    client = await HarnessClient.connect(settings)
    spec = TaskSpec(title="bench", owner=OWNER, model="offline")
    for lane in range(args.concurrency):
        await client.start_task(spec, team=TEAM, channel=f"{CHANNEL}{lane}")
    temporal: Client = client.temporal
    queue = f"bench-floor-{uuid.uuid4().hex[:8]}"
    connector = aiohttp.TCPConnector(limit=args.concurrency * 2)
    async with (
        aiohttp.ClientSession(connector=connector) as session,
        Worker(
            temporal,
            task_queue=queue,
            workflows=[FloorWorkflow],
            activities=[echo],
            workflow_runner=UnsandboxedWorkflowRunner(),
        ),
    ):
        handles = [
            await temporal.start_workflow(FloorWorkflow.run, id=f"{queue}/{lane}", task_queue=queue)
            for lane in range(args.concurrency)
        ]

        async def update(lane: int) -> float:
            started = time.perf_counter()
            await handles[lane].execute_update(FloorWorkflow.touch, "x")
            return time.perf_counter() - started

        slash = Slash(session, bot_url, strict=True)
        direct = Direct(client, slash)
        # Each task's first command waits, without the bot's ack budget, until the worker has
        # made the workflows of every task started before it: the bot's first one otherwise
        # came after all 50, over 2 s on a loaded machine, and was acked "working on …".
        for lane in range(args.concurrency):
            await direct(lane)
        figures = await measure(
            {
                "ours": slash,
                "direct": direct,
                "bolt_ack": Slash(session, bare_url, strict=False),
                "update": update,
            },
            args.requests,
            args.concurrency,
            processes(data_dir, {Path(__file__).name: "bare_bolt"}),
        )
        for handle in handles:
            await handle.signal(FloorWorkflow.stop)
    return {**figures, "working_acks": slash.working}


def report(figures: dict) -> None:
    floor = {
        mode: {
            k: round(figures["bolt_ack"][mode][k] + figures["update"][mode][k], 2)
            for k in ("p50_ms", "p99_ms")
        }
        for mode in ("seq", "conc")
    }
    rows = [
        ("ours: bot + worker", figures["ours"]),
        ("ours: the same update, no bot", figures["direct"]),
        ("floor: bolt ack-only", figures["bolt_ack"]),
        ("floor: bare update + 1 activity", figures["update"]),
        ("floor: sum", floor),
    ]
    print(f"{'':34} {'seq p50':>9} {'seq p99':>9} {'c50 p50':>9} {'c50 p99':>9}   (ms)")
    for name, f in rows:
        print(
            f"{name:34} {f['seq']['p50_ms']:9.2f} {f['seq']['p99_ms']:9.2f} "
            f"{f['conc']['p50_ms']:9.2f} {f['conc']['p99_ms']:9.2f}"
        )
    ratio = figures["ours"]["seq"]["p50_ms"] / floor["seq"]["p50_ms"]
    conc_ratio = figures["ours"]["conc"]["p50_ms"] / floor["conc"]["p50_ms"]
    print(
        f"ours / floor: seq p50 {ratio:.2f}x, 50-concurrent p50 {conc_ratio:.2f}x; "
        f"50-concurrent p99 {figures['ours']['conc']['p99_ms']:.0f} ms (Slack's limit: 3000 ms); "
        f"{figures['working_acks']} acks were the 'working on' note (over the ack budget)"
    )
    share = {
        mode: {
            "bot_ms": round(figures["ours"][mode]["p50_ms"] - figures["direct"][mode]["p50_ms"], 2),
            "task_ms": round(
                figures["direct"][mode]["p50_ms"] - figures["update"][mode]["p50_ms"], 2
            ),
        }
        for mode in ("seq", "conc")
    }
    print(
        "where ours goes beyond the floor, p50: 50-concurrent "
        f"bot {share['conc']['bot_ms']:+.0f} ms "
        f"(bolt ack-only {figures['bolt_ack']['conc']['p50_ms']:.0f} ms), "
        f"task {share['conc']['task_ms']:+.0f} ms over the bare update; sequential "
        f"bot {share['seq']['bot_ms']:+.1f} ms, task {share['seq']['task_ms']:+.1f} ms"
    )
    print("CPU per command in the 50-concurrent rounds (ms), by process:")
    for name, f in rows[:4]:
        print(f"  {name:32} " + ", ".join(f"{k} {v:.2f}" for k, v in f["cpu"].items()))
    print(
        json.dumps(
            {
                **figures,
                "floor": floor,
                "share_p50": share,
                "ratio": round(ratio, 3),
                "ratio_conc": round(conc_ratio, 3),
            }
        )
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=200)
    parser.add_argument("--concurrency", type=int, default=50)
    parser.add_argument("--bare-bolt", type=int, default=0, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.bare_bolt:
        serve_bare_bolt(args.bare_bolt)
        return
    args.queue = f"bench-{uuid.uuid4().hex[:8]}"
    bare_port = free_port()
    bare = [sys.executable, str(Path(__file__).resolve()), "--bare-bolt", str(bare_port)]
    # /model only names the model, never calls it; the worker still wants a provider for
    # each listed name, so gpt-x gets one that is never reached.
    models = {
        "HARNESS_MODELS": json.dumps(MODELS),
        "HARNESS_OPENAI_BASE_URL": "http://127.0.0.1:9/v1",
    }
    with stack(args.queue, models, extra=[(bare, bare_port)]) as running:
        args.payload_key = running.payload_key
        figures = asyncio.run(
            asyncio.wait_for(
                bench(
                    args,
                    running.temporal_address,
                    running.bot_url,
                    f"http://127.0.0.1:{bare_port}/slack/events",
                    running.data_dir,
                ),
                timeout=600,
            )
        )
        report(figures)


if __name__ == "__main__":
    main()
