"""Contexts of asking people: a question or approval request, and the answer that comes back."""

from __future__ import annotations

from typing import ClassVar, Literal

from harness.hooks.contexts.base import Frozen, HookContext
from harness.hooks.contexts.llm import ToolCall


class HelpRequest(Frozen):
    """A question posted to the task's people, with the choices offered."""

    request_id: str
    kind: Literal["question", "approval"]
    question: str
    options: tuple[str, ...] = ()
    tool_call: ToolCall | None = None


class HelpDecision(Frozen):
    """The answer given to a help request."""

    request_id: str
    decided_by: str
    choice: str
    approved: bool = False


class HelpRequestedContext(HookContext):
    """The agent asks for help; the body returns the request as posted."""

    operation: ClassVar[str] = "help.requested"
    request: HelpRequest
    result: HelpRequest | None = None


class HelpDecidedContext(HookContext):
    """Someone answered a help request; the body returns the decision the loop acts on."""

    operation: ClassVar[str] = "help.decided"
    request: HelpRequest
    decided_by: str
    choice: str
    result: HelpDecision | None = None
