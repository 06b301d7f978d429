"""What an ``[[executor]]`` entry builds: its executors, one per point, and what closes them.

:class:`ResolvedEntry` is the entry with what it names found (the loader's work);
:func:`executors_of` constructs its executors (a local target or factory, a JSON-RPC
executor per point, one MCP session shared by its points) without registering anything,
so :meth:`harness.hooks.config.plan.HooksConfig.apply` can build everything first.
"""

from __future__ import annotations

import inspect
import ssl
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import final

from harness.hooks.config.schema import ExecutorEntry
from harness.hooks.executor import Executor
from harness.hooks.manager import HookManager
from harness.hooks.pure import DEFAULT_TTL_SECONDS, DecisionStore, PureExecutor


@final
@dataclass(frozen=True)
class ResolvedEntry:
    """An ``[[executor]]`` entry with what it names found: import target, header values, command."""

    entry: ExecutorEntry
    index: int
    label: str
    target: object = None
    is_factory: bool = False
    headers: dict[str, str] = field(default_factory=dict)
    command: tuple[str, ...] | None = None
    cwd: Path = Path()
    signing_secrets: tuple[str, ...] = ()
    tls: ssl.SSLContext | None = None


Built = tuple[str, Executor, tuple[Callable[[], Awaitable[None]], ...]]


def executors_of(resolved: ResolvedEntry, manager: HookManager) -> list[Built]:
    """Each point's executor and what closes its connections (once per entry)."""
    entry = resolved.entry
    if entry.kind == "local":
        if not resolved.is_factory:
            return [(p, resolved.target, ()) for p in entry.points]  # type: ignore[misc]  # checked async callable at load
        factory: Callable[..., Executor] = resolved.target  # type: ignore[assignment]  # checked callable at load
        if "point" in inspect.signature(factory).parameters:
            made = [(p, _check(factory(point=p, **entry.options), resolved)) for p in entry.points]
        else:
            shared = _check(factory(**entry.options), resolved)
            made = [(p, shared) for p in entry.points]
        return [
            (p, ex, _closer(ex) if i == 0 or ex is not made[0][1] else ())
            for i, (p, ex) in enumerate(made)
        ]
    if entry.kind == "jsonrpc":
        from harness.hooks.remote.jsonrpc import DEFAULT_TIMEOUT, JsonRpcExecutor

        assert entry.url is not None  # the schema requires it
        built: list[Built] = []
        for p in entry.points:
            remote = JsonRpcExecutor(
                entry.url,
                point=p,
                headers=resolved.headers,
                name=f"{resolved.label}#{p}",
                redactor=manager.redactor,
                timeout=entry.timeout or DEFAULT_TIMEOUT,
                idempotency_header=not entry.idempotent,
                signing_secrets=resolved.signing_secrets,
                ssl=resolved.tls,
            )
            built.append((p, remote, (remote.aclose,)))
        return built
    from harness.hooks.remote.mcp import DEFAULT_TIMEOUT as MCP_TIMEOUT
    from harness.hooks.remote.mcp import McpExecutor
    from harness.hooks.remote.mcp_connection import McpConnection

    server = resolved.command if resolved.command is not None else entry.url
    assert server is not None  # the schema requires one
    connection = McpConnection(
        server,
        cwd=resolved.cwd,  # one session for all its points
        ssl=resolved.tls,
    )
    return [
        (
            p,
            McpExecutor(
                connection,
                point=p,
                redactor=manager.redactor,
                name=f"{resolved.label}#{p}",
                timeout=entry.timeout or MCP_TIMEOUT,
            ),
            (connection.aclose,) if i == 0 else (),
        )
        for i, p in enumerate(entry.points)
    ]


def holds_connections(executor: object) -> bool:
    """Whether closing ``executor`` releases something (an HTTP pool, an MCP session, a
    plugin's resources): what a reload must not close under a running operation."""
    return bool(getattr(executor, "closers", ()))


def pure(
    inner: Executor,
    resolved: ResolvedEntry,
    point: str,
    store: DecisionStore,
    manager: HookManager,
) -> Executor:
    """``inner`` recording its decisions; its identity is what the entry calls, as written."""
    config = resolved.entry.model_dump(
        mode="json", include={"kind", "target", "options", "url", "command", "headers"}
    )
    ttl = resolved.entry.pure_ttl_seconds or DEFAULT_TTL_SECONDS
    return PureExecutor(
        inner,
        point=point,
        name=resolved.label,
        config=config,
        store=store,
        ttl_seconds=ttl,
        redactor=manager.redactor,
        audit=manager.audit,
    )


def _closer(executor: object) -> tuple[Callable[[], Awaitable[None]], ...]:
    close = getattr(executor, "aclose", None)
    return (close,) if callable(close) else ()


def _check(executor: object, resolved: ResolvedEntry) -> Executor:
    call = getattr(executor, "__call__", None)  # noqa: B004  # an object with an async __call__
    if not (inspect.iscoroutinefunction(executor) or inspect.iscoroutinefunction(call)):
        raise TypeError(f"factory {resolved.entry.target} returned {executor!r}, not an executor")
    return executor  # type: ignore[return-value]  # checked just above
