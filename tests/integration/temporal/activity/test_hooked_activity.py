"""Every activity the worker registers runs its operation's chain through the hook wrapper.

The list of activities is pinned: the task operations, ``dispatch_hooks`` and one
activity per agent-loop and channel operation (issue 5), each with a default body.
"""

from __future__ import annotations

import asyncio
from uuid import uuid4

import pytest
from pydantic import Field
from temporalio.worker import Worker

from harness.domain import TaskRef
from harness.domain.outcome import Asked, Refused
from harness.hooks import HookAbort, forget_operation
from harness.hooks.catalogue import ACTIVITIES, DISPATCH_HOOKS, changes_name, refs_name
from harness.hooks.contexts import (
    ActivityFailedContext,
    ActivityRetriedContext,
    HookContext,
    context_type,
)
from harness.temporal.activity.hooked import HOOKED_ATTRIBUTE, HarnessActivities
from harness.temporal.models import Changed, applied
from harness.temporal.refs import MessageRefs, message_fields

from ..probe import Probe

REF = TaskRef(task_id="task/T/probe")
OWNER = [{"user_id": "U1", "role": "owner"}]
HELP = {"request_id": "h1", "kind": "question", "question": "which?", "options": ["a", "b"]}


def sample(operation: str) -> HookContext:
    """A minimal valid context of each operation the activities perform."""
    fields = {
        "task.created": {"spec": {"title": "t", "owner": "U1"}},
        "task.state_changed": {"from_status": "created", "to_status": "running"},
        "task.complete": {"status": "succeeded"},
        "persistence.read": {"key": "probe/k"},
        "persistence.write": {"key": "probe/k", "content": "x"},
        "subtask.spawned": {"spec": {"title": "s", "requested_by": "U1"}},
        "command.invoked": {"command": "status", "sender": "U1"},
        "request.received": {"text": "hello", "sender": "U1", "thread": "1.0"},
        "activity.failed": {"activity": "a", "error_type": "E"},
        "activity.retried": {"activity": "a", "backoff_seconds": 0.1},
        "channel.received": {"message": {"channel": "C1", "user": "U1", "text": " hi "}},
        "channel.sent": {"message": {"channel": "C1", "text": "hi"}},
        "context.created": {"transcript": [{"role": "user", "content": "hi"}]},
        "llm.invoked": {"model": "offline", "messages": [{"role": "user", "content": "hi"}]},
        "tool_calls.extracted": {"response": {"tool_calls": [{"id": "c1", "name": "echo"}]}},
        "tool.invoked": {"call": {"id": "c1", "name": "echo", "arguments": {"text": "x"}}},
        "system_one.invoked": {"model": "offline", "request": "hello"},
        "plan.created": {"goal": "plan: a; b"},
        "step.started": {"index": 0, "step": {"title": "a"}},
        "step.finished": {"index": 0, "step": {"title": "a"}, "output": "done"},
        "help.requested": {"request": HELP},
        "help.decided": {"request": HELP, "decided_by": "U1", "choice": "yes"},
        "compaction.trigger": {"token_count": 10, "token_budget": 5},
        "compaction.keep": {"messages": [{"role": "user", "content": "hi"}]},
        "compaction.summarise": {
            "messages": [{"role": "user", "content": "hi"}],
            "model": "offline",
        },
        "skill.loaded": {"name": "arithmetic"},
        "skill.unloaded": {"name": "arithmetic"},
        "agent.invoked": {"agent": "reviewer", "input": 'call echo {"text": "x"}'},
    }.get(operation)
    if fields is None:  # a newer operation: its required fields' own examples
        fields = examples(operation)
    return context_type(operation).model_validate(
        {"task": REF, "correlation_id": "probe", "participants": OWNER, **fields}
    )


