"""The policy executor: allow, deny and rewrite rules on tool calls and slash commands.

Rules come from the executor configuration (``[[policy.rules]]``, issue 6) and are
checked in order where the catalogue rows say policies may sit (:func:`policy_points`:
tool calls and slash commands, at ``pre``); the first rule
that matches decides. A deny is a refusal (``HookAbort(refusal=True)``) whose reason
names the rule. Who may run which command by role is also the built-in role guard's
job (``commands/``); this is the operator's layer on top, not a replacement.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any, Literal, final

from pydantic import BaseModel, ConfigDict, Field

from harness import replies
from harness.domain import Role
from harness.hooks.catalogue import PHASES, entries
from harness.hooks.contexts import CommandInvokedContext, HookContext, ToolInvokedContext
from harness.hooks.errors import HookAbort


def policy_points() -> tuple[str, ...]:
    """Where the rule executor is registered: each live row's ``policy`` phases."""
    return tuple(f"{e.operation}.{p}" for e in entries() for p in PHASES if p in e.policy)


Action = Literal["allow", "deny", "rewrite"]


class PolicyRule(BaseModel):
    """One rule; every condition given must hold for it to match.

    ``tool`` and ``command`` fully match the tool's or command's name; ``arguments``
    patterns *search* the named argument's text (a command's argument text is named
    ``args``); ``roles`` holds for a command whose sender has one of them. A rule
    with ``tool`` never matches a command and vice versa.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str = ""
    action: Action
    tool: re.Pattern[str] | None = None
    command: re.Pattern[str] | None = None
    roles: tuple[Role, ...] = ()
    arguments: dict[str, re.Pattern[str]] = Field(default_factory=dict)
    reason: str = ""
    set: dict[str, Any] = Field(default_factory=dict)
    """``rewrite``: argument values to set (for a command, ``args`` replaces its text)."""

    def model_post_init(self, context: Any, /) -> None:  # noqa: ANN401  # pydantic hook
        """Check the action has what it needs (a rewrite must set something)."""
        if self.action == "rewrite" and not self.set:
            raise ValueError("a rewrite rule needs a non-empty 'set' table")
        if self.action != "rewrite" and self.set:
            raise ValueError(f"'set' only applies to rewrite rules, not {self.action}")

    def label(self, index: int) -> str:
        """How refusals and logs name the rule."""
        return self.name or f"rule {index + 1}"

    def matches(self, ctx: HookContext) -> bool:
        """Whether every condition of the rule holds for ``ctx``."""
        if isinstance(ctx, ToolInvokedContext):
            if self.command is not None or self.roles:
                return False
            if self.tool is not None and self.tool.fullmatch(ctx.call.name) is None:
                return False
            values: Mapping[str, Any] = ctx.call.arguments
        elif isinstance(ctx, CommandInvokedContext):
            if self.tool is not None:
                return False
            if self.command is not None and self.command.fullmatch(ctx.command) is None:
                return False
            if self.roles and ctx.role not in self.roles:
                return False
            values = {"args": ctx.args}
        else:
            return False
        for key, pattern in self.arguments.items():
            value = values.get(key)
            if (
                value is None
                or pattern.search(value if isinstance(value, str) else str(value)) is None
            ):
                return False
        return True


@final
class Policy:
    """The rule executor; register it at :func:`policy_points`.

    Args:
        rules: checked in order; the first match decides.
        default: what happens when no rule matches.
        name: how audit records and refusals name this executor.
    """

    def __init__(
        self,
        rules: Sequence[PolicyRule],
        *,
        default: Literal["allow", "deny"] = "allow",
        name: str = "policy",
    ) -> None:
        self.rules = tuple(rules)
        self.default = default
        self.name = name

    async def __call__(self, ctx: HookContext, /) -> HookContext | None:
        """Apply the first matching rule.

        Raises:
            HookAbort: a deny rule matched, or none did and the default is deny (a refusal).
        """
        for index, rule in enumerate(self.rules):
            if not rule.matches(ctx):
                continue
            if rule.action == "allow":
                return None
            if rule.action == "deny":
                raise HookAbort(replies.policy_denied(rule.reason, rule.label(index)), refusal=True)
            return _rewrite(ctx, rule.set)
        if self.default == "deny":
            raise HookAbort(_unmatched(ctx), refusal=True)
        return None


def _rewrite(ctx: HookContext, values: Mapping[str, Any]) -> HookContext:
    if isinstance(ctx, ToolInvokedContext):
        call = ctx.call.model_copy(update={"arguments": {**ctx.call.arguments, **values}})
        return ctx.model_copy(update={"call": call})
    assert isinstance(ctx, CommandInvokedContext)  # matches() admits only these two
    return ctx.model_copy(update={"args": str(values.get("args", ctx.args))})


def _unmatched(ctx: HookContext) -> str:
    if isinstance(ctx, ToolInvokedContext):
        return replies.policy_unmatched(tool=ctx.call.name)
    if isinstance(ctx, CommandInvokedContext):
        return replies.policy_unmatched(command=replies.spelled(ctx.command, ctx.invocation))
    return replies.policy_unmatched()  # no operation's name in a thread
