"""Fixtures for provider tests: the replay server and the harness's real HTTP client."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from harness.http import AiohttpClient
from tests.support.replay_server import ReplayServer


@pytest.fixture
async def replay() -> AsyncIterator[ReplayServer]:
    async with ReplayServer() as server:
        yield server


@pytest.fixture
async def http() -> AsyncIterator[AiohttpClient]:
    client = AiohttpClient()
    yield client
    await client.aclose()
