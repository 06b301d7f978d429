"""Which hook executor a stack is running, read from the frames of the chain loop.

The chain loop (:func:`~harness.hooks.chain.run_chain`) and a parallel validator's run
(:mod:`harness.hooks.validators`) hold the registration they are calling in a local named
``reg``; the innermost such frame of a stack names the executor it is in. Nothing is recorded
on the hot path: a watchdog reads a frame it sampled from another thread
(``sys._current_frames()``, :mod:`harness.loop_watch`), only when that thread looks stuck.
"""

from __future__ import annotations

from types import FrameType
from typing import Final

from harness.hooks import chain, validators
from harness.hooks.executor import Registration

CALLERS: Final = frozenset({chain.run_chain.__code__, validators.call_validator.__code__})
"""The code of every function that calls executors, each holding the one it calls in ``reg``."""


def executor_on_stack(frame: FrameType | None) -> Registration | None:
    """The registration whose executor ``frame``'s stack is inside, innermost first; or ``None``.

    An executor that runs another operation is inside that operation's chain too: the
    innermost chain names the executor actually running.

    Args:
        frame: the innermost frame of a stack (another thread's, as sampled).
    """
    while frame is not None:
        if frame.f_code in CALLERS:
            # f_locals of another thread's frame is a copy taken under the GIL: a read only.
            reg = frame.f_locals.get("reg")
            if isinstance(reg, Registration):
                return reg
        frame = frame.f_back
    return None
