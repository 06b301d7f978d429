"""The wire: envelope models, the abort convention, and the one error-mapping boundary."""

from __future__ import annotations

import json
import pickle
import traceback

import aiohttp
import pytest
from pydantic import ValidationError

from harness.errors import HarnessError
from harness.hooks import HookAbort, HookTransportError, Redactor
from harness.hooks.contexts import ToolInvokedContext
from harness.hooks.remote import wire
from harness.hooks.remote.redacted import RedactedError
from harness.hooks.remote.strict import ReplyError
from harness.hooks.remote.wire import (
    ABORT,
    INVALID_PARAMS,
    INVALID_REQUEST,
    PARSE_ERROR,
    RpcError,
    RpcFailure,
    RpcRequest,
    RpcSuccess,
    WireError,
    abort_error,
    abort_of,
    decode_params,
    decode_request,
    encode_error,
    encode_request,
    encode_result,
    map_transport_errors,
    read_response,
)
from harness.http import HttpClientError

SLACK_TOKEN = "xoxb-1111111111-2222222222-abcdefghijklmnop"


def test_encoded_request_is_a_valid_envelope_carrying_the_context_as_json(tool_ctx):
    body = encode_request(3, "tool.invoked.pre", {"context": tool_ctx})
    request = RpcRequest.model_validate_json(body)
    assert (request.jsonrpc, request.id, request.method) == ("2.0", 3, "tool.invoked.pre")
    assert request.params["context"] == tool_ctx.model_dump(mode="json")


def test_response_may_carry_a_null_result():
    reply = read_response(
        b'{"jsonrpc": "2.0", "id": 1, "result": null}', ToolInvokedContext, request_id=1
    )
    assert isinstance(reply, RpcSuccess) and reply.result is None and reply.error is None


@pytest.mark.parametrize(
    ("body", "named"),
    [
        (b'{"jsonrpc": "2.0", "id": 1}', "<root>"),
        (
            b'{"jsonrpc": "2.0", "id": 1, "result": null, "error": {"code": 1, "message": "x"}}',
            "<root>",
        ),
        (b'{"jsonrpc": "1.0", "id": 1, "result": null}', "jsonrpc"),
        (b'{"jsonrpc": "2.0", "id": 1, "result": null, "extra": 1}', "extra"),
        (b'{"jsonrpc": "2.0", "id": "1", "result": null}', "id"),
    ],
    ids=["neither", "both", "version-1.0", "extra-member", "id-not-echoed"],
)
def test_response_out_of_spec_is_refused_naming_the_field(body, named):
    with pytest.raises(ReplyError) as refused:
        read_response(body, ToolInvokedContext, request_id=1)
    assert refused.value.paths == (named,)


def test_parametrized_response_validates_the_result_type(tool_ctx):
    good = encode_result(1, tool_ctx)
    assert read_response(good, ToolInvokedContext, request_id=1).result == tool_ctx
    with pytest.raises(ReplyError, match=r"result\.call"):
        read_response(
            b'{"jsonrpc": "2.0", "id": 1, "result": {"call": {"id": "c"}}}',
            ToolInvokedContext,
            request_id=1,
        )


def test_abort_error_round_trips_and_ordinary_errors_are_not_aborts():
    body = encode_error(5, abort_error("no", refusal=True))
    reply = read_response(body, ToolInvokedContext, request_id=5)
    assert isinstance(reply, RpcFailure) and reply.id == 5 and reply.error.code == ABORT
    request = abort_of(reply.error)
    assert request is not None and (request.reason, request.refusal) == ("no", True)
    assert abort_of(RpcError(code=-32000, message="no")) is None
    assert abort_of(RpcError(code=ABORT, message="no", data={"other": 1})) is None


def test_an_abort_payload_that_does_not_conform_is_refused_naming_the_field():
    error = RpcError(code=ABORT, message="no", data={"abort": {"reason": "no", "refusal": "yes"}})
    with pytest.raises(ReplyError) as refused:
        abort_of(error)
    assert refused.value.paths == ("error.data.abort.refusal",)


def test_decode_request_answers_parse_and_invalid_request_errors():
    assert isinstance(decode_request(b'{"jsonrpc":"2.0","method":"m","id":1}'), RpcRequest)
    parse = decode_request(b"<html>")
    invalid = decode_request(b'[{"jsonrpc": "2.0", "method": "m", "id": 1}]')
    assert isinstance(parse, RpcError) and parse.code == PARSE_ERROR
    assert isinstance(invalid, RpcError) and invalid.code == INVALID_REQUEST


def test_decode_params_answers_invalid_params(tool_ctx):
    assert decode_params(ToolInvokedContext, tool_ctx.model_dump(mode="json")) == tool_ctx
    error = decode_params(ToolInvokedContext, {"call": {}})
    assert isinstance(error, RpcError) and error.code == INVALID_PARAMS
    assert "call.id: Field required" in error.message


def mapped(exc: BaseException, endpoint: str = "http://policy:8080/rpc") -> HookTransportError:
    with pytest.raises(HookTransportError) as info:
        with map_transport_errors("tool.invoked.pre", endpoint, Redactor()):
            raise exc
    assert info.value.point == "tool.invoked.pre"
    return info.value


