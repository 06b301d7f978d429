"""Questions in words: a question's notes (answered, timed out, closed), what a late click
reads, and why an answer is not taken.

The question itself is the agent's (or a policy's) text, posted as asked by
:mod:`harness.channels.slack`; no question id is ever said here.
"""

from __future__ import annotations

from typing import Final

from harness.domain import Role
from harness.replies.neutral import neutral

__all__ = [
    "ANSWER_CHARS",
    "NAMED_AGENT_ASKS",
    "NEEDS_INPUT",
    "QUESTION_CLOSED",
    "QUESTION_STOPPED",
    "QUESTION_TASK_ENDED",
    "QUESTION_TIMED_OUT",
    "answered",
    "budget_owner_only",
    "cannot_answer",
    "late_click",
    "nobody_answered",
    "question_answered",
    "question_timed_out",
]


QUESTION_CLOSED: Final = (
    "that question is no longer open: it was answered, it timed out, or its request ended"
)
"""Why a click on a question's button is not taken (said without the question's id), when
the task no longer knows how it closed (:func:`late_click` says it when it does)."""

QUESTION_TIMED_OUT: Final = "timed out: nobody answered in time"
"""The note a timed-out question's message is edited to (its buttons removed)."""

QUESTION_STOPPED: Final = "closed by a stop: nobody answered before the turn was stopped"
"""The note of a question left open when its turn was stopped."""

QUESTION_TASK_ENDED: Final = "closed: the task ended before anyone answered"
"""The note of a question left open when its task (a sub-task's: the parent) ended."""

NAMED_AGENT_ASKS: Final = "a named agent cannot ask people for help"
"""Why a named agent's loop (``agent.invoked``) gets no person's answer."""

NEEDS_INPUT: Final = "The agent needs your input."
"""The question of an ``ask_human`` call that says none."""

ANSWER_CHARS: Final = 200


def question_answered(user: str, choice: str) -> str:
    """The note an answered question's message is edited to: who answered, and what."""
    line = " ".join(choice.split())
    line = line if len(line) <= ANSWER_CHARS else line[: ANSWER_CHARS - 1] + "…"
    return f"answered by <@{user}>: {neutral(line)}"


def answered(user: str, choice: str) -> str:
    """What the model reads of an answer to its question (``<@U1>``: Slack shows the name
    when it is echoed in the thread; the model knows the mention form)."""
    return f"<@{user}> answered: {choice}"


def nobody_answered(seconds: float) -> str:
    """What the model reads of a question nobody answered in time."""
    return f"nobody answered within {seconds:g} s"


def late_click(note: str) -> str:
    """What someone who clicks a closed question reads (only they see it): how it closed."""
    return f"this question is no longer open ({note}), so your answer was not taken"


def question_timed_out(question: str, waited: str, *, approval: bool) -> str:
    """Posted when nobody answered a question within its timeout (``waited``, in words)."""
    outcome = "not approved" if approval else "the agent goes on without it"
    return f"No answer to “{question}” within {waited}: timed out, {outcome}."


def budget_owner_only(user: str) -> str:
    """Why ``user``'s answer to a budget question is not taken: raising it is the owner's."""
    return f"only the task's owner can raise its budget; <@{user}> cannot answer this"


def cannot_answer(user: str, role: Role) -> str:
    """Why ``user``, a watcher or no participant (``role``), cannot answer a question."""
    who = "not a participant" if role is Role.NONE else f"a {role.value}"
    return f"{user} is {who}; only the owner or a collaborator can answer"
