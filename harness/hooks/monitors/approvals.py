"""Approvals by policy: a ``tool.invoked`` pre verdict of allow, deny or ask (issue 14).

The rules come from the hooks file's ``[approvals]`` table; the first ``[[approvals.rules]]``
that matches a call decides, else the task's default (``strict`` asks before every tool
not safe, ``safe`` before the tools that require approval, ``off`` never). A tool that
only reads (``safe``) is never asked about. Deny is a refusal; ask is
``HookAbort(ask=True)``, which the agent loop turns into a question to the task's
deciders (:meth:`harness.agent.loop_steps.LoopSteps.call_tool`) and answers by running
the call again with the approval on the context. What was decided is audited by
:class:`ApprovalAudit`. Role checks of commands are the role guard's (``commands/``), and
the operator's allow/deny/rewrite rules are :mod:`.policy`.
"""

from __future__ import annotations

import fnmatch
import json
import re
from collections.abc import Iterable
from typing import Final, Literal, final

from pydantic import BaseModel, ConfigDict, Field, field_validator

from harness import replies
from harness.domain import DEFAULT_APPROVALS, ApprovalDefault, Role
from harness.hooks.audit import AuditLog
from harness.hooks.contexts import HelpDecidedContext, HookContext, ToolInvokedContext
from harness.hooks.errors import HookAbort
from harness.hooks.executor import Registration
from harness.hooks.manager import HookManager

APPROVAL_PRIORITY: Final = 900
"""The policy is a validator (it runs after every rewriting pre executor, so a person
approves the call as it will run) and the last of them: a call any other executor or
validator refuses is never asked about."""

POLICY_POINT: Final = f"{ToolInvokedContext.operation}.pre"
"""Where the approval policy sits: a tool call, before it runs."""

AUDIT_POINT: Final = f"{HelpDecidedContext.operation}.post"
"""Where a person's decision on an approval is audited."""

REQUESTED_BY: Final = "requested_by"
"""The ``entities`` key naming whose message started the turn (rules by ``role`` read it)."""

NAME: Final = "approvals"
MAX_SUBJECT: Final = 300
"""Longest call text (name and arguments) an approval's audit record quotes."""

Verdict = Literal["allow", "deny", "ask"]


class ApprovalRule(BaseModel):
    """One ``[[approvals.rules]]`` entry; every condition given must hold for it to match.

    ``tool`` is a glob on the tool's name (``github__*``); ``arguments`` maps an argument
    name to a regex searched in its value (a string as is, anything else as JSON; anchor
    with ``^…$`` to match it whole; a missing argument never matches); ``role`` is the
    role of the person whose message started the turn.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    tool: str = Field(min_length=1)
    verdict: Verdict
    arguments: dict[str, re.Pattern[str]] = Field(default_factory=dict)
    role: Role | None = None
    name: str = ""
    reason: str = ""
    """What a deny tells the model (and the audit); a default names the rule."""

    def label(self, index: int) -> str:
        """How asks, refusals and the audit name the rule."""
        return self.name or replies.approval_rule(index + 1, self.tool)

    def matches(self, ctx: ToolInvokedContext, role: Role) -> bool:
        """Whether the rule holds for this call, asked for by someone of ``role``."""
        if not fnmatch.fnmatchcase(ctx.call.name, self.tool):
            return False
        if self.role is not None and role is not self.role:
            return False
        for key, pattern in self.arguments.items():
            if key not in ctx.call.arguments:
                return False
            value = ctx.call.arguments[key]
            text = value if isinstance(value, str) else json.dumps(value, sort_keys=True)
            if pattern.search(text) is None:
                return False
        return True


class ApprovalsConfig(BaseModel):
    """``[approvals]``: the default for new tasks, how long a question waits, the rules."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    default: ApprovalDefault = DEFAULT_APPROVALS
    timeout_seconds: float = Field(default=900.0, ge=0, le=7 * 24 * 3600)
    """How long an approval waits for a decider (0: until answered); then it is timed out."""
    rules: tuple[ApprovalRule, ...] = ()

    @field_validator("default", mode="before")
    @classmethod
    def _lower(cls, value: object) -> object:
        return value.strip().lower() if isinstance(value, str) else value


