"""Asking people, as values: a question or approval request, and the answer given.

Plain frozen values; the hook contexts live in :mod:`harness.hooks.contexts.help`, the
waiting in :mod:`harness.agent`.
"""

from __future__ import annotations

from typing import Literal

from harness.domain.frozen import Frozen
from harness.domain.tools import ToolCall


class HelpRequest(Frozen):
    """A question posted to the task's people, with the choices offered."""

    request_id: str
    kind: Literal["question", "approval", "budget"]
    """``budget``: a limit is used up; only the owner may raise it (:mod:`harness.agent.budget`)."""
    question: str
    options: tuple[str, ...] = ()
    tool_call: ToolCall | None = None
    timeout_seconds: float = 0.0
    """How long the task waits for an answer (0: until answered); then it is timed out."""


class HelpDecision(Frozen):
    """The answer given to a help request."""

    request_id: str
    decided_by: str
    choice: str
    approved: bool = False
    remember: bool = False
    """An approval for the rest of the task ("don't ask again for this tool in this task")."""
    timed_out: bool = False
    """Nobody answered in time: not approved, and no person decided (``decided_by`` is ``""``)."""
