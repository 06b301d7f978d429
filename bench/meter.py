"""What a run leaves in Temporal and in the worker's database: the benches' shared meter.

:class:`Meter` reads every workflow history of the namespace (continue-as-new runs
included) and the worker's SQLite files, and sums them into :class:`Totals`: history
events and bytes as stored (compressed, encrypted: what Temporal's limits count) and as
the codec opens them, activities scheduled, workflows, store bytes. Two readings, before
and after, give what the messages in between cost (``bench/thread_growth.py`` per message
of one thread, ``bench/load.py`` per message of all its lanes).
"""

from __future__ import annotations

import contextlib
import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from temporalio.api.enums.v1 import EventType
from temporalio.api.history.v1 import HistoryEvent
from temporalio.client import Client

from harness.temporal.codec import data_converter
from harness.temporal.keys import parse_keys
from tests.support.history import payloads_in

__all__ = ["KINDS", "Meter", "Totals", "codec_client", "stored_bytes"]


async def codec_client(address: str, key: str) -> Client:
    """A client of the dev server at ``address`` that opens payloads with ``key``."""
    return await Client.connect(address, data_converter=data_converter(parse_keys(key)))


@dataclass
class Totals:
    """What the namespace's histories and the worker's database hold now."""

    events: int = 0
    bytes: int = 0
    opened: int = 0
    activities: int = 0
    """Activities scheduled on the task queue: each a round trip through the server."""
    local: int = 0
    """Local activities (their markers): run by the workflow's worker, no round trip."""
    workflows: int = 0
    store: int = 0
    markers: int = 0
    """History bytes (stored) of local steps' markers."""
    queued: int = 0
    """History bytes (stored) of activities on the task queue: scheduled, started, completed."""
    tasks: int = 0
    """History bytes (stored) of workflow tasks: scheduled, started, completed."""
    updates: int = 0
    """History bytes (stored) of updates: accepted, completed."""

    def minus(self, other: Totals) -> Totals:
        return Totals(*(getattr(self, f) - getattr(other, f) for f in self.__dataclass_fields__))


@dataclass
class Meter:
    """Reads the totals; a closed run's history never changes, so it is read once."""

    client: Client
    data_dir: Path
    closed: dict[str, tuple[int, ...]] = field(default_factory=dict)

    async def totals(self) -> Totals:
        totals = Totals()
        async for execution in self.client.list_workflows():
            totals.workflows += 1
            seen = self.closed.get(execution.run_id)
            if seen is None:
                handle = self.client.get_workflow_handle(execution.id, run_id=execution.run_id)
                history = await handle.fetch_history()
                scheduled = EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED
                stored = sum(e.ByteSize() for e in history.events)
                kinds = _kinds(history.events)
                seen = (
                    len(history.events),
                    stored,
                    stored + await self.opening(history.events),
                    sum(e.event_type == scheduled for e in history.events),
                    sum(_local(e) for e in history.events),
                    *(kinds[kind] for kind in KINDS),
                )
                if execution.close_time is not None:
                    self.closed[execution.run_id] = seen
            totals.events += seen[0]
            totals.bytes += seen[1]
            totals.opened += seen[2]
            totals.activities += seen[3]
            totals.local += seen[4]
            for kind, size in zip(KINDS, seen[5:], strict=True):
                setattr(totals, kind, getattr(totals, kind) + size)
        totals.store = stored_bytes(self.data_dir)
        return totals

    async def opening(self, events: Sequence[HistoryEvent]) -> int:
        """How many bytes more the events' payloads take once the codec opened them."""
        payloads = [p for e in events for p in payloads_in(e)]
        codec = self.client.data_converter.payload_codec
        opened = await codec.decode(payloads) if codec else payloads
        return sum(p.ByteSize() for p in opened) - sum(p.ByteSize() for p in payloads)


KINDS = ("markers", "queued", "tasks", "updates")
"""The kinds of events :class:`Totals` sums the stored bytes of (the rest is "other")."""
_KIND_OF = {
    EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED: "queued",
    EventType.EVENT_TYPE_ACTIVITY_TASK_STARTED: "queued",
    EventType.EVENT_TYPE_ACTIVITY_TASK_COMPLETED: "queued",
    EventType.EVENT_TYPE_ACTIVITY_TASK_FAILED: "queued",
    EventType.EVENT_TYPE_WORKFLOW_TASK_SCHEDULED: "tasks",
    EventType.EVENT_TYPE_WORKFLOW_TASK_STARTED: "tasks",
    EventType.EVENT_TYPE_WORKFLOW_TASK_COMPLETED: "tasks",
    EventType.EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_ACCEPTED: "updates",
    EventType.EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_COMPLETED: "updates",
}


def _kinds(events: Sequence[HistoryEvent]) -> dict[str, int]:
    """Stored bytes of ``events`` by :data:`KINDS`."""
    sizes = dict.fromkeys(KINDS, 0)
    for event in events:
        kind = "markers" if _local(event) else _KIND_OF.get(event.event_type)
        if kind is not None:
            sizes[kind] += event.ByteSize()
    return sizes


def _local(event: HistoryEvent) -> bool:
    """Whether ``event`` is a local activity's marker."""
    marker = event.marker_recorded_event_attributes
    return (
        event.event_type == EventType.EVENT_TYPE_MARKER_RECORDED
        and marker.marker_name == "core_local_activity"
    )


def stored_bytes(data_dir: Path) -> int:
    """Bytes of content the worker's SQLite files hold (every table with a ``content`` column)."""
    total = 0
    for path in data_dir.glob("*.sqlite3"):
        with contextlib.closing(sqlite3.connect(f"file:{path}?mode=ro", uri=True)) as db:
            tables = [r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type='table'")]
            for table in tables:
                columns = [r[1] for r in db.execute(f'PRAGMA table_info("{table}")')]
                if "content" in columns:
                    row = db.execute(f'SELECT COALESCE(SUM(LENGTH(content)), 0) FROM "{table}"')
                    total += int(row.fetchone()[0])
    return total
