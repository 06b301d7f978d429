"""EncryptionCodec and data_converter: what Temporal is given holds nothing readable.

Real AES-GCM and zlib, real Temporal payload and failure protos; nothing is mocked.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
import zlib

import pytest
from temporalio.api.common.v1 import Payload
from temporalio.api.failure.v1 import Failure
from temporalio.exceptions import ApplicationError

from harness.domain import ChannelMessage
from harness.temporal.codec import (
    COMPRESSION,
    ENCODING,
    KEY_ID,
    EncryptionCodec,
    data_converter,
    deflate,
)
from harness.temporal.errors import PayloadCodecError
from harness.temporal.keys import PayloadKey, new_key, parse_keys

CANARY = "canary-" + os.urandom(6).hex()


def key() -> PayloadKey:
    return parse_keys(new_key())[0]


def plain(data: bytes) -> Payload:
    return Payload(metadata={"encoding": b"json/plain"}, data=data)


async def seal(codec: EncryptionCodec, payload: Payload) -> Payload:
    [sealed] = await codec.encode([payload])
    return sealed


async def open_(codec: EncryptionCodec, payload: Payload) -> Payload:
    [opened] = await codec.decode([payload])
    return opened


@pytest.mark.parametrize(
    "data",
    [b'"hi"', f'{{"text": "{CANARY}"}}'.encode(), os.urandom(1 << 20), b"abc" * (1 << 20)],
    ids=["tiny", "small", "large-random", "large-repetitive"],
)
async def test_payloads_of_any_size_round_trip_and_hide_their_content(data):
    codec = EncryptionCodec([key()])
    original = plain(data)
    sealed = await seal(codec, original)
    assert sealed.metadata["encoding"] == ENCODING
    assert b"json/plain" not in sealed.data and data[:64] not in sealed.data
    assert await open_(codec, sealed) == original


async def test_compression_shrinks_a_repetitive_payload_and_says_so():
    codec = EncryptionCodec([key()])
    data = b'{"role": "user", "text": "the same words again"}, ' * 20_000
    sealed = await seal(codec, plain(data))
    assert sealed.metadata[COMPRESSION] == b"zlib"
    assert len(sealed.data) < len(data) // 50


@pytest.mark.parametrize("count", [0, 1, 4, 40, 400, 4000])
def test_compression_uses_a_window_that_fits_the_payload_and_loses_no_bytes(count):
    # zlib.compress sets up its widest window for every payload: 50-80 us for a small
    # one, where fitting the window costs 5 (issue 27). The stream must stay as small
    # and open with any zlib reader.
    rows = [
        {"role": "user", "content": f"message {i}: {os.urandom(4).hex()}"} for i in range(count)
    ]
    data = json.dumps(rows).encode()
    packed = deflate(data)
    assert zlib.decompress(packed) == data
    assert len(packed) <= len(zlib.compress(data))
    window_bits = (packed[0] >> 4) + 8  # the stream's header (RFC 1950, CINFO)
    assert window_bits <= max(len(data).bit_length(), 10)  # 1 KB at least


async def test_an_incompressible_payload_is_stored_uncompressed_and_says_so():
    codec = EncryptionCodec([key()])
    data = os.urandom(4096)
    sealed = await seal(codec, plain(data))
    assert sealed.metadata[COMPRESSION] == b"none"
    assert len(sealed.data) < len(data) + 64  # nonce, tag and the payload's own framing


async def test_the_key_id_is_derived_from_the_key():
    raw = os.urandom(32)
    assert PayloadKey.from_bytes(raw).id == hashlib.sha256(raw).digest()[:8].hex()
    sealed = await seal(EncryptionCodec([PayloadKey.from_bytes(raw)]), plain(b"1"))
    assert sealed.metadata[KEY_ID] == hashlib.sha256(raw).digest()[:8].hex().encode()


async def test_rotation_reads_old_payloads_and_writes_new_ones_with_the_new_key():
    old, new = key(), key()
    written_before = await seal(EncryptionCodec([old]), plain(b'"before"'))
    rotated = EncryptionCodec([new, old])  # the new key prepended, the old one kept
    assert await open_(rotated, written_before) == plain(b'"before"')
    written_after = await seal(rotated, plain(b'"after"'))
    assert rotated.key_id == new.id
    assert written_after.metadata[KEY_ID] == new.id.encode()
    assert await open_(EncryptionCodec([new]), written_after) == plain(b'"after"')


async def test_an_unknown_key_id_fails_naming_the_id_and_never_the_key():
    writer, reader = key(), key()
    sealed = await seal(EncryptionCodec([writer]), plain(b"1"))
    with pytest.raises(PayloadCodecError) as caught:
        await open_(EncryptionCodec([reader]), sealed)
    message = str(caught.value)
    assert writer.id in message and "HARNESS_PAYLOAD_KEY" in message
    assert caught.value.key_id == writer.id
    for secret in (writer.secret, reader.secret):
        assert secret.hex() not in message and base64.b64encode(secret).decode() not in message


@pytest.mark.parametrize("where", ["ciphertext", "nonce", "compression", "truncated"])
async def test_an_altered_payload_fails_naming_its_key_id(where):
    k = key()
    codec = EncryptionCodec([k])
    sealed = await seal(codec, plain(b"x" * 200))
    altered = Payload()
    altered.CopyFrom(sealed)
    if where == "ciphertext":
        altered.data = sealed.data[:-1] + bytes([sealed.data[-1] ^ 1])
    elif where == "nonce":
        altered.data = bytes([sealed.data[0] ^ 1]) + sealed.data[1:]
    elif where == "compression":
        altered.metadata[COMPRESSION] = b"none"  # authenticated: not a way to confuse the reader
    else:
        altered.data = sealed.data[:20]
    with pytest.raises(PayloadCodecError, match=k.id):
        await open_(codec, altered)


async def test_a_key_with_the_same_id_but_other_bytes_fails_as_altered():
    real = key()
    impostor = PayloadKey(id=real.id, secret=os.urandom(32))  # a wrong key under a valid id
    sealed = await seal(EncryptionCodec([real]), plain(b"1"))
    with pytest.raises(PayloadCodecError, match="does not authenticate"):
        await open_(EncryptionCodec([impostor]), sealed)


async def test_payloads_not_encoded_by_us_pass_decode_unchanged():
    codec = EncryptionCodec([key()])
    foreign = [
        plain(b'"old history"'),
        Payload(metadata={"encoding": b"binary/null"}),
        Payload(metadata={"encoding": b"binary/encrypted"}, data=b"another codec's"),
    ]
    assert await codec.decode(foreign) == foreign


async def test_a_payload_sealed_already_is_not_sealed_twice():
    codec = EncryptionCodec([key()])
    sealed = await seal(codec, plain(b"1"))
    assert await seal(codec, sealed) == sealed


def test_a_codec_needs_a_key():
    with pytest.raises(ValueError):
        EncryptionCodec([])


async def test_the_data_converter_seals_pydantic_values_and_failure_messages():
    converter = data_converter([key()])
    message = ChannelMessage(channel="C1", text=f"remember {CANARY}")
    [payload] = await converter.encode([message])
    assert payload.metadata["encoding"] == ENCODING and CANARY.encode() not in payload.data
    assert await converter.decode([payload], [ChannelMessage]) == [message]

    failure = Failure()
    await converter.encode_failure(ApplicationError(f"tool said {CANARY}", type="Boom"), failure)
    assert CANARY.encode() not in failure.SerializeToString()
    assert failure.message == "Encoded failure"  # the text moved into the sealed attributes
    error = await converter.decode_failure(failure)
    assert isinstance(error, ApplicationError) and error.message == f"tool said {CANARY}"


def test_workflow_code_never_loads_the_codec():
    # The sandbox re-imports workflow modules; the codec and its crypto belong to the
    # client and worker only (they see payloads before and after the workflow does).
    import subprocess
    import sys

    code = (
        "import sys, harness.temporal.workflow.task, harness.temporal.workflow.request; "
        "print(sorted(m for m in ('harness.temporal.codec', 'cryptography') "
        "if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
