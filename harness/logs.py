"""Log redaction: every log record of the process is scrubbed before any handler sees it.

One process-wide hook on record creation (:func:`logging.setLogRecordFactory`), not a
handler or a filter: those attach to one logger or handler each, and whichever was
left out (a library's own handler, pytest's caplog) would print raw text. What counts
as a secret is :class:`~harness.hooks.Redactor`'s business; where logs go, and calling
:func:`install_log_redaction` at start, belong to the entry points (worker, bot).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any, Final, final

from harness.hooks import Redactor

_FORMATTER: Final = logging.Formatter()


def install_log_redaction(redactor: Redactor) -> Callable[[], None]:
    """Make every log record of the process redacted by ``redactor`` as it is created.

    The message is formatted (``msg % args``) and redacted, so handlers see the masked
    text and no arguments; the exception is formatted into ``exc_text`` and redacted
    (formatters print a cached ``exc_text`` instead of formatting ``exc_info``, so a
    handler that renders ``exc_info`` itself, with locals say, bypasses this); and
    ``stack_info`` is redacted. Not covered, because logging sets them after the
    factory returns: ``extra=`` values, and records built with
    :func:`logging.makeLogRecord` (from a socket, say).

    Installing the same redactor again is a no-op (its undo does nothing).

    Args:
        redactor: what to mask; later ``add_secret`` calls apply to later records.

    Returns:
        An undo: the previous factory comes back, or, if another factory was installed
        on top since, this one just stops redacting so that one keeps working.
    """
    current = logging.getLogRecordFactory()
    if isinstance(current, _RedactingFactory) and current.redactor is redactor and current.active:
        return _nothing
    factory = _RedactingFactory(current, redactor)
    logging.setLogRecordFactory(factory)

    def undo() -> None:
        factory.active = False
        if logging.getLogRecordFactory() is factory:
            logging.setLogRecordFactory(factory.previous)

    return undo


def _nothing() -> None:
    return None


@final
class _RedactingFactory:
    __slots__ = ("active", "previous", "redactor")

    def __init__(self, previous: Callable[..., logging.LogRecord], redactor: Redactor) -> None:
        self.previous = previous
        self.redactor = redactor
        self.active = True

    # LogRecord's own signature, passed through as is.
    def __call__(self, *args: Any, **kwargs: Any) -> logging.LogRecord:  # noqa: ANN401
        record = self.previous(*args, **kwargs)
        if self.active:
            _scrub(record, self.redactor)
        return record


def _scrub(record: logging.LogRecord, redactor: Redactor) -> None:
    redact = redactor.redact_text
    try:
        message = record.getMessage()
    except Exception:  # a bad format string: logging would print msg and args, so keep both
        message = f"{record.msg!s} (arguments: {record.args!r})"
    # Formatted once here: a handler formatting msg % args itself would see the raw args.
    record.msg = redact(message)
    record.args = ()
    if record.exc_info and not record.exc_text:
        record.exc_text = redact(_FORMATTER.formatException(record.exc_info))
    elif record.exc_text:
        record.exc_text = redact(record.exc_text)
    if record.stack_info:
        record.stack_info = redact(record.stack_info)