def examples(operation: str) -> dict[str, object]:
    """The first example of each required field of ``operation``'s context.

    Raises:
        LookupError: a required field has none (the schemas, fixtures and activity tests
            need a sample of every operation).
    """
    cls = context_type(operation)
    required = {name: f for name, f in cls.model_fields.items() if f.is_required()}
    bare = [name for name, f in required.items() if not f.examples]
    if bare:
        raise LookupError(
            f"no sample context of {operation}: give {cls.__name__}'s required fields "
            f"{', '.join(bare)} an example each, Field(examples=[...]) (the published "
            "schema shows it), or add them to sample() in "
            "tests/integration/temporal/activity/test_hooked_activity.py"
        )
    return {name: f.examples[0] for name, f in required.items() if f.examples}


async def probe(client, task_queue, name, ctx, cancel_after=0.0):
    return await client.execute_workflow(
        "probe",
        args=[name, ctx.model_dump(mode="json"), cancel_after],
        id=f"probe-{uuid4()}",
        task_queue=task_queue,
    )


def test_a_newer_operations_sample_is_its_required_fields_examples():
    class ProbeSampledContext(HookContext, operation="probe.sampled", family="probe"):
        lines: tuple[str, ...] = Field(examples=[["a", "b"]])
        note: str = ""

    class ProbeBareContext(HookContext, operation="probe.bare", family="probe"):
        lines: tuple[str, ...]

    try:
        assert sample("probe.sampled").lines == ("a", "b")
        with pytest.raises(LookupError, match=r"give ProbeBareContext's required fields lines an"):
            sample("probe.bare")
    finally:
        forget_operation("probe.sampled")
        forget_operation("probe.bare")


async def test_every_registered_activity_runs_its_chain_through_the_wrapper(
    client, task_queue, manager, recorder
):
    activities = HarnessActivities(manager)
    registered = {a.__temporal_activity_definition.name: a for a in activities.activities()}
    # Every catalogue activity, its form answering with what changed (issue 27), the form
    # taking messages by reference of each whose context holds messages (issue 27), and the
    # one retry hooks shared before issue 25 (kept for older histories and workers).
    lean = {changes_name(name) for name in ACTIVITIES.values()}
    by_ref = {
        refs_name(name): op for op, name in ACTIVITIES.items() if message_fields(context_type(op))
    }
    assert set(by_ref.values()) == {
        "compaction.keep",
        "compaction.summarise",
        "context.created",
        "llm.invoked",
        "system_one.invoked",
    }
    assert set(registered) == set(ACTIVITIES.values()) | lean | set(by_ref) | {DISPATCH_HOOKS}
    cases = [(name, op) for op, name in ACTIVITIES.items()]
    cases += [(changes_name(name), op) for op, name in ACTIVITIES.items()]
    cases += list(by_ref.items())
    recorder.attach(manager, {op for _, op in cases})
    async with Worker(
        client, task_queue=task_queue, workflows=[Probe], activities=activities.activities()
    ):
        for name, operation in cases:
            assert getattr(registered[name], HOOKED_ATTRIBUTE) in (operation, "*")
            recorder.trace.clear()
            refs = MessageRefs(f"probe/{name}")
            sent = refs.send(sample(operation)) if name in by_ref else sample(operation)
            out = await probe(client, task_queue, name, sent)
            assert "ok" in out, (name, out)
            points = [p for p, _ in recorder.trace]
            own = [p for p in points if p.rsplit(".", 1)[0] == operation]
            assert own == [f"{operation}.{ph}" for ph in ("pre", "in", "post")], name
            # Only a named agent's loop runs operations inside its own (between in and post).
            assert points[:2] == own[:2] and points[-1] == own[-1], name
            if name in by_ref:  # what changed, a message it was sent named by number
                returned = refs.applied(sample(operation), Changed.model_validate(out["ok"]))
            elif name in lean:  # the fields the chains changed, the result among them
                assert out["ok"]["outcome"] == "changed", name
                returned = applied(sample(operation), Changed.model_validate(out["ok"]))
            else:
                returned = context_type(operation).model_validate(out["ok"])
            if operation != "command.invoked":  # its bodies come with the commands plugin
                assert returned.result is not None, name


