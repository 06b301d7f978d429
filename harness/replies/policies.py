"""Policies' refusals and asks in words: what the approval policy and the operator's rules say
of a tool call or a command they deny or want a person to approve.

The rules and their verdicts are the hook engine's (:mod:`harness.hooks.monitors.approvals`,
:mod:`harness.hooks.monitors.policy`); the sentences are here, where the model, the deciders
and the thread read them. A rule is named by its configured name or its place in the file,
never by a hook point.
"""

from __future__ import annotations

__all__ = [
    "approval_default",
    "approval_denied",
    "approval_needed",
    "approval_rule",
    "policy_denied",
    "policy_unmatched",
]


def approval_rule(number: int, tool: str) -> str:
    """An unnamed ``[[approvals.rules]]`` entry, by its place and its tool glob."""
    return f"approvals rule {number} ({tool})"


def approval_default(default: str) -> str:
    """The task's approval default, as what decided a call (``approvals safe``)."""
    return f"approvals {default}"


def approval_denied(tool: str, reason: str, rule: str) -> str:
    """A call the approval policy denies: the rule's ``reason``, else that ``tool`` is not
    allowed; and which ``rule`` decided."""
    return f"{reason or f'{tool} is not allowed'} ({rule})"


def approval_needed(tool: str, rule: str) -> str:
    """The question the deciders are asked (and what the model reads while they decide)."""
    return f"{tool} needs a person's approval ({rule})"


def policy_denied(reason: str, rule: str) -> str:
    """A deny rule matched: its ``reason`` (else that the policy denies it), and which rule."""
    return f"{reason or 'denied by policy'} (policy {rule})"


def policy_unmatched(*, tool: str = "", command: str = "") -> str:
    """No rule matched and the default denies: the tool (by name) or the command (as typed)."""
    if tool:
        return f"tool {tool!r} is not allowed by any policy rule"
    if command:
        return f"{command} is not allowed by any policy rule"
    return "this is not allowed by any policy rule"
