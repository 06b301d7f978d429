"""A redacted stand-in for a foreign exception, and the copy of its cause chain.

:func:`~harness.hooks.remote.wire.map_transport_errors` chains a :class:`RedactedError`
under every ``HookTransportError`` instead of the foreign exception itself, whose text may
hold tokens and upstream replies; this module only makes the copy.
"""

from __future__ import annotations

from typing import Final

from harness.errors import HarnessError
from harness.redaction import Redactor

MAX_CAUSE_CHARS: Final = 500
"""Longest cause text kept: it lands in Temporal's history, so a 1 MiB HTML page must not."""


class RedactedError(HarnessError):
    """A redacted stand-in for a foreign exception: ``"<OriginalType>: <redacted text>"``.

    :func:`map_transport_errors` chains this, never the original, under a
    ``HookTransportError``, because a logged traceback or Temporal's failure (which
    keeps the whole cause chain) prints every cause's message, and a transport's
    messages hold URLs with tokens and upstream replies with keys. The original's
    traceback is kept (frames, not values) and so is its own chain, each link a
    redacted copy capped at :data:`MAX_CAUSE_CHARS`; the original itself is never
    printed (``__suppress_context__``).
    """

    def __init__(self, *, kind: str, text: str) -> None:
        self.kind = kind
        self.text = text
        super().__init__(f"{kind}: {text}" if text else kind)

    def __reduce__(self) -> tuple[object, ...]:
        return (_rebuild_redacted, (self.kind, self.text))


def _rebuild_redacted(kind: str, text: str) -> RedactedError:
    return RedactedError(kind=kind, text=text)


_MAX_CHAIN: Final = 8
"""Causes copied below a transport error; a deeper chain (or a cycle) is cut there."""


def redacted_copy(exc: BaseException, redactor: Redactor, depth: int = 0) -> RedactedError:
    """A :class:`RedactedError` for ``exc``, its cause or context chain copied likewise.

    Args:
        exc: the foreign exception (an ``ExceptionGroup`` names its leaves' types too).
        redactor: scrubs each message.
        depth: how deep in the chain ``exc`` sits; past :data:`_MAX_CHAIN` it stops.

    Returns:
        The copy, carrying ``exc``'s traceback and never ``exc`` itself.
    """
    try:
        text = str(exc)
    except Exception:  # a foreign __str__ that fails must not mask the transport failure
        text = "<unprintable>"
    if isinstance(exc, BaseExceptionGroup):
        text += " [" + "; ".join(type(leaf).__name__ for leaf in exc.exceptions) + "]"
    text = redactor.redact_text(text)
    if len(text) > MAX_CAUSE_CHARS:
        text = text[: MAX_CAUSE_CHARS - 3] + "..."
    copy = RedactedError(kind=type(exc).__name__, text=text).with_traceback(exc.__traceback__)
    copy.__suppress_context__ = True
    if depth < _MAX_CHAIN:
        if exc.__cause__ is not None:
            copy.__cause__ = redacted_copy(exc.__cause__, redactor, depth + 1)
        elif exc.__context__ is not None and not exc.__suppress_context__:
            copy.__context__ = redacted_copy(exc.__context__, redactor, depth + 1)
            copy.__suppress_context__ = False
    return copy
