"""Policies in words: why a policy rule or the approval default refused a tool call or a
command, or wants a person's approval first.

What the model reads of a vetoed call, and what a thread reads of a refused command, starts
from these reasons (:mod:`harness.channels.replies.outcomes`). Rules are the operator's
(``hooks.toml``); a rule's own reason is theirs, said as written.
"""

from __future__ import annotations

from typing import Final

__all__ = ["DENIED", "approvals_denied", "needs_approval", "no_rule_allows", "policy_denied"]

DENIED: Final = "denied by policy"
"""A deny rule's reason when the rule gives none."""


def policy_denied(why: str, rule: str) -> str:
    """A deny rule matched: its reason (``why``, :data:`DENIED` when none) and which rule."""
    return f"{why or DENIED} (policy {rule})"


def no_rule_allows(*, tool: str = "", command: str = "") -> str:
    """No rule matched and the policy's default is deny: the tool call or command refused."""
    subject = f"tool {tool!r}" if tool else f"/{command}" if command else "this"
    return f"{subject} is not allowed by any policy rule"


def approvals_denied(tool: str, reason: str, why: str) -> str:
    """The approval policy denies ``tool``: a rule's ``reason`` (or that it is not allowed),
    and why (``approvals safe``, a rule's label)."""
    return f"{reason or f'{tool} is not allowed'} ({why})"


def needs_approval(tool: str, why: str) -> str:
    """``tool`` needs a person's approval first (``why``: the default or rule that says so)."""
    return f"{tool} needs a person's approval ({why})"
