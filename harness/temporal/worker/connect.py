"""The worker's wait for Temporal at start: :func:`connect`, backing off until it answers.

What to connect to and how is :mod:`harness.temporal.connection`'s (settings to a client);
this is only the patience around it, and the stop signal that ends it. The worker entry
point (:mod:`harness.temporal.worker.entry`) calls it.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import math
from typing import Final

from temporalio.client import Client
from temporalio.runtime import Runtime

from harness.config import Settings
from harness.storage import PayloadStore
from harness.temporal.codec import data_converter
from harness.temporal.connection import explain, open_client, resolve
from harness.temporal.errors import TemporalUnreachable
from harness.temporal.keys import load_keys

log = logging.getLogger(__name__)

CONNECT_FIRST_DELAY: Final = 0.5
"""Seconds before the second attempt to reach Temporal; each wait doubles, up to the maximum."""
CONNECT_MAX_DELAY: Final = 5.0
CONNECT_LOG_EVERY: Final = 5.0
"""At most one "waiting for Temporal" line per this many seconds (each attempt is at DEBUG)."""


async def connect(
    settings: Settings,
    *,
    stop: asyncio.Event | None = None,
    patience: float = 30.0,
    runtime: Runtime | None = None,
    first_delay: float = CONNECT_FIRST_DELAY,
    max_delay: float = CONNECT_MAX_DELAY,
    log_every: float = CONNECT_LOG_EVERY,
) -> Client | None:
    """Connect to Temporal, waiting ``patience`` seconds for it; ``None`` once ``stop`` is set.

    ``make run`` starts the dev server and the worker together; the server needs a
    moment before it accepts connections, and a deployed worker may start before its
    cluster is reachable. Attempts back off (``first_delay`` doubling to ``max_delay``)
    and say so at most every ``log_every`` seconds; a stop signal ends the wait at
    once, even mid-attempt. Payloads are encrypted with the configured keys
    (:mod:`harness.temporal.codec`); without one there is nothing to wait for.

    Args:
        settings: where and how to connect (:func:`harness.temporal.connection.resolve`).
        stop: set by a stop signal; connecting gives up and returns ``None``.
        patience: seconds to keep trying.
        runtime: the SDK runtime to connect in (its telemetry); the SDK's default when ``None``.
        first_delay: seconds before the second attempt.
        max_delay: the longest wait between attempts.
        log_every: at most one ``waiting for Temporal`` line per this many seconds.

    Raises:
        PayloadKeyError: no payload key is configured, or one is malformed.
        TemporalConfigError: the connection settings are wrong; nothing to wait for.
        TemporalUnreachable: still unreachable after ``patience`` seconds.
    """
    connection = resolve(settings)  # a wrong setting fails now, not after the patience
    converter = data_converter(load_keys(settings), PayloadStore(settings.database))
    stop = stop or asyncio.Event()
    loop = asyncio.get_running_loop()
    deadline = loop.time() + patience
    delay, logged = first_delay, -math.inf
    while True:
        attempt = asyncio.create_task(
            open_client(connection, data_converter=converter, runtime=runtime)
        )
        if not await _finished_before(attempt, stop):
            return None
        try:
            return attempt.result()
        except RuntimeError as error:  # how the SDK reports an unreachable server
            now = loop.time()
            if now >= deadline:
                raise TemporalUnreachable(
                    where=connection.describe(), seconds=patience, reason=explain(error, connection)
                ) from None
            log.debug("Temporal at %s did not answer: %s", connection.describe(), error)
            if now - logged >= log_every:
                logged = now
                log.info(
                    "waiting for Temporal at %s, %.0f s more: %s",
                    connection.describe(),
                    deadline - now,
                    explain(error, connection),
                )
        if await _stopped_within(stop, min(delay, deadline - loop.time())):
            return None
        delay = min(delay * 2, max_delay)


async def _finished_before(attempt: asyncio.Task[Client], stop: asyncio.Event) -> bool:
    """Wait for ``attempt`` unless ``stop`` is set first, which cancels it; whether it finished."""
    stopping = asyncio.create_task(stop.wait())
    try:
        await asyncio.wait({attempt, stopping}, return_when=asyncio.FIRST_COMPLETED)
    finally:
        stopping.cancel()
    if attempt.done():
        return True
    attempt.cancel()
    with contextlib.suppress(asyncio.CancelledError, RuntimeError):
        await attempt
    return False


async def _stopped_within(stop: asyncio.Event, seconds: float) -> bool:
    """Whether ``stop`` is set within ``seconds``."""
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(stop.wait(), max(seconds, 0))
    return stop.is_set()
