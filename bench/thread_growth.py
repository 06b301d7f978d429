"""Thread growth: what one more message in a long thread costs, at message 2, 9, 10, 50 and 200.

One channel task on a real Temporal dev server and a real worker process (``python -m
harness.worker``, the offline model, replies posted to the bot's local Slack stand-in),
fed the way the bot feeds it (``HarnessClient.receive``); every other message asks for
one tool call (the even ones: message 9 is the plain one measured, answered by triage).
After each reply it reads every workflow history in the namespace and the worker's
database and prints, for the messages measured: history events and bytes added (all
workflows, continue-as-new runs included), as stored (compressed, encrypted: what
Temporal's limits count) and as the codec opens them; activities scheduled; local
activities (no task-queue round trip); workflows started; store bytes written; and where
the last message's stored bytes go (local steps' markers, activities on the task queue,
workflow tasks, updates, the rest).
The last line is JSON; ``ratio`` is the stored
history bytes added by the last message measured over those of message 2 (goal: at most
1.5, issue 13: cost per message independent of thread length), ``opened_ratio`` the same
for opened bytes.

Run: ``.venv/bin/python bench/thread_growth.py [--messages 50]`` (``--messages 200`` for the
full figure: a few minutes on two cores).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import io
import json
import os
import shutil
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from uuid import uuid4

from meter import KINDS, Meter, Totals, codec_client
from stack import free_port
from temporalio.client import Client

from bot.standin import SlackStandIn, served
from bot.testing.parts import spawn, wait_ready
from harness.config import Settings
from harness.domain import TaskRef
from harness.hooks.contexts import RequestReceivedContext
from harness.temporal.client import HarnessClient
from harness.temporal.keys import new_key
from tests.support.dev_server import DevServer

ROOT = Path(__file__).resolve().parents[1]
MEASURED = (2, 9, 10, 50, 200)
CHANNEL = "CGROWTH"


@contextlib.contextmanager
def dev_server(workdir: Path) -> Iterator[str]:
    """The tests' dev server (:class:`tests.support.dev_server.DevServer`), in ``workdir``."""
    server = DevServer(workdir / "temporal.db").start()
    try:
        yield server.address
    finally:
        server.stop()


def calls_a_tool(n: int) -> bool:
    return n % 2 == 0


def text_of(n: int) -> str:
    if calls_a_tool(n):
        return f'call echo {{"text": "tool message {n}"}}'
    return f"message {n}: please remember the number {n * 7} for later"


async def run(messages: int) -> dict[str, object]:
    workdir = Path(tempfile.mkdtemp(prefix="thread-growth-"))
    key = new_key()
    with dev_server(workdir) as address:
        async with served() as slack:
            settings = Settings(
                _env_file=None,  # type: ignore[call-arg]  # pydantic-settings init kwarg
                temporal_address=address,
                task_queue=f"growth-{uuid4()}",
                data_dir=workdir,
                payload_key=key,
                slack_api_url=slack.url,
            )
            env = dict(
                os.environ,
                HARNESS_TEMPORAL_ADDRESS=address,
                HARNESS_TASK_QUEUE=settings.task_queue,
                HARNESS_DATA_DIR=str(workdir),
                HARNESS_PAYLOAD_KEY=key,
                HARNESS_SLACK_API_URL=settings.slack_api_url,
            )
            health = free_port()
            env["HARNESS_HEALTH_PORT"] = str(health)
            part = spawn(
                "worker",
                [sys.executable, "-m", "harness.worker"],
                env=env,
                cwd=ROOT,
                log=workdir / "worker.log",
                ready_url=f"http://127.0.0.1:{health}/readyz",
            )
            worker = part.proc
            wait_ready([part], 120)  # a loaded machine starts it slowly: no message before
            try:
                client = await codec_client(address, key)
                return await drive(client, settings, slack, workdir, messages)
            finally:
                worker.terminate()
                worker.wait(20)
                shutil.rmtree(workdir, ignore_errors=True)


