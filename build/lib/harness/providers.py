"""Provider objects handed to the harness at construction: HTTP client, clock, random source.

Only the protocols and the production defaults live here; nothing in the harness
reaches for a global clock, ``random`` or an HTTP library directly, so tests pass
fakes and workflow code never touches them (it uses ``workflow.now()``/``workflow.random()``).
Concrete HTTP clients live in :mod:`harness.http`.
"""

from __future__ import annotations

import random
import time
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Protocol, final


class Clock(Protocol):
    """Wall-clock and monotonic time."""

    def now(self) -> datetime: ...

    def monotonic(self) -> float: ...


class RandomSource(Protocol):
    """The subset of :class:`random.Random` the harness uses."""

    def random(self) -> float: ...

    def uniform(self, a: float, b: float) -> float: ...


@dataclass(frozen=True, slots=True)
class HttpResponse:
    """A complete HTTP response, body already read (and capped)."""

    status: int
    headers: Mapping[str, str]
    body: bytes


class HttpClient(Protocol):
    """The one HTTP call the harness needs: POST bytes, get a whole response back.

    Implementations keep connections alive across calls, enforce ``timeout`` as a
    total deadline for the call (connect, send, and every byte of the reply), and
    refuse replies larger than ``max_bytes``; they raise
    :class:`harness.http.HttpClientError` for every failure, never a library's own type.
    """

    async def post(
        self,
        url: str,
        *,
        body: bytes,
        headers: Mapping[str, str],
        timeout: float,
        max_bytes: int,
    ) -> HttpResponse: ...

    async def aclose(self) -> None: ...


@final
class SystemClock:
    """The real clock."""

    def now(self) -> datetime:
        return datetime.now(UTC)

    def monotonic(self) -> float:
        return time.monotonic()


def system_random() -> RandomSource:
    """A fresh :class:`random.Random` seeded from the OS."""
    return random.Random()
