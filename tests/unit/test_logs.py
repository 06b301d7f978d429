"""Log redaction: records are scrubbed at creation, whichever handler formats them."""

from __future__ import annotations

import io
import logging

import pytest

from harness.logs import install_log_redaction
from harness.redaction import Redactor

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


# Line formats (issue 11): JSON or text, with the running operation's ids.


def formatted(formatter: logging.Formatter) -> io.StringIO:
    out = io.StringIO()
    handler = logging.StreamHandler(out)
    handler.setFormatter(formatter)
    log.addHandler(handler)
    return out


def tool_context(task_id: str = "task/T1/C1"):
    from harness.domain import TaskRef, ToolCall
    from harness.hooks.contexts import ToolInvokedContext

    return ToolInvokedContext(
        task=TaskRef(task_id=task_id, team="T1", channel="C1"),
        correlation_id="corr-42",
        idempotency_key="k",
        call=ToolCall(id="1", name="echo", arguments={}),
    )


async def logged_inside_an_operation(message: str, *args: object) -> None:
    from harness.hooks import HookManager

    manager = HookManager()

    async def body(ctx):
        log.warning(message, *args)
        try:
            raise ValueError(f"failed with {CANARY}")
        except ValueError:
            log.exception("inside, failing")

    manager.register("tool.invoked.in", body)
    await manager.run("tool.invoked", tool_context())


async def test_json_lines_carry_the_operation_ids_and_never_a_secret(redaction):
    import json

    from harness.logs import JsonFormatter

    out = formatted(JsonFormatter())
    try:
        log.warning("outside, token %s", CANARY)
        await logged_inside_an_operation("inside, token %s and configured secret value", CANARY)
    finally:
        log.handlers.clear()
    outside, inside, failing = (json.loads(line) for line in out.getvalue().splitlines())
    assert set(outside) == {"time", "level", "logger", "message"}
    assert outside["level"] == "WARNING" and outside["logger"] == "tests.logs"
    assert outside["message"] == "outside, token [REDACTED]"
    assert outside["time"].endswith("Z") and outside["time"][10] == "T"
    assert inside["task_id"] == "task/T1/C1" and inside["correlation_id"] == "corr-42"
    assert inside["operation"] == "tool.invoked"
    assert inside["message"] == "inside, token [REDACTED] and [REDACTED]"
    assert "ValueError: failed with [REDACTED]" in failing["exception"]
    assert failing["task_id"] == "task/T1/C1"
    assert CANARY not in out.getvalue() and "configured secret value" not in out.getvalue()


async def test_text_lines_add_the_ids_inside_an_operation_only(redaction):
    from harness.logs import TextFormatter

    out = formatted(TextFormatter())
    try:
        log.warning("outside")
        await logged_inside_an_operation("inside")
    finally:
        log.handlers.clear()
    lines = out.getvalue().splitlines()
    assert lines[0].endswith(" WARNING tests.logs outside")
    assert lines[1].endswith(" WARNING tests.logs inside [task task/T1/C1 correlation corr-42]")
    # A traceback stays below its line; the ids stay on the line itself.
    assert lines[2].endswith("inside, failing [task task/T1/C1 correlation corr-42]")
    assert lines[3] == "Traceback (most recent call last):"


async def test_a_task_id_holding_a_secret_is_logged_masked(redaction):
    import json

    from harness.hooks import HookManager
    from harness.logs import JsonFormatter

    manager = HookManager(redactor=Redactor(secrets=["configured secret value"]))

    async def body(ctx):
        log.warning("running")

    manager.register("tool.invoked.in", body)
    out = formatted(JsonFormatter())
    try:
        await manager.run("tool.invoked", tool_context("task/configured secret value"))
    finally:
        log.handlers.clear()
    [line] = out.getvalue().splitlines()
    assert json.loads(line)["task_id"] == "task/[REDACTED]"
