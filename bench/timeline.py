"""Where a message's time to reply goes, read from the workflow histories of the same run.

A message is sent at ``sent`` and its reply seen at ``answered`` (wall clock; the dev
server stamps its events with the same machine's clock). :func:`split` cuts that time
into parts that add up to it:

- ``bot``: from the POST to the first event of the lane's workflows after it (the bot's
  own handling and its call to Temporal; for the floor, the client's update call);
- ``queued``: Temporal's schedule-to-start of workflow and activity tasks;
- ``between``: inside Temporal, covered by no task (a task's completion to the next
  one's scheduling), and the bench's own polling for the reply (every 20 ms);
- ``workflow``: workflow tasks' start-to-close (the worker's workflow code);
- ``activities``: activities' start-to-close (the worker's operations: hook chains,
  built-in bodies, the post to Slack).

Where spans overlap (parallel activities), an instant counts once, for the highest of
activities, workflow, queued. The hook executors' own time comes from the worker's
metrics endpoint (:func:`hook_ms`: the executor latency histogram of
``[observability] executor_stats``); it is inside ``activities``, as a mean per message.
"""

from __future__ import annotations

import bisect
import itertools
import re
import statistics
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Final

from temporalio.api.history.v1 import HistoryEvent
from temporalio.client import Client

from harness.hooks import LATENCY_METRIC

PARTS: Final = ("bot", "queued", "between", "workflow", "activities")
LABELS: Final = {
    "bot": "bot: POST to its task's first event",
    "queued": "Temporal: schedule-to-start",
    "between": "Temporal: between tasks, polling",
    "workflow": "worker: workflow tasks",
    "activities": "worker: activities",
}
_RANK: Final = {"queued": 1, "workflow": 2, "activities": 3}
_ENDS: Final = ("completed", "failed", "timed_out", "canceled")
_SUM: Final = re.compile(rf"^{LATENCY_METRIC}\w*_sum\{{(?P<labels>[^}}]*)\}} (?P<value>\S+)$")
_POINT: Final = re.compile(r'point="([^"]*)"')


@dataclass(frozen=True)
class Span:
    start: float
    end: float
    part: str


@dataclass
class Lane:
    """One lane's workflows (its task, its request workflows): event times and task spans."""

    times: list[float] = field(default_factory=list)
    spans: list[Span] = field(default_factory=list)

    def add(self, events: Iterable[HistoryEvent]) -> None:
        scheduled: dict[int, float] = {}
        started: dict[int, tuple[float, str]] = {}
        for event in events:
            at = event.event_time.seconds + event.event_time.nanos / 1e9
            self.times.append(at)
            which = event.WhichOneof("attributes") or ""
            kind = "workflow" if which.startswith("workflow_task_") else "activities"
            if not which.startswith(("workflow_task_", "activity_task_")):
                continue
            attributes = getattr(event, which)
            if which.endswith("_scheduled_event_attributes"):
                scheduled[event.event_id] = at
            elif which.endswith("_started_event_attributes"):
                since = scheduled.get(attributes.scheduled_event_id, at)
                self.spans.append(Span(since, at, "queued"))
                started[event.event_id] = (at, kind)
            elif any(which.endswith(f"_{end}_event_attributes") for end in _ENDS):
                begun = started.get(getattr(attributes, "started_event_id", 0))
                if begun is not None:
                    self.spans.append(Span(begun[0], at, begun[1]))
        self.times.sort()


async def read_lanes(client: Client, lane_of: Callable[[str], str | None]) -> dict[str, Lane]:
    """Every run of every workflow whose id ``lane_of`` maps to a lane, read into its lane."""
    lanes: dict[str, Lane] = {}
    async for execution in client.list_workflows():
        if (name := lane_of(execution.id)) is None:
            continue
        handle = client.get_workflow_handle(execution.id, run_id=execution.run_id)
        lanes.setdefault(name, Lane()).add((await handle.fetch_history()).events)
    return lanes


def split(sent: float, answered: float, lane: Lane) -> dict[str, float]:
    """Seconds of ``[sent, answered]`` in each part of :data:`PARTS` (they add up to it)."""
    parts = dict.fromkeys(PARTS, 0.0)
    index = bisect.bisect_left(lane.times, sent)
    first = min(lane.times[index] if index < len(lane.times) else answered, answered)
    parts["bot"] = first - sent
    inside = [s for s in lane.spans if s.end > first and s.start < answered]
    cuts = sorted(
        {first, answered, *(min(max(t, first), answered) for s in inside for t in (s.start, s.end))}
    )
    for low, high in itertools.pairwise(cuts):
        middle = (low + high) / 2
        covering = [s.part for s in inside if s.start <= middle < s.end]
        parts[max(covering, key=_RANK.__getitem__) if covering else "between"] += high - low
    return parts


def summary(splits: Sequence[dict[str, float]]) -> dict[str, dict[str, float]]:
    """Milliseconds per part: ``p50``, the mean of the middle fifth of messages by time to
    reply (where the p50 goes); ``mean``, of all messages."""
    ordered = sorted(splits, key=lambda s: sum(s.values()))
    low = int(len(ordered) * 0.4)
    band = ordered[low : max(int(len(ordered) * 0.6), low + 1)]

    def means(chosen: Sequence[dict[str, float]]) -> dict[str, float]:
        got = {p: round(statistics.fmean(s[p] for s in chosen) * 1000, 1) for p in PARTS}
        return {**got, "total": round(sum(got.values()), 1)}

    return {"p50": means(band), "mean": means(ordered)}


def hook_ms(metrics: str) -> dict[str, float]:
    """Milliseconds the hook executors ran, by hook point, from a ``/metrics`` text."""
    by_point: dict[str, float] = {}
    for line in metrics.splitlines():
        if (match := _SUM.match(line)) is not None:
            point = _POINT.search(match["labels"])
            name = point.group(1) if point else "-"
            by_point[name] = by_point.get(name, 0.0) + float(match["value"])
    return by_point
