"""PayloadStore: sealed payload bytes by key, written once, on a real SQLite file."""

from __future__ import annotations

import os
from pathlib import Path

from harness.storage import PayloadStore, database_url


async def test_bytes_come_back_and_a_second_put_of_a_key_keeps_the_first(tmp_path: Path):
    file = tmp_path / "payloads.sqlite3"
    store = PayloadStore(database_url("", file), migrate=True)
    assert not file.exists()  # opened on first use: most processes never offload
    try:
        first, second = os.urandom(300_000), os.urandom(10)
        await store.put("payload/abc", first)
        await store.put("payload/abc", second)  # a retry or replay: the key names the content
        assert await store.get("payload/abc") == first
        assert await store.get("payload/missing") is None
    finally:
        await store.aclose()
    again = PayloadStore(database_url("", file))  # another process, tables already there
    try:
        assert await again.get("payload/abc") == first
    finally:
        await again.aclose()
