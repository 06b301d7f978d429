"""The executor under test as the kit sees it: what came back (:class:`Got`), the harness's path.

A :class:`Got` names what the executor did the way the harness sees it: a ``Call``
fixture goes through the harness's own :class:`JsonRpcExecutor` or :class:`McpExecutor`
and then through the harness's executor loop (:func:`~harness.hooks.chain.run_chain`,
which refuses a replacement that changes the operation's identity), so deadlines, reply
caps, validation and the identity rule are the worker's own (:func:`through`). The two
transports are :mod:`.jsonrpc_target` and :mod:`.mcp_target`; judging a :class:`Got`
against the fixture is :mod:`.runner`'s job; none of them knows a third party's policy.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final, Literal, Protocol

from harness.hook_server.conformance.fixture import Call, Fixture, Outcome
from harness.hooks.catalogue import split_point
from harness.hooks.chain import run_chain
from harness.hooks.contexts import HookContext, context_type
from harness.hooks.errors import HookAbort, HookTransportError, HookValidationError
from harness.hooks.executor import Executor, Registration

GotKind = Literal[Outcome, "invalid", "transport_error"]
"""What came back: the fixture outcomes, plus a reply out of contract and a failed call."""

RAW_TIMEOUT: Final = 10.0
"""Seconds a raw request (a body or tool call sent as it is) may take."""

_DETAIL_CHARS: Final = 200


@dataclass(frozen=True)
class Got:
    """What the executor did with one fixture's request."""

    kind: GotKind
    detail: str = ""
    context: dict[str, Any] | None = None
    refusal: bool | None = None
    code: int | None = None
    timeout_seconds: float | None = None


class Target(Protocol):
    """One executor under test."""

    transport: Literal["jsonrpc", "mcp"]
    endpoint: str

    @property
    def signs(self) -> bool:
        """Whether its requests are signed, so the ``signature`` fixtures can run."""
        ...

    async def send(self, fixture: Fixture) -> Got:
        """Send the fixture's request; never raises for anything the executor did."""
        ...

    async def aclose(self) -> None:
        """Release connections (and stop a stdio server)."""
        ...


def short(text: str) -> str:
    """``text`` on one line, cut to a verdict's length."""
    text = " ".join(text.split())
    return text if len(text) <= _DETAIL_CHARS else text[: _DETAIL_CHARS - 3] + "..."


def aborted(abort: HookAbort) -> Got:
    """An abort as the harness read it: an ask (held for a person), or a veto or abort."""
    if abort.ask:
        return Got(
            "ask",
            f"ask (timeout_seconds={abort.timeout_seconds:g}): {short(abort.reason)}",
            refusal=abort.refusal,
            timeout_seconds=abort.timeout_seconds,
        )
    return Got(
        "abort", f"abort (refusal={abort.refusal}): {short(abort.reason)}", refusal=abort.refusal
    )


def transport_failure(error: HookTransportError) -> Got:
    """A failed call as the harness reported it, named by its cause."""
    cause = error.cause
    kind: GotKind = "transport_error"
    if cause.startswith("timeout"):
        kind = "timeout"
    elif cause.startswith("too_large"):
        kind = "too_large"
    elif cause.startswith("HTTP 401"):
        kind = "unauthorized"
    return Got(kind, short(cause))


def replaced(ctx: HookContext | None, out: HookContext | None) -> Got:
    """A reply's outcome: passed through (``None`` or ``ctx`` itself), or a replacement."""
    if out is None or out is ctx:
        return Got("pass", "passed through")
    return Got("rewrite", "a replacement context", context=out.model_dump(mode="json"))


async def through(executor: Executor, name: str, send: Call) -> Got:
    """Run ``send`` through ``executor`` as the worker's executor loop runs it.

    The loop (:func:`~harness.hooks.chain.run_chain`) is the worker's own: it validates a
    replacement again and refuses one that changes the operation's identity (``task``,
    ``attempt``, ``idempotency_key``, ...), so a reply the worker refuses fails here too.
    """
    ctx = context_type(send.point).model_validate(send.context, strict=False)  # our own JSON
    registration = Registration(send.point, executor, priority=0, sequence=0, name=name)
    _, phase = split_point(send.point)
    try:
        out = await run_chain([registration], ctx, until_result=phase == "in")
    except HookAbort as abort:
        return aborted(abort)
    except HookTransportError as error:
        return transport_failure(error)
    except HookValidationError as error:
        return Got("invalid", short(f"the harness refuses the replacement: {error.detail}"))
    return replaced(ctx, out)
