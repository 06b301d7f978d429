"""What the worker-loss tests share: a loopback server a worker's plugin tells which step it
reached (so a test SIGKILLs it there, not after a guessed sleep), and the plugin's settings."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path

import pytest


class Signals:
    """A loopback TCP server the plugin tells which step it reached."""

    def __init__(self) -> None:
        self.reached: asyncio.Queue[str] = asyncio.Queue()
        self.port = 0

    async def _client(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reached.put_nowait((await reader.readline()).decode().strip())
        writer.close()


@pytest.fixture
async def signals() -> AsyncIterator[Signals]:
    found = Signals()
    server = await asyncio.start_server(found._client, "127.0.0.1", 0)
    found.port = server.sockets[0].getsockname()[1]
    async with server:
        yield found


def plugin_env(settings, tmp_path: Path, signals: Signals, step: str) -> dict[str, str]:
    return {
        "HARNESS_TEST_LOG": str(tmp_path / "points.jsonl"),
        "HARNESS_TEST_MARKER": str(tmp_path / "marker"),
        "HARNESS_TEST_HANG_AT": step,
        "HARNESS_TEST_SIGNAL_PORT": str(signals.port),
    }