async def drive(
    client: Client, settings: Settings, slack: SlackStandIn, workdir: Path, messages: int
) -> dict[str, object]:
    harness = HarnessClient(client, settings)
    meter = Meter(client, workdir)
    ref = TaskRef(task_id=harness.task_id("T", CHANNEL), team="T", channel=CHANNEL, thread="1.0")
    rows: dict[int, Totals] = {}
    before = await meter.totals()
    for n in range(1, messages + 1):
        posted = len(slack.calls)
        # The first message opens the task (no thread bound yet), the rest reply in its thread.
        target = ref if n > 1 else ref.model_copy(update={"thread": ""})
        request = RequestReceivedContext(
            task=target,
            text=text_of(n),
            sender="U1",
            channel=CHANNEL,
            thread="1.0",
            ts=f"1.{n:04d}",
            event_id=f"Ev{n}",
        )
        await harness.receive(request)
        deadline = time.monotonic() + 60
        while not any(m == "chat.postMessage" for m, _ in slack.calls[posted:]):
            if time.monotonic() > deadline:
                raise SystemExit(f"no reply to message {n}: see {workdir / 'worker.log'}")
            await asyncio.sleep(0.02)
        while True:  # the turn is over (the reply is posted before it records its end)
            snapshot = await harness.snapshot(ref.task_id)
            if snapshot.turn is None and not snapshot.queued:
                break
            if time.monotonic() > deadline:
                raise SystemExit(f"message {n}'s turn never ended: see {workdir / 'worker.log'}")
            await asyncio.sleep(0.02)
        await asyncio.sleep(0.05)  # the workflow task that recorded it completes
        after = await meter.totals()
        if n in MEASURED:
            rows[n] = after.minus(before)
        before = after
    ratio = rows[max(rows)].bytes / rows[2].bytes
    opened_ratio = rows[max(rows)].opened / rows[2].opened
    figures = {f"m{n}": vars(row) for n, row in rows.items()}
    return {
        "bench": "thread_growth",
        "messages": messages,
        **figures,
        "ratio": round(ratio, 3),
        "opened_ratio": round(opened_ratio, 3),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--messages", type=int, default=50, help="thread length (200: the full run)"
    )
    args = parser.parse_args()
    if args.messages < 2:
        raise SystemExit("--messages must be at least 2")
    with contextlib.redirect_stdout(io.StringIO()):  # the stand-in prints every post
        figures = asyncio.run(run(args.messages))
    print(
        f"{'message':>8} {'kind':>6} {'events':>7} {'hist bytes':>11} {'opened':>9}"
        f" {'activities':>10} {'local':>6} {'workflows':>9} {'store bytes':>11}"
    )
    for n in MEASURED:
        if (row := figures.get(f"m{n}")) is not None:
            print(
                f"{n:>8} {'tool' if calls_a_tool(n) else 'plain':>6} {row['events']:>7}"
                f" {row['bytes']:>11} {row['opened']:>9} {row['activities']:>10}"
                f" {row['local']:>6} {row['workflows']:>9} {row['store']:>11}"
            )
    last = max(n for n in MEASURED if f"m{n}" in figures)
    row = figures[f"m{last}"]
    kinds = {kind: row[kind] for kind in KINDS}
    other = row["bytes"] - sum(kinds.values())
    print(
        f"where message {last}'s {row['bytes']} stored bytes go: "
        + ", ".join(f"{kind} {size}" for kind, size in kinds.items())
        + f", other {other} ({row['local']} local-step markers, {row['activities']} activities"
        " on the task queue)"
    )
    print(
        f"history bytes added at message {last} / at message 2: {figures['ratio']:.2f} stored"
        f" (goal <= 1.5), {figures['opened_ratio']:.2f} opened"
    )
    print(json.dumps(figures))


if __name__ == "__main__":
    main()
