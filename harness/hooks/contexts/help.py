"""Contexts of asking people: a question or approval request, and the answer that comes back."""

from __future__ import annotations

from harness.domain import HelpDecision, HelpRequest
from harness.hooks.contexts.base import HookContext


class HelpRequestedContext(HookContext, operation="help.requested", local=True):
    """The agent asks for help; the body returns the request as posted."""

    request: HelpRequest
    result: HelpRequest | None = None


class HelpDecidedContext(HookContext, operation="help.decided", local=True):
    """Someone answered a help request; the body returns the decision the loop acts on."""

    request: HelpRequest
    decided_by: str
    choice: str
    timed_out: bool = False
    """Nobody answered within the request's ``timeout_seconds`` (``decided_by`` is ``""``)."""
    result: HelpDecision | None = None