@final
class ApprovalPolicy:
    """The ``tool.invoked.pre`` executor deciding allow, deny or ask for each call.

    Args:
        config: the ``[approvals]`` table (its defaults when the file has none).
        needs_approval: tools that require approval (``requires_approval``).
        safe: tools that only read; never asked about.
    """

    name = NAME

    def __init__(
        self,
        config: ApprovalsConfig,
        *,
        needs_approval: Iterable[str] = (),
        safe: Iterable[str] = (),
    ) -> None:
        self.config = config
        self.needs_approval = frozenset(needs_approval)
        self.safe = frozenset(safe)

    def verdict(self, ctx: ToolInvokedContext) -> tuple[Verdict, str, str]:
        """The verdict on ``ctx``'s call before any approval, what decided it, and a reason."""
        requester = ctx.entities.get(REQUESTED_BY, "")
        role = ctx.role_of(requester) if requester else Role.NONE
        for index, rule in enumerate(self.config.rules):
            if rule.matches(ctx, role):
                return rule.verdict, rule.label(index), rule.reason
        default = ctx.approvals or self.config.default
        name, decided = ctx.call.name, replies.approval_default(default)
        if default == "off" or name in self.safe:
            return "allow", decided, ""
        if default == "strict" or name in self.needs_approval:
            return "ask", decided, ""
        return "allow", decided, ""

    async def __call__(self, ctx: HookContext, /) -> HookContext | None:
        """Allow (pass through), refuse, or ask for a person's approval.

        Raises:
            HookAbort: a refusal (deny), or ``ask=True`` with the configured timeout.
        """
        if not isinstance(ctx, ToolInvokedContext):
            return None
        verdict, why, reason = self.verdict(ctx)
        name = ctx.call.name
        if verdict == "deny":
            raise HookAbort(replies.approval_denied(name, reason, why), refusal=True)
        if verdict == "allow" or name in self.safe:
            return None
        approval = ctx.approval
        if approval is not None and approval.approved and not approval.timed_out:
            return None  # a person approved this call (or the tool for the rest of the task)
        raise HookAbort(
            replies.approval_needed(name, why),
            ask=True,
            timeout_seconds=self.config.timeout_seconds,
        )


@final
class ApprovalAudit:
    """The ``help.decided.post`` observer writing each approval's outcome to the audit log.

    Who approved or denied which call, or that it timed out with nobody deciding: the
    record the hooks CLI (``python -m harness.hooks audit``) shows.
    """

    name = "approvals-audit"

    def __init__(self, audit: AuditLog) -> None:
        self._audit = audit

    async def __call__(self, ctx: HookContext, /) -> None:
        """Record the decision of an approval request (questions are not audited)."""
        if not isinstance(ctx, HelpDecidedContext):
            return
        decision, request = ctx.result, ctx.request
        if decision is None or request.kind != "approval":
            return
        call = request.tool_call
        subject = f"{call.name} {json.dumps(call.arguments, sort_keys=True)}" if call else "a call"
        if len(subject) > MAX_SUBJECT:  # a record per decision, not a copy of a large payload
            subject = subject[: MAX_SUBJECT - 1] + "…"
        if decision.timed_out:
            seconds = f"{request.timeout_seconds:g} s"
            what = f"timed out after {seconds}, not approved: nobody decided"
        elif decision.approved:
            standing = " for the rest of the task" if decision.remember else ""
            what = f"approved{standing} by <@{decision.decided_by}>"
        else:
            what = f"denied by <@{decision.decided_by}> ({decision.choice})"
        self._audit.record(
            "approval",
            point=AUDIT_POINT,
            executor=self.name,
            reason=f"{subject}: {what} [{request.request_id}]",
            ctx=ctx,
        )


def register_approvals(
    manager: HookManager,
    config: ApprovalsConfig | None = None,
    *,
    needs_approval: Iterable[str] = (),
    safe: Iterable[str] = (),
    audited: ApprovalsConfig | None = None,
) -> list[Registration]:
    """Register the approval policy and its audit on ``manager`` (the worker's build does).

    Args:
        manager: the worker's manager.
        config: the hooks file's ``[approvals]``; its defaults when ``None``.
        needs_approval: the names of the tools that require approval.
        safe: the names of the tools that only read.
        audited: an ``[approvals]`` on trial (``HARNESS_HOOKS_AUDIT_ONLY``): it runs in
            audit mode beside the live policy, its verdicts recorded, none applied.

    Returns:
        The registrations (the live policy first), to unregister.
    """
    needs_approval, safe = frozenset(needs_approval), frozenset(safe)
    policy = ApprovalPolicy(config or ApprovalsConfig(), needs_approval=needs_approval, safe=safe)
    registrations = [
        manager.register(POLICY_POINT, policy, priority=APPROVAL_PRIORITY, mode="validator"),
        manager.register(AUDIT_POINT, ApprovalAudit(manager.audit)),
    ]
    if audited is not None:
        trial = ApprovalPolicy(audited, needs_approval=needs_approval, safe=safe)
        registrations.append(
            manager.register(POLICY_POINT, trial, priority=APPROVAL_PRIORITY, mode="audit")
        )
    return registrations
