"""Process logging: every record redacted as it is created, and one line format for all.

Redaction is one process-wide hook on record creation (:func:`logging.setLogRecordFactory`),
not a handler or a filter: those attach to one logger or handler each, and whichever was
left out (a library's own handler, pytest's caplog) would print raw text. What counts
as a secret is :class:`~harness.redaction.Redactor`'s business. The line format
(:func:`configure_logging`: text, or one JSON object per line) adds the task id and
correlation id of the operation being run (:func:`harness.hooks.current_operation`);
calling both at start belongs to the entry points (worker, bot).
"""

from __future__ import annotations

import json
import logging
import sys
import time
from collections.abc import Callable
from typing import Any, Final, Literal, final

from harness.hooks import current_operation
from harness.redaction import Redactor

_FORMATTER: Final = logging.Formatter()

LogFormat = Literal["text", "json"]
"""``HARNESS_LOG_FORMAT``: ``text`` for people (the local default), ``json`` for collectors."""

TEXT_FORMAT: Final = "%(asctime)s %(levelname)s %(name)s %(message)s"


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


@final
class TextFormatter(logging.Formatter):
    """``time LEVEL logger message``, then ``[task <id> correlation <id>]`` inside an operation."""

    def __init__(self) -> None:
        super().__init__(TEXT_FORMAT)

    def format(self, record: logging.LogRecord) -> str:
        """The classic line, with the running operation's ids before any traceback."""
        line = super().format(record)
        running = current_operation()
        if running is None or not (running.task_id or running.correlation_id):
            return line
        ids = f" [task {running.task_id or '-'} correlation {running.correlation_id or '-'}]"
        first, newline, rest = line.partition("\n")
        return f"{first}{ids}{newline}{rest}"


@final
class JsonFormatter(logging.Formatter):
    """One JSON object per record: time, level, logger, message, and the operation's ids.

    ``time`` is UTC ISO 8601 with milliseconds; ``task_id`` and ``correlation_id`` are
    present inside an operation (read when the record is formatted, which for the
    process's stream handler is when it is logged, in the same context); ``exception``
    and ``stack`` when the record has them. Every text was redacted when the record
    was created (:func:`install_log_redaction`); ``extra=`` values are not written.
    """

    def format(self, record: logging.LogRecord) -> str:
        """The record as one line of JSON."""
        seconds = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(record.created))
        line: dict[str, str] = {
            "time": f"{seconds}.{int(record.msecs):03d}Z",
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
        }
        running = current_operation()
        if running is not None:
            line["operation"] = running.operation
            if running.task_id:
                line["task_id"] = running.task_id
            if running.correlation_id:
                line["correlation_id"] = running.correlation_id
        if record.exc_info and not record.exc_text:
            record.exc_text = self.formatException(record.exc_info)
        if record.exc_text:
            line["exception"] = record.exc_text
        if record.stack_info:
            line["stack"] = record.stack_info
        return json.dumps(line, ensure_ascii=False)


def configure_logging(log_format: LogFormat, *, level: int = logging.INFO) -> logging.Formatter:
    """Give every handler of the root logger the ``log_format`` formatter (one on stderr if none).

    Handlers are kept, only their format changes, so a process may log its first lines
    (``logging.basicConfig``) before its settings are read and call this after.

    Args:
        log_format: ``text`` or ``json``.
        level: the root logger's level.

    Returns:
        The formatter installed.
    """
    formatter: logging.Formatter = JsonFormatter() if log_format == "json" else TextFormatter()
    root = logging.getLogger()
    root.setLevel(level)
    if not root.handlers:
        root.addHandler(logging.StreamHandler(sys.stderr))
    for handler in root.handlers:
        handler.setFormatter(formatter)
    return formatter
