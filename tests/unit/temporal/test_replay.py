"""Today's workflow code replays the histories recorded from the last release (issue 13).

The fixtures in ``tests/fixtures/histories/`` are real runs (a plain message, tool calls,
slash commands, a sub-task, a question answered by a click, a continue-as-new chain, a
plan whose steps are the model's and a named agent's, one of them retried), recorded by
``make histories`` (:mod:`tests.support.record_histories`) with their
payloads opened. A change to :class:`TaskWorkflow` or :class:`RequestWorkflow` that
would make a running task non-deterministic after a deploy fails here instead: guard it
with ``workflow.patched`` (the last two tests show both outcomes) or give the workflow a
new type name."""

from __future__ import annotations

import base64
import json
import re
from pathlib import Path

import pytest
from temporalio import workflow
from temporalio.api.enums.v1 import EventType
from temporalio.client import WorkflowHistory
from temporalio.worker import Replayer
from temporalio.workflow import NondeterminismError

from harness.agent.loop import AgentLoop
from harness.agent.operations import InProcess
from harness.domain import PlanStep, TaskStatus
from harness.hooks import LOCAL_BY_DEFAULT, HookManager, activity_of
from harness.hooks.contexts import StepStartedContext
from harness.temporal import TASK_WORKFLOW
from harness.temporal.codec import ENCODING, data_converter
from harness.temporal.keys import new_key, parse_keys
from harness.temporal.models import TaskInput, TaskOutcome
from harness.temporal.workflow.request import RequestWorkflow
from harness.temporal.workflow.task import TaskWorkflow

FIXTURES = Path(__file__).parents[2] / "fixtures" / "histories"
INDEX = json.loads((FIXTURES / "index.json").read_text())
FILES = sorted(INDEX["histories"])
SCENARIOS = {
    "plain_message",
    "tool_call",
    "slash_command",
    "sub_task",
    "help_request",
    "continue_as_new",
    "plan",
    "short_steps",
    "by_reference",
}


def history(file: str) -> WorkflowHistory:
    return WorkflowHistory.from_json(INDEX["histories"][file], (FIXTURES / file).read_text())


def replayer(*workflows: type) -> Replayer:
    # A fresh key: the fixtures hold opened payloads, which the codec passes through.
    return Replayer(
        workflows=list(workflows) or [TaskWorkflow, RequestWorkflow],
        data_converter=data_converter(parse_keys(new_key())),
    )


@pytest.mark.parametrize("file", FILES)
async def test_todays_workflows_replay_the_recorded_history(file):
    result = await replayer().replay_workflow(history(file), raise_on_replay_failure=False)
    assert result.replay_failure is None, f"{file}: {result.replay_failure}"


def events(file: str) -> set[int]:
    return {event.event_type for event in history(file).events}


def local_steps(file: str) -> set[str]:
    """The operations a history ran as local activities (the activity type in each marker)."""
    return {
        re.sub(r"(-changes|-refs)?-v\d+$", "", json.loads(data.payloads[0].data)["activity_type"])
        for e in history(file).events
        if e.marker_recorded_event_attributes.marker_name == "core_local_activity"
        and (data := e.marker_recorded_event_attributes.details.get("data"))
    }


def activities(file: str) -> set[str]:
    """The operations whose activities a history scheduled (any form: whole, changes, refs)."""
    return {
        re.sub(
            r"(-changes|-refs)?-v\d+$",
            "",
            e.activity_task_scheduled_event_attributes.activity_type.name,
        )
        for e in history(file).events
        if e.event_type == EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED
    }


def test_the_fixtures_cover_each_kind_of_run():
    assert {file.split(".")[0] for file in FILES} == SCENARIOS
    assert len([f for f in FILES if f.startswith("continue_as_new.")]) >= 2
    assert EventType.EVENT_TYPE_WORKFLOW_EXECUTION_CONTINUED_AS_NEW in events(
        "continue_as_new.1.json"
    )
    assert EventType.EVENT_TYPE_START_CHILD_WORKFLOW_EXECUTION_INITIATED in events(
        "sub_task.1.json"
    )
    assert EventType.EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_ACCEPTED in events("slash_command.1.json")
    updates = {
        e.workflow_execution_update_accepted_event_attributes.accepted_request.input.name
        for e in history("help_request.1.json").events
    }
    assert "help" in updates
    names = {
        e.activity_task_scheduled_event_attributes.activity_type.name
        for e in history("tool_call.1.json").events
    }
    assert "tool-invoked-v1" in names
    assert {
        "plan-created",
        "step-started",
        "step-finished",
        "agent-invoked",
        "activity-failed",
        "activity-retried",
    } <= activities("plan.1.json")
    ran_locally = local_steps("short_steps.1.json")
    assert ran_locally <= {activity_of(op).removesuffix("-v1") for op in LOCAL_BY_DEFAULT}
    assert {
        "channel-sent",
        "persistence-read",
        "persistence-write",
        "context-created",
        "compaction-trigger",
        "command-invoked",
        "activity-failed",
        "activity-retried",
    } <= ran_locally
    scheduled = {
        e.activity_task_scheduled_event_attributes.activity_type.name
        for e in history("by_reference.1.json").events
    }
    assert {"llm-invoked-refs-v1", "system-one-invoked-refs-v1"} <= scheduled
    assert "context-created" in local_steps("by_reference.1.json")
    started = history("plain_message.1.json").events[0].workflow_execution_started_event_attributes
    assert started.workflow_type.name == RequestWorkflow.__temporal_workflow_definition.name  # type: ignore[attr-defined]


