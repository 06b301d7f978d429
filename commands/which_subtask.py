"""Which sub-task a command names (``/task status sub-1``, ``/task stop sub-task 2``).

The argument grammar (``sub-1``, ``sub-task 1``, ``1``), shared by the commands that take
it, and the lookup in the snapshot the workflow attached: by the number the thread calls
the sub-task by (:func:`~harness.replies.subtask_number`), never by its id. The
commands are :mod:`commands.status` and :mod:`commands.stop` (issue 26).
"""

from __future__ import annotations

import re
from typing import Final

from commands.spec import UsageError
from harness import replies
from harness.domain import SubtaskSummary, TaskSnapshot

ARGUMENT: Final = "[sub-N]"
"""How a command's synopsis shows the optional sub-task."""

_FORM: Final = re.compile(r"^(?:sub(?:-?task)?[\s-]*)?(\d{1,6})$", re.IGNORECASE)


def number(text: str, *, command: str, usage: str) -> int | None:
    """The sub-task ``text`` names (``None``: blank, the task itself).

    Raises:
        UsageError: ``text`` names no sub-task.
    """
    text = " ".join(text.split())
    if not text:
        return None
    found = _FORM.match(text)
    if found is None or int(found.group(1)) < 1:
        raise UsageError(command=command, problem=replies.not_a_subtask(text), usage=usage)
    return int(found.group(1))


def find(snapshot: TaskSnapshot | None, wanted: int) -> SubtaskSummary | str:
    """Sub-task ``wanted`` of the task, or the reply that names the ones it has."""
    subtasks = snapshot.subtasks if snapshot is not None else ()
    for subtask in subtasks:
        if replies.subtask_number(subtask.task_id) == wanted:
            return subtask
    labels = tuple(found for s in subtasks if (found := replies.subtask_label(s.task_id)))
    return replies.no_such_subtask(wanted, labels)
