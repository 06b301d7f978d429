"""The sealed vault (issue 27): messages sent by reference are kept sealed with the payload
key, under keys that name neither the run nor the number, and only that key opens them."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from harness.domain import Message, ToolCall
from harness.storage import database_url, open_database
from harness.temporal.codec import EncryptionCodec
from harness.temporal.errors import PayloadCodecError
from harness.temporal.keys import new_key, parse_keys
from harness.temporal.vault import KEY_PREFIX, SealedVault

SECRET_TEXT = "the launch code is swordfish"


async def test_messages_come_back_whole_and_the_database_holds_no_word_of_them(tmp_path: Path):
    file = tmp_path / "worker.sqlite3"
    database = await open_database(database_url("", file))
    keys = parse_keys(new_key())
    vault = SealedVault(database, EncryptionCodec(keys), secret=keys[0].secret)
    call = ToolCall(id="c1", name="echo", arguments={"text": SECRET_TEXT})
    kept = {
        1: Message(role="user", content=SECRET_TEXT, name="U1"),
        2: Message(role="assistant", content="", tool_calls=(call,)),
    }
    try:
        await vault.keep("task/T/C/run-1", kept)
        assert await vault.fetch("task/T/C/run-1", [1, 2, 3]) == kept
        assert await vault.fetch("task/T/C/run-2", [1, 2]) == {}  # another run's numbers
    finally:
        await database.aclose()
    with sqlite3.connect(file) as raw:
        rows = raw.execute("SELECT key, content FROM artefact").fetchall()
    assert len(rows) == 2
    assert len({key.rsplit("/", 1)[0] for key, _ in rows}) == 1  # one run, one prefix
    for key, content in rows:
        assert key.startswith(KEY_PREFIX) and "run-1" not in key and "task/T" not in key
        assert "swordfish" not in content and "echo" not in content


async def test_another_payload_key_cannot_open_them(tmp_path: Path):
    database = await open_database(database_url("", tmp_path / "worker.sqlite3"))
    mine, theirs = parse_keys(new_key()), parse_keys(new_key())
    secret = mine[0].secret
    try:
        await SealedVault(database, EncryptionCodec(mine), secret=secret).keep(
            "run", {1: Message(role="user", content="hello")}
        )
        other = SealedVault(database, EncryptionCodec(theirs), secret=secret)
        with pytest.raises(PayloadCodecError, match="no such key"):
            await other.fetch("run", [1])
    finally:
        await database.aclose()
