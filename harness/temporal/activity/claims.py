"""Attempt claims: how a local activity learns that its attempt may have run before.

A regular activity whose worker dies is started again by the workflow with
``lost_workers`` raised (:mod:`harness.temporal.workflow.retries`). A local activity
(a catalogue row that says ``local``) dies with its workflow task instead: the worker
that replays the task runs the step again, and nothing in Temporal tells that run it is
a second one. So the wrapper claims each local attempt by its idempotency key before
running it; a claim that is already taken means an earlier run may have done the work,
and the step is told so the same way (``lost_workers``), so ``channel.sent`` looks its
post up instead of posting twice. The claims must be shared by every worker of a
deployment: the worker's database (:class:`harness.storage.ledger.Ledger`, which fits
:class:`AttemptClaims`); :class:`ProcessClaims` serves a worker built without one.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Iterable
from typing import Final, Protocol, final


class AttemptClaims(Protocol):
    """Records keys; the first claim of a key wins, on any worker that shares the store."""

    async def claim(self, keys: Iterable[str]) -> bool:
        """``True`` if none of ``keys`` was claimed before (and now all are)."""
        ...


@final
class ProcessClaims:
    """Claims kept in this process only: a re-run on another host is not noticed.

    For workers built in process without a database (tests, embedding); the worker that
    ``python -m harness.worker`` starts claims in the shared database.

    Args:
        keep: how many claims are remembered (the oldest go first).
    """

    def __init__(self, keep: int = 100_000) -> None:
        self._keep = keep
        self._seen: OrderedDict[str, None] = OrderedDict()

    async def claim(self, keys: Iterable[str]) -> bool:
        wanted = set(keys)
        if any(key in self._seen for key in wanted):
            return False
        for key in wanted:
            self._seen[key] = None
        while len(self._seen) > self._keep:
            self._seen.popitem(last=False)
        return True


CLAIM_PREFIX: Final = "attempt/"
"""Prefix of an attempt's claim key, beside the bot's event keys in the same table."""


def claim_key(idempotency_key: str, attempt: int, lost_workers: int) -> str:
    """The key one run of one attempt claims."""
    return f"{CLAIM_PREFIX}{idempotency_key}/{attempt}/{lost_workers}"