async def test_an_abort_is_the_activitys_result_not_a_failure(client, task_queue, manager):
    """Issue 25: a veto is an answer. The activity completes with the Refused value (so no
    activity.failed follows it, and one activity is all an abort costs)."""

    async def veto(ctx):
        raise HookAbort("not today", refusal=True)

    manager.register("persistence.write.pre", veto)
    activities = HarnessActivities(manager)
    async with Worker(
        client, task_queue=task_queue, workflows=[Probe], activities=activities.activities()
    ):
        out = await probe(client, task_queue, "persistence-write-v1", sample("persistence.write"))
    refused = Refused.model_validate(out["ok"])
    assert (refused.reason, refused.deliberate) == ("not today", True)
    assert refused.point == "persistence.write.pre" and "veto" in refused.executor
    assert manager.aborts[-1].reason == "not today"


async def test_an_ask_of_the_approval_policy_reaches_the_workflow_as_an_ask(
    client, task_queue, manager
):
    """Issue 14: the policy's ask crosses the activity boundary with its timeout, as the
    Asked value the workflow reads (an approval question, not a denial)."""
    from harness.hooks import register_approvals
    from harness.hooks.monitors.approvals import ApprovalsConfig

    register_approvals(manager, ApprovalsConfig(default="strict", timeout_seconds=75))
    activities = HarnessActivities(manager)
    async with Worker(
        client, task_queue=task_queue, workflows=[Probe], activities=activities.activities()
    ):
        out = await probe(client, task_queue, "tool-invoked-v1", sample("tool.invoked"))
    asked = Asked.model_validate(out["ok"])
    assert asked.timeout_seconds == 75
    assert asked.point == "tool.invoked.pre" and asked.executor == "approvals"
    assert manager.audit.last(1)[0].kind == "ask"


async def test_other_errors_keep_their_type_name_and_stay_retryable(client, task_queue, manager):
    async def broken(ctx):
        raise KeyError("missing")

    manager.register("task.complete.in", broken, priority=10)
    activities = HarnessActivities(manager)
    async with Worker(
        client, task_queue=task_queue, workflows=[Probe], activities=activities.activities()
    ):
        out = await probe(client, task_queue, "task-complete-v1", sample("task.complete"))
    assert out["error"]["type"] == "KeyError"
    assert out["error"]["non_retryable"] is False


async def test_cancellation_reaches_the_running_chain(client, task_queue, manager):
    started, seen = asyncio.Event(), []

    class Observer:
        async def __call__(self, ctx):
            return None

        def abandon(self, point, ctx, error):
            seen.append((point, type(error).__name__))

    async def slow_body(ctx):
        started.set()
        await asyncio.sleep(30)

    manager.register("persistence.read.pre", Observer())
    manager.register("persistence.read.in", slow_body, priority=10)
    activities = HarnessActivities(manager)
    async with Worker(
        client, task_queue=task_queue, workflows=[Probe], activities=activities.activities()
    ):
        out = await probe(
            client, task_queue, "persistence-read-v1", sample("persistence.read"), cancel_after=0.3
        )
        assert started.is_set()
    assert out["error"]["type"] == "CancelledError"
    assert seen == [("persistence.read.pre", "CancelledError")]
    assert activities.in_flight == 0


async def test_dispatch_hooks_tells_failed_from_retried_by_the_context_fields(
    client, task_queue, manager
):
    activities = HarnessActivities(manager)
    async with Worker(
        client, task_queue=task_queue, workflows=[Probe], activities=activities.activities()
    ):
        failed = await probe(client, task_queue, DISPATCH_HOOKS, sample("activity.failed"))
        retried = await probe(client, task_queue, DISPATCH_HOOKS, sample("activity.retried"))
    decision = ActivityFailedContext.model_validate(failed["ok"]).result
    assert decision.retry is True and decision.backoff_seconds > 0
    assert ActivityRetriedContext.model_validate(retried["ok"]).result == 0.1
