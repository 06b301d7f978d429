"""What a workflow's history holds, payload by payload, as stored and as the codec opens it."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterator

from google.protobuf.message import Message
from temporalio.api.common.v1 import Payload
from temporalio.api.enums.v1 import EventType
from temporalio.client import Client


def payloads_in(message: Message) -> Iterator[Payload]:
    """Every Payload nested anywhere in a proto message (maps and repeated fields included)."""
    if isinstance(message, Payload):
        yield message
        return
    for field, value in message.ListFields():
        if field.message_type is None:
            continue
        if field.message_type.GetOptions().map_entry:
            items = list(value.values())
        elif field.is_repeated:
            items = list(value)
        else:
            items = [value]
        for item in items:
            if isinstance(item, Message):
                yield from payloads_in(item)


async def stored_payloads(client: Client, workflow_id: str) -> list[Payload]:
    """The payloads of a workflow's history as the server keeps them."""
    history = await client.get_workflow_handle(workflow_id).fetch_history()
    return [p for event in history.events for p in payloads_in(event)]


async def opened_bytes(client: Client, workflow_id: str) -> bytes:
    """Every payload of the history decoded with the client's codec, concatenated."""
    payloads = await stored_payloads(client, workflow_id)
    codec = client.data_converter.payload_codec
    opened = await codec.decode(payloads) if codec else payloads
    return b"\n".join(p.SerializeToString() for p in opened)


async def steps_run(client: Client, workflow_id: str) -> Counter[str]:
    """How often each operation's activity ran in a workflow's history: scheduled on the task
    queue, or run locally (a local activity leaves a marker naming its type instead), by the
    activity's name; its ``*-changes-v1`` form (issue 27) counts as the operation's too."""
    history = await client.get_workflow_handle(workflow_id).fetch_history()
    ran: Counter[str] = Counter()
    for event in history.events:
        if event.event_type == EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED:
            ran[_named(event.activity_task_scheduled_event_attributes.activity_type.name)] += 1
        marker = event.marker_recorded_event_attributes
        if event.event_type == EventType.EVENT_TYPE_MARKER_RECORDED and "data" in marker.details:
            data = json.loads(marker.details["data"].payloads[0].data)
            if isinstance(data, dict) and "activity_type" in data:
                ran[_named(data["activity_type"])] += 1
    return ran


def _named(activity: str) -> str:
    return activity.replace("-changes-v", "-v")
