"""Standard Webhooks signatures for JSON-RPC hook calls: sign on our side, verify on theirs.

The scheme of https://www.standardwebhooks.com/ (symmetric, ``v1``) and nothing else:
the signed content is ``{webhook-id}.{webhook-timestamp}.{body}``, HMAC-SHA256 keyed
with the base64-decoded ``whsec_`` secret, sent as ``v1,<base64>`` in
``webhook-signature`` (space separated, one per secret, so keys rotate without
downtime). Only the standard library. Where the signature goes on the wire is
:mod:`.jsonrpc` (client) and :mod:`harness.hook_server.jsonrpc` (server).
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import time
from collections.abc import Iterable, Mapping
from secrets import token_urlsafe
from typing import Final, Literal, final

from harness.errors import HarnessError

ID_HEADER: Final = "webhook-id"
TIMESTAMP_HEADER: Final = "webhook-timestamp"
SIGNATURE_HEADER: Final = "webhook-signature"
SECRET_PREFIX: Final = "whsec_"
DEFAULT_TOLERANCE: Final = 300.0
"""Seconds a timestamp may be off the verifier's clock, either way (the spec's 5 minutes)."""

MIN_SECRET_BYTES: Final = 24
MAX_SECRET_BYTES: Final = 64
_MAX_SIGNATURES: Final = 16  # a header of thousands of signatures must not cost thousands of MACs
_MAX_HEADER_CHARS: Final = 4096
_MAX_ID_CHARS: Final = 256

SignatureProblem = Literal["unsigned", "malformed", "stale", "future", "mismatch", "secret"]
"""What was wrong: headers missing; a header unreadable; the timestamp too old or too far
ahead; no signature made with a known secret; a secret that is not ``whsec_<base64>``."""


class SignatureError(HarnessError):
    """A request's Standard Webhooks signature does not verify, or a secret is unusable.

    The message names what was wrong (:data:`SignatureProblem`) and never any secret
    or signature value, so it may be logged and sent back as the 401's body.
    """

    def __init__(self, *, problem: SignatureProblem, detail: str) -> None:
        self.problem = problem
        self.detail = detail
        super().__init__(f"signature {problem}: {detail}")

    @property
    def retryable(self) -> bool:
        """No: the same secret and the same clock give the same verdict."""
        return False

    def __reduce__(self) -> tuple[object, ...]:
        return (_rebuild, (self.problem, self.detail))


def _rebuild(problem: SignatureProblem, detail: str) -> SignatureError:
    return SignatureError(problem=problem, detail=detail)


def decode_secret(secret: str) -> bytes:
    """The key bytes of ``whsec_<base64>`` (the prefix is optional, as in the spec's libraries).

    Raises:
        SignatureError: ``secret`` (problem ``secret``) is not base64 of 24 to 64 bytes.
            The message never contains the value.
    """
    text = secret.strip().removeprefix(SECRET_PREFIX)
    try:
        key = base64.b64decode(text + "=" * (-len(text) % 4), validate=True)
    except (binascii.Error, ValueError):
        key = b""
    if not MIN_SECRET_BYTES <= len(key) <= MAX_SECRET_BYTES:
        raise SignatureError(
            problem="secret",
            detail=f"expected '{SECRET_PREFIX}' followed by the base64 of {MIN_SECRET_BYTES} "
            f'to {MAX_SECRET_BYTES} random bytes (e.g. python -c "import base64, os; '
            f"print('{SECRET_PREFIX}' + base64.b64encode(os.urandom(32)).decode())\")",
        )
    return key


ID_BYTES: Final = 18
"""Bytes behind a ``webhook-id``: 24 URL-safe base64 characters after ``msg_``, no padding."""


def message_id(idempotency_key: str, point: str) -> str:
    """The ``webhook-id`` of a call: the same for every retry of one operation at one point.

    Standard Webhooks keeps the id across redeliveries so a receiver can deduplicate;
    ours is derived from the operation's idempotency key (stable across Temporal
    retries and lost workers) and the point, hashed so it holds no ``.`` and leaks
    nothing of the key. A context without a key (a worker's ``shutdown``, a context built
    outside a task) gets a random id of the same form (issue 28): ``msg_`` and the URL-safe
    base64 of 18 bytes, 24 characters (docs/hooks/signing.md).
    """
    if not idempotency_key:
        return "msg_" + token_urlsafe(ID_BYTES)
    digest = hashlib.sha256(f"{idempotency_key}#{point}".encode()).digest()[:ID_BYTES]
    return "msg_" + base64.urlsafe_b64encode(digest).decode()


@final
class Signer:
    """Signs bodies with one or more secrets (all of them, so either side may rotate).

    The HMAC of each key is prepared once here and copied per call, which skips the
    key schedule on the hot path.

    Args:
        secrets: ``whsec_`` secrets; the first is the current one by convention only.

    Raises:
        SignatureError: no secret, or one that :func:`decode_secret` refuses.
    """

    __slots__ = ("_macs",)

    def __init__(self, secrets: Iterable[str]) -> None:
        self._macs = tuple(hmac.new(decode_secret(s), digestmod=hashlib.sha256) for s in secrets)
        if not self._macs:
            raise SignatureError(problem="secret", detail="no signing secret given")

    def signature(self, msg_id: str, timestamp: int, body: bytes) -> str:
        """The ``webhook-signature`` value: ``v1,<base64>`` per secret, space separated."""
        content = f"{msg_id}.{timestamp}.".encode() + body
        parts = []
        for mac in self._macs:
            own = mac.copy()
            own.update(content)
            parts.append("v1," + base64.b64encode(own.digest()).decode())
        return " ".join(parts)

    def headers(self, msg_id: str, body: bytes, *, now: float | None = None) -> dict[str, str]:
        """The three Standard Webhooks headers for ``body``, timestamped ``now`` (default: now)."""
        timestamp = int(time.time() if now is None else now)
        return {
            ID_HEADER: msg_id,
            TIMESTAMP_HEADER: str(timestamp),
            SIGNATURE_HEADER: self.signature(msg_id, timestamp, body),
        }


def sign(secrets: str | Iterable[str], msg_id: str, timestamp: int, body: bytes) -> dict[str, str]:
    """The Standard Webhooks headers of ``body`` (one-off; keep a :class:`Signer` to sign often).

    Raises:
        SignatureError: a secret is not usable.
    """
    signer = Signer([secrets] if isinstance(secrets, str) else secrets)
    return signer.headers(msg_id, body, now=timestamp)


@final
class Verifier:
    """Checks the Standard Webhooks headers of requests against any of several secrets.

    Args:
        secrets: every ``whsec_`` secret accepted (old and new while rotating).
        tolerance: seconds the timestamp may be off this host's clock, either way.

    Raises:
        SignatureError: no secret, or one that :func:`decode_secret` refuses.
    """

    __slots__ = ("_keys", "tolerance")

    def __init__(self, secrets: Iterable[str], *, tolerance: float = DEFAULT_TOLERANCE) -> None:
        self._keys = tuple(decode_secret(s) for s in secrets)
        if not self._keys:
            raise SignatureError(problem="secret", detail="no verification secret given")
        if tolerance <= 0:
            raise ValueError("tolerance must be positive")
        self.tolerance = tolerance

    def verify(self, headers: Mapping[str, str], body: bytes, *, now: float | None = None) -> str:
        """Return the request's ``webhook-id`` if a signature matches; raise otherwise.

        Args:
            headers: the request headers (any case).
            body: the raw body, exactly as received (never re-serialized JSON).
            now: the clock to check the timestamp against; this host's when omitted.

        Raises:
            SignatureError: ``unsigned`` (a header is missing), ``malformed``, ``stale``,
                ``future`` or ``mismatch``; the message says which header and why.
        """
        lower = {k.lower(): v for k, v in headers.items()}
        missing = [h for h in (ID_HEADER, TIMESTAMP_HEADER, SIGNATURE_HEADER) if not lower.get(h)]
        if missing:
            raise SignatureError(problem="unsigned", detail=f"missing header {', '.join(missing)}")
        msg_id, stamp = lower[ID_HEADER], lower[TIMESTAMP_HEADER]
        if len(msg_id) > _MAX_ID_CHARS or "." in msg_id or not msg_id.isprintable():
            raise SignatureError(
                problem="malformed",
                detail=f"{ID_HEADER} must be printable, without '.', at most {_MAX_ID_CHARS} chars",
            )
        if not (stamp.isascii() and stamp.isdigit()) or len(stamp) > 12:
            raise SignatureError(
                problem="malformed", detail=f"{TIMESTAMP_HEADER} is not integer unix seconds"
            )
        skew = int(stamp) - (time.time() if now is None else now)
        if skew < -self.tolerance:
            raise SignatureError(
                problem="stale",
                detail=f"{TIMESTAMP_HEADER} is {-skew:.0f}s "
                f"old; the tolerance is {self.tolerance:g}s",
            )
        if skew > self.tolerance:
            raise SignatureError(
                problem="future",
                detail=f"{TIMESTAMP_HEADER} is {skew:.0f}s "
                f"ahead; the tolerance is {self.tolerance:g}s",
            )
        offered = _v1_signatures(lower[SIGNATURE_HEADER])
        content = f"{msg_id}.{stamp}.".encode() + body
        for key in self._keys:
            expected = hmac.digest(key, content, "sha256")
            # Compare against every offered one, no early exit per key: constant time.
            if any(hmac.compare_digest(expected, given) for given in offered):
                return msg_id
        raise SignatureError(
            problem="mismatch",
            detail=f"no v1 signature among {len(offered)} matches a known secret "
            "(wrong secret, or the body was changed: sign and verify the raw bytes)",
        )


def _v1_signatures(header: str) -> list[bytes]:
    if len(header) > _MAX_HEADER_CHARS:
        raise SignatureError(
            problem="malformed", detail=f"{SIGNATURE_HEADER} is over {_MAX_HEADER_CHARS} chars"
        )
    found: list[bytes] = []
    for item in header.split()[:_MAX_SIGNATURES]:
        version, comma, value = item.partition(",")
        if not comma:
            raise SignatureError(
                problem="malformed",
                detail=f"{SIGNATURE_HEADER} entries are '<version>,<base64>', space separated",
            )
        if version != "v1":
            continue  # another scheme (v1a, a future v2): not ours to check, per the spec
        try:
            found.append(base64.b64decode(value, validate=True))
        except (binascii.Error, ValueError):
            raise SignatureError(
                problem="malformed", detail=f"a v1 entry of {SIGNATURE_HEADER} is not base64"
            ) from None
    if not found:
        raise SignatureError(problem="unsigned", detail=f"{SIGNATURE_HEADER} has no v1 signature")
    return found
