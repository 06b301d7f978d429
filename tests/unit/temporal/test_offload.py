"""OffloadingCodec: no payload over the inline bound reaches history, and each comes back whole.

Real AES-GCM, real Temporal payload protos, a real SQLite payload store; nothing is mocked.
"""

from __future__ import annotations

import os
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from temporalio.api.common.v1 import Payload

from harness.storage import PayloadStore, database_url
from harness.temporal.codec import ENCODING, EncryptionCodec, data_converter
from harness.temporal.errors import PayloadCodecError
from harness.temporal.keys import new_key, parse_keys
from harness.temporal.offload import INLINE_LIMIT, REFERENCE, SEAL_HEADROOM, OffloadingCodec


def sized(size: int) -> Payload:
    """A payload of exactly ``size`` bytes as serialized, of random (incompressible) data."""
    payload, length = Payload(metadata={"encoding": b"binary/plain"}), size
    for _ in range(4):  # the length's varint may grow by a byte: converge on it
        payload.data = os.urandom(length)
        length += size - payload.ByteSize()
    assert payload.ByteSize() == size
    return payload


@pytest.fixture
async def store(tmp_path: Path) -> AsyncIterator[PayloadStore]:
    store = PayloadStore(database_url("", tmp_path / "payloads.sqlite3"), migrate=True)
    yield store
    await store.aclose()


def codec(store: PayloadStore, key: str | None = None) -> OffloadingCodec:
    keys = parse_keys(key or new_key())
    return OffloadingCodec(EncryptionCodec(keys), store, secret=keys[0].secret)


def test_the_inline_bound_is_256_kb():
    assert INLINE_LIMIT == 256 * 1024  # issue 27: what history may hold of one value


def test_the_data_converter_offloads_only_with_a_store(store):
    keys = parse_keys(new_key())
    assert isinstance(data_converter(keys).payload_codec, EncryptionCodec)
    assert isinstance(data_converter(keys, store).payload_codec, OffloadingCodec)


async def test_a_payload_at_the_bound_stays_inline_and_one_byte_over_goes_by_reference(store):
    offload = codec(store)
    at, over = sized(INLINE_LIMIT - SEAL_HEADROOM), sized(INLINE_LIMIT - SEAL_HEADROOM + 1)
    kept, referenced = await offload.encode([at, over])
    assert kept.metadata["encoding"] == referenced.metadata["encoding"] == ENCODING
    assert INLINE_LIMIT - SEAL_HEADROOM < kept.ByteSize() <= INLINE_LIMIT  # sealed, still inline
    assert referenced.ByteSize() < 1024
    opened_kept, opened_ref = await offload.sealing.decode([kept, referenced])
    assert opened_kept == at
    assert opened_ref.metadata["encoding"] == REFERENCE
    assert await offload.decode([kept, referenced]) == [at, over]


async def test_a_big_value_is_stored_once_under_a_keyed_content_reference(store):
    key = new_key()
    offload = codec(store, key)
    value = sized(3 * 1024 * 1024)
    first, again = await offload.encode([value, value])
    [ref_a, ref_b] = await offload.sealing.decode([first, again])
    assert ref_a.data == ref_b.data  # the same value, the same reference: a retry adds no row
    assert len(await (await store._opened()).versions(ref_a.data.decode())) == 1
    another = codec(store)
    [other] = await another.sealing.decode(await another.encode([value]))
    assert other.data != ref_a.data  # another key, another reference: the hash is keyed
    [from_second_host] = await codec(store, key).decode([first])
    assert from_second_host == value  # any process with the key and the database opens it


async def test_a_reference_the_store_does_not_hold_fails_as_a_codec_error(store, tmp_path):
    key = new_key()
    [referenced] = await codec(store, key).encode([sized(INLINE_LIMIT)])
    elsewhere = PayloadStore(database_url("", tmp_path / "other.sqlite3"), migrate=True)
    try:
        with pytest.raises(PayloadCodecError, match="not in the payload store"):
            await codec(elsewhere, key).decode([referenced])
    finally:
        await elsewhere.aclose()
