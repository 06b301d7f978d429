"""Issue 9 on the dev server: what the client sends is redacted, then stored encrypted.

The session's client and worker share one fresh payload key (``PAYLOAD_KEY``); the
checks read the history as the server returns it and as the codec opens it.
"""

from __future__ import annotations

import json
import secrets

from temporalio.api.enums.v1 import EventType
from temporalio.client import Client
from temporalio.contrib.pydantic import pydantic_data_converter

from harness.domain import ChannelMessage, TaskSpec
from harness.temporal import TASK_WORKFLOW
from harness.temporal.codec import ENCODING
from harness.temporal.models import TaskInput
from harness.temporal.workflow.transcript import TRANSCRIPT_LOG_PATCH
from tests.support.history import opened_bytes, payloads_in, stored_payloads

from .conftest import assert_replays

MASK = "[REDACTED]"


def canary_token() -> str:
    return "xoxb-" + secrets.token_hex(12)  # a Slack bot token's shape


async def test_a_token_sent_through_the_client_is_masked_in_the_transcript(harness, worker):
    token, word = canary_token(), "plain" + secrets.token_hex(6)
    ref = await harness.start_task(
        TaskSpec(title="t", owner="U1", prompt=f"use {token}"), team="T", channel="CREDACT1"
    )
    message = ChannelMessage(
        channel="CREDACT1", user="U1", ts="1.1", text=f"{word}: the token is {token}"
    )
    assert await harness.send_message(ref.task_id, message) == 1
    [seen] = await harness.transcript(ref.task_id)
    assert seen.text == f"{word}: the token is {MASK}"
    opened = await opened_bytes(harness.temporal, ref.task_id)
    assert token.encode() not in opened  # the spec and the message were masked before sending
    assert word.encode() in opened and MASK.encode() in opened


async def test_every_payload_in_history_is_encrypted_and_the_history_replays(harness, worker):
    word = "plain" + secrets.token_hex(6)
    ref = await harness.start_task(TaskSpec(title=word, owner="U1"), team="T", channel="CSEAL1")
    await harness.send_message(
        ref.task_id, ChannelMessage(channel="CSEAL1", user="U1", text=word, ts="1.1")
    )
    await harness.finish(ref.task_id, summary=word)
    await harness.outcome(ref.task_id)
    history = await harness.temporal.get_workflow_handle(ref.task_id).fetch_history()
    # workflow.patched writes, past the codec, a marker per patch and the patch ids as the
    # TemporalChangeVersion search attribute: in the clear, they hold patch ids and nothing
    # of the task. A local step's marker (issue 27) holds the SDK's bookkeeping in the clear
    # (its type, sequence, times) beside its result, which is sealed. Every other payload is.
    marker = EventType.EVENT_TYPE_MARKER_RECORDED
    markers = [e.marker_recorded_event_attributes for e in history.events if e.event_type == marker]
    assert {m.marker_name for m in markers} <= {"core_patch", "core_local_activity"}
    patches = [
        json.loads(p.data) for m in markers if m.marker_name == "core_patch" for p in payloads_in(m)
    ]
    assert all(set(p) == {"id", "deprecated"} for p in patches)
    ids = {p["id"] for p in patches}
    assert TRANSCRIPT_LOG_PATCH in ids
    steps = [m for m in markers if m.marker_name == "core_local_activity"]
    bookkeeping = [json.loads(m.details["data"].payloads[0].data) for m in steps]
    assert all(set(b) <= LOCAL_MARKER_FIELDS for b in bookkeeping)

    def patch_ids(p) -> bool:
        return p.metadata.get("type") == b"KeywordList" and set(json.loads(p.data)) <= ids

    stored = [
        p
        for e in history.events
        if e.event_type != marker
        for p in payloads_in(e)
        if p.data and not patch_ids(p)
    ]
    stored += [p for m in steps for p in m.details["result"].payloads]
    assert stored and {p.metadata["encoding"] for p in stored} == {ENCODING}
    assert all(word.encode() not in p.SerializeToString() for p in stored)
    assert word.encode() in await opened_bytes(harness.temporal, ref.task_id)
    await assert_replays(harness.temporal, [ref.task_id])


LOCAL_MARKER_FIELDS = {
    "seq",
    "attempt",
    "activity_id",
    "activity_type",
    "complete_time",
    "backoff",
    "original_schedule_time",
    "activation_index",
}
"""What the SDK records of a local activity beside its result: no content of the task."""


async def test_a_task_started_before_encryption_stays_readable(
    harness, worker, temporal_address, settings
):
    plain = await Client.connect(temporal_address, data_converter=pydantic_data_converter)
    ref = harness.task_id("T", "CLEGACY1")
    task = TaskInput(
        ref={"task_id": ref, "team": "T", "channel": "CLEGACY1"},
        spec=TaskSpec(title="old", owner="U1", model="offline"),
    )
    await plain.start_workflow(TASK_WORKFLOW, task, id=ref, task_queue=settings.task_queue)
    [started] = [p for p in await stored_payloads(plain, ref) if p.data]
    assert started.metadata["encoding"] == b"json/plain"  # written in the clear, as before
    assert (
        await harness.send_message(
            ref, ChannelMessage(channel="CLEGACY1", user="U1", text="hello", ts="1.1")
        )
        == 1
    )
    assert [m.text for m in await harness.transcript(ref)] == ["hello"]
    assert (await harness.snapshot(ref)).title == "old"
