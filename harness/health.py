"""Health endpoints: ``GET /healthz`` (the process is alive) and ``GET /readyz`` (it can serve).

The bot serves them on its own HTTP port (:func:`bot.app.build_web_app`); the worker,
which serves nothing else over HTTP, on a small server of its own
(:func:`health_server`, ``HARNESS_HEALTH_HOST``/``HARNESS_HEALTH_PORT``). What
"ready" means is each process's probe; this module only answers in one shape:
``200 {"status": "ok"}`` / ``200 {"status": "ready"}``, or ``503 {"status": "not
ready", "reason": …}`` with a short reason an operator can act on.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Final

from aiohttp import web

from harness.errors import ConfigurationError
from harness.http import is_loopback

log = logging.getLogger(__name__)

HEALTHZ: Final = "/healthz"
READYZ: Final = "/readyz"

Probe = Callable[[], Awaitable[str | None]]
"""Why the process cannot serve now (a short reason), or ``None`` when it can."""


class HealthServerError(ConfigurationError):
    """The health endpoints cannot listen where they were told to (a port taken, a bad host).

    Args:
        where: ``host:port``.
        setting: the settings that say where, for the fix.
        cause: the operating system's words.
    """

    def __init__(self, *, where: str, setting: str, cause: str) -> None:
        self.where = where
        super().__init__(
            f"cannot serve the health endpoints on {where} ({cause}): "
            f"set {setting} to a free port on an address of this host"
        )

    @property
    def retryable(self) -> bool:
        """No: the setting, or whatever holds the port, has to change first."""
        return False


def routes(ready: Probe) -> list[web.RouteDef]:
    """The two endpoints, ``/readyz`` answering from ``ready``."""

    async def healthz(_: web.Request) -> web.Response:
        return web.json_response({"status": "ok"})

    async def readyz(_: web.Request) -> web.Response:
        reason = await ready()
        if reason is None:
            return web.json_response({"status": "ready"})
        return web.json_response({"status": "not ready", "reason": reason}, status=503)

    return [web.get(HEALTHZ, healthz), web.get(READYZ, readyz)]


@contextlib.asynccontextmanager
async def health_server(
    host: str, port: int | None, ready: Probe, *, setting: str = "the health port"
) -> AsyncIterator[int | None]:
    """Serve the endpoints on ``host:port`` while the block runs; yields the bound port.

    ``port`` ``None`` serves nothing (yields ``None``); ``0`` takes a free port. The
    endpoints say nothing secret, but a public address should be chosen on purpose:
    a non-loopback ``host`` is logged as such.

    Raises:
        HealthServerError: the address cannot be bound (naming ``setting``).
    """
    if port is None:
        yield None
        return
    app = web.Application()
    app.router.add_routes(routes(ready))
    runner = web.AppRunner(app, access_log=None)
    await runner.setup()
    try:
        try:
            await web.TCPSite(runner, host, port).start()
        except OSError as error:
            raise HealthServerError(
                where=f"{host}:{port}", setting=setting, cause=error.strerror or str(error)
            ) from None
        bound = int(runner.addresses[0][1])
        where = "" if is_loopback(host) else " (not loopback: reachable from other hosts)"
        log.info("health endpoints on http://%s:%d%s and %s%s", host, bound, HEALTHZ, READYZ, where)
        yield bound
    finally:
        await runner.cleanup()
