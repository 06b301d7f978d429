"""The worker's ``/healthz`` and ``/readyz`` over real HTTP, through connecting, polling, stopping.

:func:`harness.health.health_server` with the worker's own probe
(:class:`harness.temporal.worker.readiness.WorkerReadiness`) around a real
:func:`harness.temporal.worker.serve`: against an address where nothing listens
(still connecting), then against the session's dev server (polling), and while a
slow ``shutdown`` executor holds the stop.
"""

from __future__ import annotations

import asyncio
import socket

import aiohttp

from harness.health import health_server
from harness.temporal.worker import serve
from harness.temporal.worker.readiness import WorkerReadiness

OK = (200, {"status": "ok"})


async def get(session: aiohttp.ClientSession, url: str) -> tuple[int, dict]:
    async with session.get(url) as response:
        return response.status, await response.json()


def not_ready(reason: str) -> tuple[int, dict]:
    return 503, {"status": "not ready", "reason": reason}


async def test_readyz_is_503_while_connecting_200_while_polling_503_while_stopping(
    client, settings, manager
):
    with socket.socket() as nobody:
        nobody.bind(("127.0.0.1", 0))  # bound, never listening: connecting fails at once
        down = settings.model_copy(
            update={"temporal_address": f"127.0.0.1:{nobody.getsockname()[1]}"}
        )
        stop = asyncio.Event()
        readiness = WorkerReadiness(stop)
        async with (
            health_server("127.0.0.1", 0, readiness) as port,
            aiohttp.ClientSession() as session,
        ):
            base = f"http://127.0.0.1:{port}"
            connecting = asyncio.create_task(serve(down, stop, readiness=readiness))
            await asyncio.sleep(0.3)  # a few attempts
            assert not connecting.done()
            assert await get(session, base + "/healthz") == OK
            assert await get(session, base + "/readyz") == not_ready(
                "starting: connecting to Temporal"
            )
            stop.set()
            await asyncio.wait_for(connecting, 5)
    assert readiness.worker is None

    entered, release = asyncio.Event(), asyncio.Event()

    async def slow_shutdown(ctx):
        entered.set()
        await release.wait()

    manager.register("shutdown.pre", slow_shutdown)
    stop = asyncio.Event()
    readiness = WorkerReadiness(stop)
    async with health_server("127.0.0.1", 0, readiness) as port, aiohttp.ClientSession() as session:
        base = f"http://127.0.0.1:{port}"
        serving = asyncio.create_task(
            serve(settings, stop, client=client, manager=manager, readiness=readiness)
        )
        async with asyncio.timeout(10):
            while (await get(session, base + "/readyz"))[0] != 200:
                await asyncio.sleep(0.05)
        assert await get(session, base + "/readyz") == (200, {"status": "ready"})
        assert readiness.worker is not None and readiness.worker.is_running
        stop.set()
        await asyncio.wait_for(entered.wait(), 5)
        assert await get(session, base + "/readyz") == not_ready(
            "stopping: in-flight work is finishing, then the worker exits"
        )
        assert await get(session, base + "/healthz") == OK  # alive while it drains
        release.set()
        await asyncio.wait_for(serving, 10)


async def test_no_health_port_serves_nothing():
    async with health_server("127.0.0.1", None, WorkerReadiness(asyncio.Event())) as port:
        assert port is None
