"""The recordings behind the replay test: representative tasks on a real worker, histories out.

:mod:`tests.support.record_histories` is the command that runs them; each scenario
returns the ``(workflow id, run id)`` of every history it leaves. The worker is
:func:`harness.temporal.worker.serve` as ``python -m harness.worker`` runs it, with
the offline model and the bot's Slack stand-in.
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib.metadata
import json
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path
from typing import Any
from uuid import uuid4

from google.protobuf.message import Message
from temporalio.api.enums.v1 import EventType
from temporalio.client import Client

from bot.standin import SlackStandIn, served
from harness.agent.profiles import AgentProfile
from harness.config import Settings
from harness.domain import ChannelMessage, TaskRef, TaskSpec
from harness.hooks import HookManager
from harness.hooks.contexts import (
    CommandInvokedContext,
    PersistenceWriteContext,
    RequestReceivedContext,
    StepFinishedContext,
)
from harness.temporal.client import HarnessClient
from harness.temporal.codec import data_converter
from harness.temporal.keys import new_key, parse_keys
from harness.temporal.models import HelpClick
from harness.temporal.worker import serve
from tests.support.history import payloads_in

ROOT = Path(__file__).resolve().parents[2]
INDEX = "index.json"
Histories = list[tuple[str, str]]
"""``(workflow id, run id)`` of each history a scenario leaves behind."""


@contextlib.contextmanager
def dev_server(where: Path) -> Iterator[str]:
    """A throwaway ``temporal server start-dev`` on a free loopback port."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    binary = shutil.which("temporal") or str(Path(sys.executable).with_name("temporal"))
    process = subprocess.Popen(
        [
            binary,
            "server",
            "start-dev",
            "--headless",
            "--ip",
            "127.0.0.1",
            "--port",
            str(port),
            "--db-filename",
            str(where / "temporal.db"),
            "--log-level",
            "error",
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.STDOUT,
    )
    try:
        yield f"127.0.0.1:{port}"
    finally:
        process.terminate()
        process.wait(10)


class Run:
    """One recording: the client, the Slack stand-in, and how to wait for a reply."""

    def __init__(self, client: Client, slack: SlackStandIn, settings: Settings) -> None:
        self.client, self.slack, self.settings = client, slack, settings
        self.harness = HarnessClient(client, settings)

    def posts(self, channel: str) -> int:
        return sum(
            m == "chat.postMessage" and a.get("channel") == channel for m, a in self.slack.calls
        )

    async def say(self, task_id: str, channel: str, text: str, ts: str) -> None:
        """Send a message and wait for the task's reply in the channel."""
        before = self.posts(channel)
        message = ChannelMessage(channel=channel, thread="1.0", user="U1", text=text, ts=ts)
        await self.harness.send_message(task_id, message)
        await self.until(lambda: self.posts(channel) > before, f"no reply to {text!r}")

    async def until(self, done: Callable[[], bool], why: str) -> None:
        deadline = time.monotonic() + 30
        while not done():
            assert time.monotonic() < deadline, why
            await asyncio.sleep(0.05)

    async def start(self, channel: str) -> TaskRef:
        return await self.harness.start_task(
            TaskSpec(title=channel, owner="U1"), team="T", channel=channel, thread="1.0"
        )

    async def end(self, *task_ids: str) -> Histories:
        """Finish the tasks (the last first) and return every run of each."""
        for task_id in reversed(task_ids):
            await self.harness.finish(task_id)
            await self.harness.outcome(task_id)
        return [run for task_id in task_ids for run in await self.runs(task_id)]

    async def runs(self, workflow_id: str) -> Histories:
        """Every run of the workflow, oldest first (continue-as-new chains them)."""
        described = await self.client.get_workflow_handle(workflow_id).describe()
        info = described.raw_description.workflow_execution_info
        run_id = info.first_run_id or info.execution.run_id
        chain: Histories = []
        while run_id:
            chain.append((workflow_id, run_id))
            handle = self.client.get_workflow_handle(workflow_id, run_id=run_id)
            history = await handle.fetch_history()
            last = history.events[-1]
            continued = EventType.EVENT_TYPE_WORKFLOW_EXECUTION_CONTINUED_AS_NEW
            run_id = (
                last.workflow_execution_continued_as_new_event_attributes.new_execution_run_id
                if last.event_type == continued
                else ""
            )
        return chain


async def plain_message(run: Run) -> Histories:
    """A mention routed by the request workflow; the task it opens answers it."""
    task_id = run.harness.task_id("T", "CPLAIN")
    before = run.posts("CPLAIN")
    await run.harness.receive(
        RequestReceivedContext(
            task=TaskRef(task_id=task_id, team="T", channel="CPLAIN"),
            correlation_id="event/1.0",
            text="hello there",
            sender="U1",
            channel="CPLAIN",
            thread="1.0",
            event_id="1.0",
            ts="1.0",
        )
    )
    await run.until(lambda: run.posts("CPLAIN") > before, "no reply to the mention")
    return [(f"request/{task_id}/event/1.0", ""), *await run.end(task_id)]


async def tool_call(run: Run) -> Histories:
    ref = await run.start("CTOOL")
    await run.say(ref.task_id, "CTOOL", 'call echo {"text": "ping"}', ts="1.1")
    await run.say(ref.task_id, "CTOOL", 'call calculator {"expression": "6*7"}', ts="1.2")
    return await run.end(ref.task_id)


async def slash_command(run: Run) -> Histories:
    ref = await run.start("CSLASH")
    for command, args in (
        ("model", "offline"),
        ("effort", "high"),
        ("status", ""),
        ("invite", "<@U2|two> collaborator"),
        ("nonsense", ""),
    ):
        await run.harness.send_command(
            CommandInvokedContext(task=ref, command=command, args=args, sender="U1")
        )
    return await run.end(ref.task_id)


async def short_steps(run: Run) -> Histories:
    """Since the built-in short steps run as local activities (issue 27): a message, a tool
    call, a slash command and a step that fails once, each short step a marker in history."""
    ref = await run.start("CSHORT")
    await run.say(ref.task_id, "CSHORT", "hello there", ts="1.1")
    await run.say(ref.task_id, "CSHORT", 'call echo {"text": "ping"}', ts="1.2")
    await run.harness.send_command(
        CommandInvokedContext(task=ref, command="effort", args="high", sender="U1")
    )
    return await run.end(ref.task_id)


async def by_reference(run: Run) -> Histories:
    """Since the loop's messages go by reference (issue 27): a thread of plain and tool
    messages, each model and triage input naming the window by number."""
    ref = await run.start("CBYREF")
    await run.say(ref.task_id, "CBYREF", "remember 7", ts="1.1")
    await run.say(ref.task_id, "CBYREF", 'call echo {"text": "ping"}', ts="1.2")
    await run.say(ref.task_id, "CBYREF", "remember 21", ts="1.3")
    await run.say(ref.task_id, "CBYREF", 'call echo {"text": "pong"}', ts="1.4")
    return await run.end(ref.task_id)


def write_fails_once(manager: HookManager, settings: Settings) -> None:
    """The short steps recording's plugin: the first transcript write fails its first
    attempt, so ``activity.failed`` and ``activity.retried`` run (locally too)."""
    failed: list[str] = []

    async def blip(ctx: PersistenceWriteContext) -> None:
        if ctx.attempt == 1 and not failed:
            failed.append(ctx.idempotency_key)
            raise ConnectionError("a blip: the write is tried again")

    manager.register(f"{PersistenceWriteContext.operation}.pre", blip)


async def sub_task(run: Run) -> Histories:
    ref = await run.start("CSUB")
    before = run.posts("CSUB")
    result = await run.harness.send_command(
        CommandInvokedContext(task=ref, command="sub-task", args="research it", sender="U1")
    )
    [child] = [e.subtask.task_id for e in result.effects if e.subtask is not None]
    await run.until(lambda: run.posts("CSUB") > before, "the sub-task never answered")
    return await run.end(ref.task_id, child)


async def help_request(run: Run) -> Histories:
    """The agent asks a person (buttons), the owner clicks one, the agent goes on."""
    ref = await run.start("CHELP")
    before = run.posts("CHELP")
    question = 'call ask_human {"question": "Ship it?", "options": ["yes", "no"]}'
    await run.harness.send_message(
        ref.task_id,
        ChannelMessage(channel="CHELP", thread="1.0", user="U1", text=question, ts="1.1"),
    )
    await run.until(lambda: run.posts("CHELP") > before, "the question was never posted")
    [asked] = [
        a for m, a in run.slack.calls if m == "chat.postMessage" and a.get("channel") == "CHELP"
    ][before:]
    blocks = asked["blocks"] if isinstance(asked["blocks"], list) else json.loads(asked["blocks"])
    [buttons] = [b for b in blocks if b.get("block_id", "").startswith("help-")]
    answered = run.posts("CHELP")
    await run.harness.answer_help(
        ref.task_id,
        HelpClick(
            request_id=buttons["block_id"].removeprefix("help-"),
            user="U1",
            choice=buttons["elements"][0]["value"],
        ),
    )
    await run.until(lambda: run.posts("CHELP") > answered, "no answer after the click")
    return await run.end(ref.task_id)


async def plan(run: Run) -> Histories:
    """A plan of two steps: one the task's model takes (a tool call), one a named agent's;
    the first step's end fails once and is retried (activity.failed, activity.retried)."""
    ref = await run.start("CPLAN")
    steps = 'plan: call echo {"text": "one"}; @helper call echo {"text": "two"}'
    await run.say(ref.task_id, "CPLAN", steps, ts="1.1")
    return await run.end(ref.task_id)


def fails_once(manager: HookManager, settings: Settings) -> None:
    """The plan recording's plugin: the first step's end fails its first attempt."""

    async def blip(ctx: StepFinishedContext) -> None:
        if ctx.index == 0 and ctx.attempt == 1:
            raise ConnectionError("a blip: the step's end is tried again")

    manager.register(f"{StepFinishedContext.operation}.pre", blip)


async def continue_as_new(run: Run) -> Histories:
    """A task whose runs roll over (a 100-event limit): three runs or more."""
    ref = await run.start("CLONG")
    for n in range(1, 12):
        await run.say(ref.task_id, "CLONG", f"note {n}", ts=f"2.{n}")
        if len(await run.runs(ref.task_id)) >= 3:
            break
    return await run.end(ref.task_id)


SCENARIOS: dict[str, tuple[Callable[[Run], Awaitable[Histories]], dict[str, Any]]] = {
    "plain_message": (plain_message, {}),
    "tool_call": (tool_call, {}),
    "slash_command": (slash_command, {}),
    "sub_task": (sub_task, {}),
    "help_request": (help_request, {}),
    "plan": (
        plan,
        {
            "agents": {"helper": AgentProfile(instructions="Help.", tools=("echo",))},
            "plugins": ["commands:plugin", f"{__name__}:fails_once"],
        },
    ),
    "continue_as_new": (continue_as_new, {"history_event_limit": 100}),
    "short_steps": (
        short_steps,
        {"plugins": ["commands:plugin", f"{__name__}:write_fails_once"]},
    ),
    "by_reference": (by_reference, {}),
}


def scrub(message: Message) -> None:
    """Blank the workers' identities (``pid@host``): nothing of the recording host is kept."""
    for field, value in message.ListFields():
        if field.name == "identity" and isinstance(value, str):
            setattr(message, field.name, "recorder")
        elif field.message_type is not None and not field.message_type.GetOptions().map_entry:
            for item in value if field.is_repeated else [value]:
                scrub(item)


async def opened(event: Message, converter: Any) -> None:  # a DataConverter
    """Replace each payload of ``event`` by what the codec opens it to."""
    payloads = list(payloads_in(event))
    if converter.payload_codec is not None and payloads:
        for payload, plain in zip(
            payloads, await converter.payload_codec.decode(payloads), strict=True
        ):
            payload.CopyFrom(plain)


async def record(out: Path, label: str, only: tuple[str, ...] = ()) -> None:
    """Run every scenario (or those ``only`` names) on a fresh dev server; write their
    histories to ``out``, and the index: a scenario recorded alone joins the index with its
    own label, and the other scenarios' histories stay as they were recorded."""
    key = new_key()  # this recording's only: never written, the fixtures hold opened payloads
    converter = data_converter(parse_keys(key))
    with tempfile.TemporaryDirectory() as tmp, dev_server(Path(tmp)) as address:
        client = None
        for _ in range(300):
            with contextlib.suppress(RuntimeError):
                client = await Client.connect(address, data_converter=converter)
                break
            await asyncio.sleep(0.1)
        assert client is not None, f"no dev server at {address}"
        meta = json.loads((out / INDEX).read_text()) if only else {}
        index: dict[str, str] = {
            file: workflow_id
            for file, workflow_id in meta.get("histories", {}).items()
            if file.split(".")[0] not in only
        }
        later: dict[str, str] = {
            name: was for name, was in meta.get("recorded_later", {}).items() if name not in only
        }
        async with served() as slack:
            slack_url = slack.url
            for name, (scenario, overrides) in SCENARIOS.items():
                if only and name not in only:
                    continue
                for old in out.glob(f"{name}.*.json"):
                    old.unlink()
                if only:
                    later[name] = label
                settings = Settings(
                    _env_file=None,
                    temporal_address=address,
                    task_queue=f"tq-{uuid4()}",  # type: ignore[call-arg]
                    data_dir=Path(tmp) / name,
                    payload_key=key,
                    slack_api_url=slack_url,
                    skills_dir=ROOT / "skills",
                    **{"plugins": ["commands:plugin"], **overrides},
                )
                settings.data_dir.mkdir()
                stop = asyncio.Event()
                worker = asyncio.create_task(serve(settings, stop, client=client))
                try:
                    runs = await scenario(Run(client, slack, settings))
                finally:
                    stop.set()
                    await worker
                for n, (workflow_id, run_id) in enumerate(runs, start=1):
                    handle = client.get_workflow_handle(workflow_id, run_id=run_id or None)
                    history = await handle.fetch_history()
                    for event in history.events:
                        scrub(event)
                        await opened(event, converter)
                    file = f"{name}.{n}.json"
                    (out / file).write_text(history.to_json() + "\n")
                    index[file] = workflow_id
                print(f"{name}: {len(runs)} histories")
    meta = {
        "recorded_from": meta.get("recorded_from", label),
        "temporalio": meta.get("temporalio", importlib.metadata.version("temporalio")),
        **({"recorded_later": later} if later else {}),
        "histories": dict(sorted(index.items())) if only else index,
    }
    (out / INDEX).write_text(json.dumps(meta, indent=2) + "\n")
