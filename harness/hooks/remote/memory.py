"""InMemoryExecutor: a hook function in this process, behind the remote executors' JSON round trip.

A seam shipped with the package, like httpx's ``MockTransport``: the context is
dumped to JSON, parsed, validated as the point's context, handed to the function,
and its reply (:mod:`~harness.hooks.remote.reply`) travels back the same way and is
validated again. So what a remote executor would reject, this one rejects too, with
the same :class:`~harness.hooks.errors.HookTransportError`, and the contract suite
runs the same checks over it as over JSON-RPC and MCP. No transport is involved.
"""

from __future__ import annotations

import asyncio
import json
from typing import Final, final

from harness.hooks.catalogue import split_point
from harness.hooks.contexts import HookContext, context_type
from harness.hooks.remote.reply import HookFunction, answer, decode_reply, dumps, encode_context
from harness.hooks.remote.wire import WireError, map_transport_errors
from harness.redaction import Redactor

DEFAULT_TIMEOUT: Final = 5.0


@final
class InMemoryExecutor:
    """Serve one hook point with a function in this process, through JSON both ways.

    Args:
        fn: the hook function, sync or async, as a hook server would serve it.
        point: the hook point served; a replacement must validate as its context.
        timeout: deadline of one call in seconds (an ``async`` function that
            overruns is cancelled; a blocking sync one cannot be).
        redactor: scrubs error causes, as the remote executors do.
        name: how logs, errors and abort records name this executor.

    Raises:
        UnknownHookPointError: ``point`` is not in the catalogue.
        ValueError: ``timeout`` is not positive.
    """

    def __init__(
        self,
        fn: HookFunction,
        *,
        point: str,
        timeout: float = DEFAULT_TIMEOUT,
        redactor: Redactor | None = None,
        name: str | None = None,
    ) -> None:
        operation, _ = split_point(point)
        if timeout <= 0:
            raise ValueError("timeout must be positive")
        self.fn = fn
        self.point = point
        self.context_type = context_type(operation)
        self.timeout = timeout
        self.redactor = redactor or Redactor()
        self.endpoint = f"memory:{getattr(fn, '__qualname__', type(fn).__name__)}"
        self.name = name or f"{self.endpoint}#{point}"

    async def __call__(self, ctx: HookContext, /) -> HookContext | None:
        """Run the function on a JSON copy of ``ctx``; return its validated replacement or ``None``.

        Raises:
            HookAbort: the function raised ``HookAbort``.
            HookTransportError: the function raised anything else, overran the
                timeout, or returned something that is not a valid context for the point.
        """
        with map_transport_errors(self.point, self.endpoint, self.redactor):
            if type(ctx) is not self.context_type:
                raise WireError(
                    f"executor serves {self.point} ({self.context_type.__name__}) but was "
                    f"given a {type(ctx).__name__}; register it at the point it was built for"
                )
            request = json.loads(dumps({"context": encode_context(ctx)}))
            async with asyncio.timeout(self.timeout):
                reply = await answer(self.point, self.fn, request["context"])
            return decode_reply(self.point, dumps(reply))

    async def aclose(self) -> None:
        """Nothing to release; present so every executor closes alike."""

    def __repr__(self) -> str:
        return f"<InMemoryExecutor {self.point} -> {self.endpoint}>"
