"""The payload codec: every payload the harness gives Temporal is compressed, then encrypted.

Temporal records update arguments, activity inputs and results, and failure
messages as they are sent; without this a token pasted into Slack, a
``response_url`` or a whole transcript sits readable in the server's database (issue
9). :class:`EncryptionCodec` seals each payload with AES-256-GCM under the first
configured key and opens it with whichever key its id names. :func:`data_converter`
is the one place the harness's converter is built; the client, the worker, tests and
benchmarks all use it. It runs in the client and the worker only: workflow code never
imports this module (the sandbox sees plain values, already decoded).

What it does not hide: workflow ids, activity and update names, timestamps, and the
sizes of payloads. Keys and their ids are :mod:`harness.temporal.keys`.
"""

from __future__ import annotations

import dataclasses
import os
import zlib
from collections.abc import Sequence
from typing import Final, final

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from google.protobuf.message import DecodeError
from temporalio.api.common.v1 import Payload
from temporalio.contrib.pydantic import pydantic_data_converter
from temporalio.converter import (
    DataConverter,
    DefaultFailureConverterWithEncodedAttributes,
    PayloadCodec,
)

from harness.storage import PayloadStore
from harness.temporal.errors import PayloadCodecError
from harness.temporal.keys import ENV_VAR, PayloadKey
from harness.temporal.offload import OffloadingCodec

ENCODING: Final = b"binary/tiny-harness-encrypted"
"""The ``encoding`` of a payload this codec sealed; any other encoding passes decode untouched."""
KEY_ID: Final = "encryption-key-id"
COMPRESSION: Final = "compression"
"""``zlib``, or ``none`` when compressing would not have made the payload smaller."""

_ZLIB: Final = b"zlib"
_NONE: Final = b"none"
_NONCE_BYTES: Final = 12  # random per payload: fine for 2**32 payloads a key (NIST), so rotate
_TAG_BYTES: Final = 16
_MIN_WINDOW_BITS: Final = 10  # zlib's floor is 9, and it rounds 8 up
_BLOCK_BITS_OVER_MEMORY: Final = 6  # zlib's block holds 2 ** (memLevel + 6) symbols


@final
class EncryptionCodec(PayloadCodec):
    """Compresses (zlib) and encrypts (AES-256-GCM) payloads; decrypts with any listed key.

    The sealed bytes are the original payload, metadata included, so the stored
    payload shows only our encoding, the key id and whether it was compressed. The
    key id and the compression flag are authenticated too (GCM associated data): a
    payload whose metadata was edited fails like one whose ciphertext was.

    Args:
        keys: the first encrypts new payloads; all of them decrypt (rotation).

    Raises:
        ValueError: ``keys`` is empty.
    """

    def __init__(self, keys: Sequence[PayloadKey]) -> None:
        if not keys:
            raise ValueError("EncryptionCodec needs at least one key")
        self._key_id = keys[0].id
        self._ciphers = {key.id: AESGCM(key.secret) for key in keys}

    @property
    def key_id(self) -> str:
        """The id of the key new payloads are encrypted with."""
        return self._key_id

    async def encode(self, payloads: Sequence[Payload]) -> list[Payload]:
        """Seal each payload; one sealed already (ours) is kept as it is, not sealed twice."""
        return [self.seal(payload) for payload in payloads]

    async def decode(self, payloads: Sequence[Payload]) -> list[Payload]:
        """Open each payload of ours; others (histories written before encryption) pass.

        Raises:
            PayloadCodecError: a payload names a key id not configured, or does not
                authenticate under its key.
        """
        return [self.open(payload) for payload in payloads]

    def seal(self, payload: Payload) -> Payload:
        """One payload, compressed when that helps, then encrypted under the first key.

        Synchronous and in the caller's thread: a Temporal payload is at most a few
        MB, which zlib and AES-GCM (AES-NI) get through in milliseconds.
        """
        if payload.metadata.get("encoding") == ENCODING:
            return payload
        plain = payload.SerializeToString(deterministic=True)
        packed = deflate(plain)
        compression, body = (_ZLIB, packed) if len(packed) < len(plain) else (_NONE, plain)
        nonce = os.urandom(_NONCE_BYTES)
        sealed = self._ciphers[self._key_id].encrypt(
            nonce, body, _associated(self._key_id, compression)
        )
        metadata = {"encoding": ENCODING, KEY_ID: self._key_id.encode(), COMPRESSION: compression}
        return Payload(metadata=metadata, data=nonce + sealed)

    def open(self, payload: Payload) -> Payload:
        """The original payload of one sealed by :meth:`seal`; any other payload as it is.

        Raises:
            PayloadCodecError: see :meth:`decode`.
        """
        if payload.metadata.get("encoding") != ENCODING:
            return payload
        key_id = payload.metadata.get(KEY_ID, b"").decode("ascii", "replace")
        cipher = self._ciphers.get(key_id)
        if cipher is None:
            known = ", ".join(self._ciphers)
            problem = (
                f"no such key among the configured ones ({known}); add the key it was "
                f"written with to {ENV_VAR} (after the first)"
            )
            raise PayloadCodecError(key_id=key_id, problem=problem)
        compression = payload.metadata.get(COMPRESSION, b"")
        if compression not in (_ZLIB, _NONE):
            raise PayloadCodecError(key_id=key_id, problem="unknown compression in its metadata")
        data = payload.data
        if len(data) < _NONCE_BYTES + _TAG_BYTES:
            raise PayloadCodecError(key_id=key_id, problem="too short to be a sealed payload")
        try:
            body = cipher.decrypt(
                data[:_NONCE_BYTES], data[_NONCE_BYTES:], _associated(key_id, compression)
            )
        except InvalidTag:
            problem = "does not authenticate: its bytes or metadata were altered, or it is damaged"
            raise PayloadCodecError(key_id=key_id, problem=problem) from None
        try:
            return Payload.FromString(zlib.decompress(body) if compression == _ZLIB else body)
        except (zlib.error, DecodeError) as error:  # authentic, so written by a broken encoder
            problem = f"authentic but unreadable: {error}"
            raise PayloadCodecError(key_id=key_id, problem=problem) from error


