"""The hook reply: what a remote executor answers, as one JSON object.

``{"context": {...}}`` replaces the context, ``{"context": null}`` passes through, and
``{"abort": {"reason": ..., "refusal": ..., "ask": ..., "timeout_seconds": ...}}`` vetoes
(or, with ``ask``, holds for a person's approval) the operation. The abort object
is :class:`~harness.hooks.remote.wire.AbortRequest`, the same one JSON-RPC carries in
an ``ABORT`` error's data, so a policy answers alike over every transport. MCP sends
this object as a tool result; the in-memory executor round-trips it as JSON. JSON-RPC
uses its own envelope (``result`` / ``error``) instead, see :mod:`.wire`.
"""

from __future__ import annotations

import functools
import inspect
import logging
from collections.abc import Awaitable, Callable
from typing import Any, Final, Generic, TypeVar

import pydantic_core
from pydantic import BaseModel, ConfigDict, TypeAdapter

from harness.hooks.contexts import HookContext, context_type
from harness.hooks.errors import HookAbort
from harness.hooks.remote.canonical import canonical
from harness.hooks.remote.strict import one_of, read_strict
from harness.hooks.remote.wire import AbortRequest, WireError

log = logging.getLogger(__name__)

ContextT = TypeVar("ContextT")

TOOL_PREFIX: Final = "hooks."

HookFunction = Callable[[Any], Awaitable[HookContext | None] | HookContext | None]
"""What a hook server serves: a plain function (sync or async) from a point's context to
a replacement or ``None``; ``Any`` in, so it may annotate its own context class."""


class HookFunctionError(WireError):
    """The served function failed or broke its contract; the server answers with an error.

    A :class:`WireError`, so in-process it maps to a transport error like a remote one.
    """


class _Reply(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class ContextReply(_Reply, Generic[ContextT]):
    """A pass-through (``context`` null) or a replacement; no abort (a null one is tolerated)."""

    context: ContextT | None
    abort: None = None


class AbortReply(_Reply):
    """A veto, or with ``ask`` a hold for a person's approval."""

    abort: AbortRequest


@functools.cache
def hook_reply_type(context: type[ContextT]) -> TypeAdapter[ContextReply[ContextT] | AbortReply]:
    """One reply whose replacement is a ``context``: exactly one of ``context`` (which may be
    null) and ``abort``, in the types (and so in the published schema)."""
    answered = ContextReply[context]  # type: ignore[valid-type]  # a runtime-chosen parameter
    return TypeAdapter(one_of("context", answered, "abort", AbortReply))


def tool_name(point: str) -> str:
    """The MCP tool serving ``point``: ``hooks.<operation>.<phase>``."""
    return TOOL_PREFIX + point


def encode_context(ctx: HookContext) -> dict[str, Any]:
    """``ctx`` as the JSON-ready dict a remote receives (and sends back), sets sorted."""
    return canonical(ctx).model_dump(mode="json")


def reply_of(out: HookContext | None) -> dict[str, Any]:
    """The reply for an executor's outcome: a replacement, or ``None`` for pass-through."""
    return {"context": None if out is None else encode_context(out)}


def abort_reply(abort: HookAbort) -> dict[str, Any]:
    """The reply by which a remote vetoes the operation."""
    request = AbortRequest(
        reason=abort.reason,
        refusal=abort.refusal,
        ask=abort.ask,
        timeout_seconds=abort.timeout_seconds,
    )
    return {"abort": request.as_data()}


def as_abort(request: AbortRequest) -> HookAbort:
    """The :class:`HookAbort` a remote's abort object asks for, its reason as sent.

    Not redacted here: every abort, a remote's or an in-process executor's, leaves the
    engine through :meth:`HookManager.run <harness.hooks.HookManager.run>`, which scrubs
    its reason once before anything records or shows it (issue 25).
    """
    return HookAbort(
        request.reason,
        refusal=request.refusal,
        ask=request.ask,
        timeout_seconds=request.timeout_seconds,
    )


def decode_reply(point: str, payload: object) -> HookContext | None:
    """Read a reply for ``point``: the replacement context, or ``None``.

    Args:
        point: the hook point asked; the replacement must validate as its context.
        payload: the parsed JSON object, or its text or bytes.

    Raises:
        HookAbort: the reply is an abort (a deliberate answer, not a failure).
        ReplyError: the reply is not a reply object, or its context or abort does not
            conform, read strictly (:mod:`.strict`); the fields are named.
        ValidationError: the reply is not JSON. The transport's error boundary turns
            either into a ``HookTransportError``.
    """
    cls = context_type(point)
    data = payload if isinstance(payload, str | bytes) else pydantic_core.to_json(payload)
    reply = read_strict(hook_reply_type(cls), data, title=f"HookReply[{cls.__name__}]", tagged=True)
    if isinstance(reply, AbortReply):
        raise as_abort(reply.abort)
    return reply.context


async def answer(point: str, fn: HookFunction, raw_context: object) -> dict[str, Any]:
    """The server side of one call: validate the context, run ``fn``, encode its outcome.

    Args:
        point: the point served; ``raw_context`` must validate as its context.
        fn: the hook function.
        raw_context: the ``context`` argument as received (parsed JSON).

    Returns:
        The reply: the replacement, pass-through, or the abort ``fn`` raised.

    Raises:
        HookFunctionError: the context is invalid, ``fn`` raised something other than
            ``HookAbort``, or it returned something other than its context type or ``None``.
    """
    cls = context_type(point)
    try:
        ctx = cls.model_validate(raw_context)
    except ValueError as error:  # pydantic's ValidationError: the caller sent a bad context
        detail = f"arguments.context is not a valid {point} context: {error}"
        raise HookFunctionError(detail) from error
    try:
        out = fn(ctx)
        if inspect.isawaitable(out):
            out = await out
    except HookAbort as abort:
        return abort_reply(abort)
    except Exception as error:  # the function's own failure is the reply, not the server's
        log.exception("hook function for %s raised", point)
        raise HookFunctionError(f"hook function raised {type(error).__name__}: {error}") from error
    if out is not None and type(out) is not cls:
        raise HookFunctionError(
            f"hook function returned {type(out).__name__}, expected {cls.__name__} or None"
        )
    return reply_of(out)


def dumps(payload: dict[str, Any]) -> str:
    """The JSON text of a reply, for transports that carry text."""
    return pydantic_core.to_json(payload).decode()
