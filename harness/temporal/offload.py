"""Payload offload: a payload over the inline bound goes to the store, history keeps a reference.

Temporal refuses a payload over 2 MB (``TMPRL1103``), and every update argument, activity
input and result, query answer and continue-as-new input is one. A task's values grow with
what people paste and tools return (issue 27: five 1 MB messages and a 3 MB tool output
stopped a task), so no single field can be trusted to stay small. :class:`OffloadingCodec`
is the one general step: a payload whose plain form is over :data:`INLINE_LIMIT` is sealed
(:class:`~harness.temporal.codec.EncryptionCodec`), stored whole in the database every host
shares (:class:`~harness.storage.payloads.PayloadStore`), and replaced by a sealed reference
of a few hundred bytes. Decoding opens the reference and brings the value back, so
workflow code (which never sees a codec) and activities get the whole value as before.

The reference is a keyed content hash (HMAC-SHA256 under a key derived from the payload
key): the same value gives the same reference, so a retried activity, a replay re-encoding
its commands or a second worker writes nothing twice, and the hash alone confirms nothing
about the content to someone without the key. What it does not bound: the value a workflow
holds in memory, and the bytes a worker decodes (those still grow with what a task is fed).
"""

from __future__ import annotations

import hashlib
import hmac
from typing import TYPE_CHECKING, Final, Protocol, final

from temporalio.api.common.v1 import Payload
from temporalio.converter import PayloadCodec

from harness.storage import PayloadStore
from harness.temporal.errors import PayloadCodecError

if TYPE_CHECKING:
    from collections.abc import Sequence

INLINE_LIMIT: Final = 256 * 1024
"""The largest payload, in bytes, that history holds inline (stored, and opened); issue 27."""
SEAL_HEADROOM: Final = 1024
"""What sealing may add (nonce, tag, metadata): a plain payload over ``INLINE_LIMIT`` minus
this is offloaded, so its sealed form never passes the limit either."""
REFERENCE: Final = b"binary/tiny-harness-ref"
"""The ``encoding`` of a reference payload (inside the seal); its data is the store key."""
KEY_PREFIX: Final = "payload/"
_REF_CONTEXT: Final = b"tiny-harness payload reference v1"


class Sealing(Protocol):
    """What offload needs of the encryption: :class:`~harness.temporal.codec.EncryptionCodec`."""

    @property
    def key_id(self) -> str:
        """The id of the key new payloads are sealed with."""
        ...

    def seal(self, payload: Payload) -> Payload:
        """The payload sealed."""
        ...

    def open(self, payload: Payload) -> Payload:
        """The payload opened (one not sealed as it is)."""
        ...

    async def decode(self, payloads: Sequence[Payload]) -> list[Payload]:
        """Each payload opened."""
        ...


@final
class OffloadingCodec(PayloadCodec):
    """The encryption codec plus offload of payloads over :data:`INLINE_LIMIT`.

    Args:
        sealing: the encryption (seals every payload, references included).
        store: where offloaded payloads are kept.
        secret: the first payload key's secret; the reference key is derived from it.
        inline_limit: the bound (a test pins :data:`INLINE_LIMIT`).
    """

    def __init__(
        self,
        sealing: Sealing,
        store: PayloadStore,
        *,
        secret: bytes,
        inline_limit: int = INLINE_LIMIT,
    ) -> None:
        self.sealing = sealing
        """The encryption alone: what history holds, opened (references unresolved)."""
        self.store = store
        self._inline = inline_limit - SEAL_HEADROOM
        self._ref_key = hashlib.sha256(_REF_CONTEXT + secret).digest()

    async def encode(self, payloads: Sequence[Payload]) -> list[Payload]:
        """Seal each payload; one over the bound is stored and sealed as a reference."""
        return [await self._encode(payload) for payload in payloads]

    async def decode(self, payloads: Sequence[Payload]) -> list[Payload]:
        """Open each payload; a reference is fetched from the store and opened.

        Raises:
            PayloadCodecError: see :meth:`EncryptionCodec.decode`, or a reference whose
                payload the store does not hold.
        """
        return [await self._decode(payload) for payload in payloads]

    async def _encode(self, payload: Payload) -> Payload:
        if payload.ByteSize() <= self._inline:
            return self.sealing.seal(payload)
        plain = payload.SerializeToString(deterministic=True)
        digest = hmac.new(self._ref_key, plain, hashlib.sha256).hexdigest()
        key = f"{KEY_PREFIX}{digest}"
        sealed = self.sealing.seal(payload).SerializeToString(deterministic=True)
        await self.store.put(key, sealed)
        return self.sealing.seal(
            Payload(metadata={"encoding": REFERENCE}, data=key.encode("ascii"))
        )

    async def _decode(self, payload: Payload) -> Payload:
        opened = self.sealing.open(payload)
        if opened.metadata.get("encoding") != REFERENCE:
            return opened
        key = opened.data.decode("ascii", "replace")
        sealed = await self.store.get(key)
        if sealed is None:
            problem = f"its value ({key}) is not in the payload store: is it the same database?"
            raise PayloadCodecError(key_id=self.sealing.key_id, problem=problem)
        return self.sealing.open(Payload.FromString(sealed))