def deflate(plain: bytes) -> bytes:
    """``plain`` as a zlib stream at the default level, with a window no wider than it needs.

    ``zlib.compress`` sets up about 256 KB of tables for its 32 KB window on every call,
    past malloc's mmap threshold: 8-80 us a call on this 2-core machine, more than
    compressing a payload of a few KB takes (5-14 us with a fitting window). Sealing and
    opening were 9 % of the worker's samples under bench/load.py (issue 27). A window as
    wide as the payload finds every match the full one would, and a block as long as it
    keeps one Huffman table, so the bytes are as few; the stream names its window, so any
    zlib reader opens it.
    """
    bits = min(max(len(plain).bit_length(), _MIN_WINDOW_BITS), zlib.MAX_WBITS)
    memory = min(bits - _BLOCK_BITS_OVER_MEMORY, zlib.DEF_MEM_LEVEL)  # a block holds it all
    deflater = zlib.compressobj(zlib.Z_DEFAULT_COMPRESSION, zlib.DEFLATED, bits, memory)
    return deflater.compress(plain) + deflater.flush()


def _associated(key_id: str, compression: bytes) -> bytes:
    """What GCM authenticates beside the ciphertext: our encoding, the key id and compression."""
    return b"|".join((ENCODING, key_id.encode(), compression))


def data_converter(keys: Sequence[PayloadKey], store: PayloadStore | None = None) -> DataConverter:
    """The harness's data converter: pydantic values, encrypted payloads, encrypted failures.

    Failures use ``encode_common_attributes``: their message and stack trace move into
    an encoded payload, since an error text may quote what the task was sent.

    Args:
        keys: from :func:`harness.temporal.keys.load_keys`; the first encrypts.
        store: where payloads over the inline bound go
            (:class:`~harness.temporal.offload.OffloadingCodec`); ``None`` keeps every
            payload inline (reading old histories, the codec server, unit tests).

    Returns:
        ``pydantic_data_converter`` with :class:`EncryptionCodec` (offloading when a
        ``store`` is given) and encoded failures.
    """
    sealing = EncryptionCodec(keys)
    codec: PayloadCodec = sealing
    if store is not None:
        codec = OffloadingCodec(sealing, store, secret=keys[0].secret)
    return dataclasses.replace(
        pydantic_data_converter,
        payload_codec=codec,
        failure_converter_class=DefaultFailureConverterWithEncodedAttributes,
    )
