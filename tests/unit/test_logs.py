"""Log redaction: records are scrubbed at creation, whichever handler formats them."""

from __future__ import annotations

import io
import logging

import pytest

from harness.hooks import Redactor
from harness.logs import install_log_redaction

CANARY = "xoxb-canary-0123456789"
log = logging.getLogger("tests.logs")


@pytest.fixture
def redaction():
    undo = install_log_redaction(Redactor(secrets=["configured secret value"]))
    yield
    undo()


@pytest.fixture
def stream():
    out = io.StringIO()
    handler = logging.StreamHandler(out)
    handler.setFormatter(logging.Formatter("%(levelname)s %(message)s"))
    log.addHandler(handler)
    yield out
    log.removeHandler(handler)


def log_everything() -> None:
    log.warning("token in args: %s", CANARY)
    log.warning(f"token in the message: {CANARY}")
    log.warning("mapping args %(t)s", {"t": CANARY})
    log.warning("configured secret value in text")
    try:
        raise ValueError(f"failed with {CANARY}")
    except ValueError:
        log.exception("call failed")
    log.warning("here", stack_info=True)


def test_no_record_holds_the_canary_in_caplog_or_a_stream_handler(redaction, stream, caplog):
    caplog.set_level(logging.INFO)
    log_everything()
    assert len(caplog.records) == 6
    assert CANARY not in caplog.text and CANARY not in stream.getvalue()
    assert "configured secret value" not in caplog.text
    assert "ValueError: failed with [REDACTED]" in caplog.text  # the traceback, masked
    assert "token in args: [REDACTED]" in stream.getvalue()
    for record in caplog.records:
        assert CANARY not in record.getMessage() and CANARY not in (record.exc_text or "")
        assert CANARY not in (record.stack_info or "")
        # exc_info stays the live exception (handlers may need it); formatters print exc_text.


def test_without_it_the_canary_is_logged(stream, caplog):
    log_everything()
    assert CANARY in caplog.text and CANARY in stream.getvalue()


def test_installing_twice_is_a_no_op_and_undo_restores_the_factory():
    before = logging.getLogRecordFactory()
    redactor = Redactor()
    undo = install_log_redaction(redactor)
    installed = logging.getLogRecordFactory()
    again = install_log_redaction(redactor)
    assert logging.getLogRecordFactory() is installed
    again()
    assert logging.getLogRecordFactory() is installed
    undo()
    assert logging.getLogRecordFactory() is before


def test_undo_under_a_later_factory_stops_redacting_and_keeps_the_later_one(stream):
    before = logging.getLogRecordFactory()
    undo = install_log_redaction(Redactor())
    inner = logging.getLogRecordFactory()
    seen = []

    def later(*args, **kwargs):
        record = inner(*args, **kwargs)
        seen.append(record)
        return record

    logging.setLogRecordFactory(later)
    try:
        undo()
        assert logging.getLogRecordFactory() is later
        log.warning("raw %s", CANARY)
        assert CANARY in stream.getvalue() and len(seen) == 1
    finally:
        logging.setLogRecordFactory(before)


def test_a_bad_format_string_is_redacted_not_raised(redaction, stream):
    log.warning("two %s %s", CANARY)
    assert CANARY not in stream.getvalue() and "two %s %s" in stream.getvalue()
