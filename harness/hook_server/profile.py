"""The conformance profile: what a remote executor answers to the kit's probes, whatever its policy.

The kit (:mod:`harness.hook_server.conformance`) cannot know a third party's policy, so it only
sends *probes*: contexts whose ``correlation_id`` starts with :data:`PROBE_PREFIX`, which
the harness never makes. A conforming executor answers a probe by this profile, at every
point of the catalogue, served or not, and never runs its own policy on it: a
``tool.invoked`` probe's call name picks the behaviour (:data:`BEHAVIOURS`), any other
probe passes through. Both Python server helpers (:mod:`.jsonrpc`,
:mod:`.mcp`) answer probes with :func:`answer_probe`; ``docs/hooks/conformance.md``
says the same for other languages. This module knows contexts only, no transport.
"""

from __future__ import annotations

import asyncio
from typing import Any, Final

from harness.domain import ToolCall
from harness.hooks.contexts import HookContext, ToolInvokedContext
from harness.hooks.errors import HookAbort

PROBE_PREFIX: Final = "conformance-"
"""A context whose ``correlation_id`` starts so is a probe of the kit, not a real operation."""

CALL_PREFIX: Final = "conformance."
"""The call names of ``tool.invoked`` probes that ask for a behaviour."""

BEHAVIOURS: Final = {
    "conformance.pass": "pass through (reply null / {context: null})",
    "conformance.rewrite": 'replace the call\'s arguments by {"rewritten": true}',
    "conformance.veto": 'abort with refusal true and reason "conformance veto"',
    "conformance.abort": 'abort with refusal false and reason "conformance abort"',
    "conformance.ask": "ask a person: abort with ask true, refusal true, reason "
    '"conformance ask" and timeout_seconds = arguments.seconds',
    "conformance.slow": "wait arguments.seconds (at most 30), then pass through",
    "conformance.large": 'replace the arguments by {"padding": "x" * arguments.bytes} '
    "(at most 8 MiB)",
}
"""Call name -> what the executor does; any other ``conformance.*`` name passes through."""

MAX_SLOW_SECONDS: Final = 30.0
MAX_LARGE_BYTES: Final = 8 << 20
VETO_REASON: Final = "conformance veto"
ABORT_REASON: Final = "conformance abort"
ASK_REASON: Final = "conformance ask"


def is_probe(raw_context: object) -> bool:
    """Whether a context as received (parsed JSON, or a model) is one of the kit's probes."""
    if isinstance(raw_context, HookContext):
        correlation: object = raw_context.correlation_id
    elif isinstance(raw_context, dict):
        correlation = raw_context.get("correlation_id")
    else:
        return False
    return isinstance(correlation, str) and correlation.startswith(PROBE_PREFIX)


async def answer_probe(ctx: HookContext) -> HookContext | None:
    """The profile's answer to a probe: a replacement, ``None`` to pass, or ``HookAbort``.

    Args:
        ctx: a probe (see :func:`is_probe`) of any point.

    Returns:
        The replacement the profile asks for, or ``None``.

    Raises:
        HookAbort: for ``conformance.veto`` (a refusal), ``conformance.abort`` and
            ``conformance.ask`` (an ask).
    """
    if not isinstance(ctx, ToolInvokedContext) or not ctx.call.name.startswith(CALL_PREFIX):
        return None
    name, arguments = ctx.call.name, ctx.call.arguments
    if name == "conformance.rewrite":
        return _with_arguments(ctx, {"rewritten": True})
    if name == "conformance.veto":
        raise HookAbort(VETO_REASON, refusal=True)
    if name == "conformance.abort":
        raise HookAbort(ABORT_REASON, refusal=False)
    if name == "conformance.ask":
        seconds = _number(arguments.get("seconds"))
        raise HookAbort(ASK_REASON, refusal=True, ask=True, timeout_seconds=seconds)
    if name == "conformance.slow":
        await asyncio.sleep(min(_number(arguments.get("seconds")), MAX_SLOW_SECONDS))
    elif name == "conformance.large":
        size = int(min(_number(arguments.get("bytes")), MAX_LARGE_BYTES))
        return _with_arguments(ctx, {"padding": "x" * size})
    return None


def _with_arguments(ctx: ToolInvokedContext, arguments: dict[str, Any]) -> ToolInvokedContext:
    # Validated, not model_copy'd: the new arguments become frozen like every context's.
    call = ToolCall.model_validate({**ctx.call.model_dump(), "arguments": arguments})
    return ctx.model_copy(update={"call": call})


def _number(value: object) -> float:
    return float(value) if isinstance(value, int | float) and value > 0 else 0.0