@pytest.mark.parametrize(
    ("exc", "cause"),
    [
        (HttpClientError(kind="timeout", url="u", detail="no reply"), "timeout: no reply"),
        (WireError("reply id 2 does not match request id 1"), "reply id 2 does not match"),
        (json.JSONDecodeError("Expecting value", "<html>", 0), "reply is not JSON"),
        (ConnectionResetError(104, "Connection reset by peer"), "ConnectionResetError"),
        (TimeoutError(), "timeout"),
    ],
    ids=["http-client", "wire", "json", "os", "timeout"],
)
def test_foreign_failures_become_transport_errors_with_their_cause(exc, cause):
    error = mapped(exc)
    assert cause in error.cause
    # Issue 9: the chained cause is a redacted copy naming the original type, not exc itself.
    assert isinstance(error.__cause__, RedactedError) and error.__cause__.kind == type(exc).__name__
    assert error.__cause__.__traceback__ is exc.__traceback__


def test_validation_error_cause_names_the_fields_and_never_the_input():
    with pytest.raises(ValidationError) as info:
        ToolInvokedContext.model_validate({"call": {"id": "c", "name": 42}})
    error = mapped(info.value)
    assert "call.name" in error.cause and "42" not in error.cause


def test_cause_and_endpoint_are_redacted_and_capped():
    text = f"upstream said Authorization: Bearer abcdef1234567890 {SLACK_TOKEN} " + "x" * 900
    error = mapped(
        WireError(text),
        endpoint="http://policy/rpc?token=s3cr3t-value",
    )
    text = str(error)
    assert SLACK_TOKEN not in text and "abcdef1234567890" not in text and "s3cr3t" not in text
    assert "[REDACTED]" in error.cause and "[REDACTED]" in error.endpoint
    assert len(error.cause) <= wire.MAX_CAUSE_CHARS


def test_aborts_and_programming_errors_pass_through_untouched():
    for exc in (HookAbort("vetoed", refusal=True), TypeError("bug"), KeyError("bug")):
        with pytest.raises(type(exc)) as info:
            with map_transport_errors("tool.invoked.pre", "e", Redactor()):
                raise exc
        assert info.value is exc


def test_exception_group_of_transport_failures_is_mapped_after_its_first_leaf():
    group = ExceptionGroup("task group", [ConnectionResetError("reset"), EOFError()])
    error = mapped(group)
    assert "ConnectionResetError: reset" in error.cause
    assert isinstance(error.__cause__, RedactedError)  # issue 9: a copy, not the group
    assert str(error.__cause__).startswith("ExceptionGroup: task group")
    assert "ConnectionResetError; EOFError" in str(error.__cause__)
    mixed = ExceptionGroup("task group", [ConnectionResetError("reset"), TypeError("bug")])
    with pytest.raises(ExceptionGroup):
        with map_transport_errors("tool.invoked.pre", "e", Redactor()):
            raise mixed


CANARY = "xoxb-canary-0123456789"


def raised(exc: BaseException) -> HookTransportError:
    """A transport error as a real raise leaves it: tracebacks, cause and context set."""
    try:
        with map_transport_errors("tool.invoked.pre", "http://policy/rpc", Redactor()):
            raise exc
    except HookTransportError as error:
        return error
    raise AssertionError("not mapped")


@pytest.mark.parametrize(
    "exc",
    [
        aiohttp.ClientPayloadError(f"upstream said token {CANARY}"),
        ValueError(f"bad reply near {CANARY}"),
        ExceptionGroup("task group", [ConnectionResetError(f"reset by {CANARY}")]),
    ],
    ids=["aiohttp", "value-error", "group"],
)
def test_logged_traceback_of_a_transport_error_never_prints_the_raw_cause(exc):
    error = raised(exc)
    printed = "".join(traceback.format_exception(error))
    assert CANARY not in printed
    assert type(exc).__name__ in printed and "[REDACTED]" in printed
    assert "HookTransportError" in printed


def test_the_cause_chain_below_is_copied_redacted_too():
    def failing_call() -> None:
        try:
            raise OSError(f"connect to https://u:{CANARY}@h failed")
        except OSError as inner:
            raise aiohttp.ClientConnectionError(f"cannot connect ({CANARY})") from inner

    try:
        failing_call()
    except aiohttp.ClientConnectionError as exc:
        error = raised(exc)
    printed = "".join(traceback.format_exception(error))
    assert CANARY not in printed
    assert "ClientConnectionError: cannot connect ([REDACTED])" in printed
    assert "OSError: connect to https://u:[REDACTED]@h failed" in printed
    assert "failing_call" in printed  # the original's frames are kept, only its text goes


def test_redacted_error_is_a_harness_error_that_pickles():
    copy = RedactedError(kind="ValueError", text="[REDACTED] left")
    assert str(copy) == "ValueError: [REDACTED] left"
    assert str(pickle.loads(pickle.dumps(copy))) == str(copy)
    assert isinstance(copy, HarnessError)
