"""The status view's facts: what ``/task status`` hands the view besides the snapshot.

The view itself, every word of it, is :mod:`harness.replies.status`; this describes
the budget (:func:`harness.agent.budget.describe`) and links the workflow in the Temporal Web
UI, which the reply module cannot reach (it imports neither the agent nor Temporal).
"""

from __future__ import annotations

from harness.agent.budget import describe
from harness.domain import SubtaskSummary, TaskSnapshot
from harness.replies import status
from harness.temporal import workflow_url


def render(
    snapshot: TaskSnapshot, *, now: float = 0.0, ui_url: str = "", namespace: str = "default"
) -> str:
    """The snapshot as Slack mrkdwn; with ``ui_url``, a link to its workflow last.

    Args:
        snapshot: the task as its workflow attached it to the command.
        now: the time (epoch seconds) elapsed times and timeouts are measured to.
        ui_url: the Temporal Web UI (``""``: no link).
        namespace: the namespace tasks run in, for the link.
    """
    link = workflow_url(ui_url, namespace, snapshot.ref.task_id) if ui_url else ""
    return status.render(snapshot, now=now, budget=describe(snapshot.budget), link=link)


def render_subtask(
    subtask: SubtaskSummary, *, now: float = 0.0, ui_url: str = "", namespace: str = "default"
) -> str:
    """One sub-task as its parent knows it (``/task status sub-1``; issue 26)."""
    link = workflow_url(ui_url, namespace, subtask.task_id) if ui_url else ""
    return status.render_subtask(subtask, now=now, used=describe(subtask.usage), link=link)
