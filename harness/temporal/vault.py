"""The sealed vault: messages sent by reference, kept where every worker reads them.

:mod:`harness.temporal.refs` sends a model call the messages of its window by id; the
activity reads them here (:mod:`harness.temporal.activity.referenced`). A message is as
secret as the history it no longer sits in, so it is sealed with the payload key
(:class:`~harness.temporal.codec.EncryptionCodec`, the same sealing history's payloads get)
and kept under a keyed digest of its run and number: the database holds neither a message
nor anything that tells one run's from another's to someone without the key.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
from collections.abc import Collection, Mapping
from typing import Final, final

from temporalio.api.common.v1 import Payload

from harness.domain import Message
from harness.storage.blobs import BlobStore
from harness.storage.engine import Database
from harness.temporal.offload import Sealing

KEY_PREFIX: Final = "message/"
_CONTEXT: Final = b"tiny-harness message vault v1"
_JSON: Final = b"json/plain"


@final
class SealedVault:
    """:class:`~harness.temporal.activity.referenced.MessageVault` on the shared database.

    Args:
        database: the worker's open database (every worker's, in a fleet).
        sealing: the payload encryption.
        secret: the first payload key's secret; the vault's key is derived from it.
    """

    def __init__(self, database: Database, sealing: Sealing, *, secret: bytes) -> None:
        self._blobs = BlobStore(database)
        self._sealing = sealing
        self._key = hashlib.sha256(_CONTEXT + secret).digest()

    async def keep(self, scope: str, messages: Mapping[int, Message]) -> None:
        """Seal each message and keep it (see ``MessageVault.keep``)."""
        values = {}
        for i, message in messages.items():
            plain = Payload(metadata={"encoding": _JSON}, data=message.model_dump_json().encode())
            sealed = self._sealing.seal(plain).SerializeToString(deterministic=True)
            values[self._where(scope, i)] = base64.b64encode(sealed).decode("ascii")
        await self._blobs.put_many(values)

    async def fetch(self, scope: str, numbers: Collection[int]) -> dict[int, Message]:
        """Read and open the messages kept (see ``MessageVault.fetch``).

        Raises:
            PayloadCodecError: a message does not open with any configured key.
        """
        keys = {self._where(scope, n): n for n in numbers}
        found = await self._blobs.get_many(keys)
        messages = {}
        for key, text in found.items():
            opened = self._sealing.open(Payload.FromString(base64.b64decode(text)))
            messages[keys[key]] = Message.model_validate_json(opened.data)
        return messages

    def _where(self, scope: str, number: int) -> str:
        """``message/<run>/<number>``, each a keyed digest: one run's rows share a prefix
        (what a clean-up of an ended run would delete), and neither part says which."""
        run = hmac.new(self._key, scope.encode(), hashlib.sha256).hexdigest()[:32]
        digest = hmac.new(self._key, f"{scope}\n{number}".encode(), hashlib.sha256)
        return f"{KEY_PREFIX}{run}/{digest.hexdigest()}"