SECRET = re.compile(rb"xox[abposr]-|\bsk-[A-Za-z0-9_-]{16}|-----BEGIN|Bearer [A-Za-z0-9]")
"""What a Slack token, a model vendor's key, a PEM key or a bearer header starts with."""


def payload_bytes(node: object) -> list[tuple[bytes, bytes]]:
    """``(encoding, data)`` of every payload in a history's JSON."""
    found: list[tuple[bytes, bytes]] = []
    if isinstance(node, dict):
        encoding = node.get("metadata", {}).get("encoding") if "metadata" in node else None
        if isinstance(encoding, str):
            found.append((base64.b64decode(encoding), base64.b64decode(node.get("data", ""))))
        for value in node.values():
            found.extend(payload_bytes(value))
    elif isinstance(node, list):
        for value in node:
            found.extend(payload_bytes(value))
    return found


@pytest.mark.parametrize("file", FILES)
def test_the_fixtures_hold_plain_payloads_and_no_secret(file):
    text = (FIXTURES / file).read_bytes()
    payloads = payload_bytes(json.loads(text))
    assert payloads, file
    assert {encoding for encoding, _ in payloads} <= {b"json/plain", b"binary/null"}
    assert all(encoding != ENCODING for encoding, _ in payloads)
    for _, data in payloads:
        assert not SECRET.search(data), f"{file}: {data[:200]!r}"
    assert not SECRET.search(text)
    assert b'"identity": "recorder"' in text  # the recording host's pid@name is not kept


def test_the_secret_check_can_fail():
    assert SECRET.search(b"xoxb-1-2-abc") and SECRET.search(b"sk-proj-abcdefgh12345678")
    assert not SECRET.search(b"task-complete-v1")


@workflow.defn(name=TASK_WORKFLOW, sandboxed=False)
class AddedStep(TaskWorkflow):
    """Today's task plus one new step before every transition: a change that alters commands."""

    @workflow.run
    async def run(self, task: TaskInput) -> TaskOutcome:
        return await super().run(task)

    async def _transition(self, to: TaskStatus, reason: str) -> None:
        await workflow.sleep(0.01)
        await super()._transition(to, reason)


@workflow.defn(name=TASK_WORKFLOW, sandboxed=False)
class PatchedStep(TaskWorkflow):
    """The same change behind ``workflow.patched``: old histories take the old path."""

    @workflow.run
    async def run(self, task: TaskInput) -> TaskOutcome:
        return await super().run(task)

    async def _transition(self, to: TaskStatus, reason: str) -> None:
        if workflow.patched("sleep-before-transition"):
            await workflow.sleep(0.01)
        await super()._transition(to, reason)


async def test_a_change_that_alters_the_commands_fails_the_replay():
    with pytest.raises(NondeterminismError):
        await replayer(AddedStep).replay_workflow(history("plain_message.2.json"))


async def test_the_same_change_behind_a_patch_replays():
    for file in ("plain_message.2.json", "continue_as_new.1.json", "sub_task.1.json"):
        await replayer(PatchedStep).replay_workflow(history(file))


LOOP_CHANGE = "loop-change-probe"
"""A patch id of this test's own: the change below is a probe, not code of the harness."""


@workflow.defn(name=TASK_WORKFLOW, sandboxed=False)
class LoopChanged(TaskWorkflow):
    """Today's task, run unsandboxed so the test's change to the agent loop reaches it."""

    @workflow.run
    async def run(self, task: TaskInput) -> TaskOutcome:
        return await super().run(task)


def change_the_plan(monkeypatch, *, guarded: bool) -> None:
    """The agent loop performs one operation more before each plan (a step started twice);
    guarded, it asks its port first, as docs/architecture.md's recipe says."""
    original = AgentLoop._run_plan

    async def changed(self: AgentLoop, goal: str) -> str:
        if not guarded or self.patched(LOOP_CHANGE):
            await self.run(StepStartedContext, index=0, step=PlanStep(title=goal))
        return await original(self, goal)

    monkeypatch.setattr(AgentLoop, "_run_plan", changed)


async def test_a_change_to_what_the_loop_performs_fails_the_plan_history(monkeypatch):
    change_the_plan(monkeypatch, guarded=False)
    with pytest.raises(NondeterminismError):
        await replayer(LoopChanged).replay_workflow(history("plan.1.json"))


async def test_the_same_change_behind_the_loops_patched_replays(monkeypatch):
    """``LoopOperations.patched`` is ``workflow.patched``: false for a history without it."""
    change_the_plan(monkeypatch, guarded=True)
    await replayer(LoopChanged).replay_workflow(history("plan.1.json"))


def test_a_loop_in_process_always_takes_the_patched_path():
    """A named agent's loop runs inside its activity, which is never replayed."""
    assert InProcess(HookManager()).patched(LOOP_CHANGE) is True
