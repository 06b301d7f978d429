"""The wire under the remote executors: JSON-RPC 2.0 envelopes, error codes, and error mapping.

It knows envelopes and transports, not hooks: the payload is opaque (``Any`` or a
type the caller picks). A response is read strictly (:func:`read_response`, by way of
:mod:`.strict`) as the very types ``replies/jsonrpc_result.json`` is generated from, so
the two cannot drift apart. :func:`map_transport_errors` is the one boundary where
foreign exceptions (HTTP clients, JSON, pydantic, MCP, anyio) become a
:class:`~harness.hooks.errors.HookTransportError`. What a payload means is decided
by the executors in :mod:`harness.hooks.remote.jsonrpc` and :mod:`harness.hooks.remote.mcp`.
"""

from __future__ import annotations

import functools
import json
import sys
from types import TracebackType
from typing import Any, Final, Generic, Literal, TypeVar, final

import pydantic_core
from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError

from harness.errors import ServiceError
from harness.hooks.errors import HookTransportError
from harness.hooks.remote.canonical import canonical
from harness.hooks.remote.redacted import MAX_CAUSE_CHARS, redacted_copy
from harness.hooks.remote.strict import ReplyError, one_of, read_strict
from harness.http.errors import HttpClientError
from harness.redaction import Redactor

JSONRPC_VERSION: Final = "2.0"

# The codes JSON-RPC 2.0 reserves (section 5.1) ...
PARSE_ERROR: Final = -32700
INVALID_REQUEST: Final = -32600
METHOD_NOT_FOUND: Final = -32601
INVALID_PARAMS: Final = -32602
INTERNAL_ERROR: Final = -32603
# ... and ours, from the "server error" range -32000..-32099 the spec leaves to implementations.
ABORT: Final = -32001
"""The remote asks to cancel the operation: ``error.data = {"abort": {"reason", "refusal"}}``
(and ``ask``, ``timeout_seconds`` to hold a tool call for a person's approval).

This is how a remote policy vetoes: an executor turns it into a ``HookAbort``, not a
transport failure, because the remote answered in contract and meant it.
"""

SCHEMA_VERSION: Final = "v2"
"""The version of the published contexts and envelopes (``schemas/v2/``; see
:mod:`harness.hooks.schema`). v2: a command's effects are typed, one shape per kind
(issue 25); ``schemas/v1/`` stays as it was published."""

SCHEMA_HEADER: Final = "x-tiny-harness-schema"
"""HTTP header of every JSON-RPC hook request: the :data:`SCHEMA_VERSION` it follows."""

RequestId = int | str
ResultT = TypeVar("ResultT")
ModelT = TypeVar("ModelT", bound=BaseModel)


class _Envelope(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class RpcRequest(_Envelope):
    """A JSON-RPC 2.0 request; a missing ``id`` makes it a notification."""

    jsonrpc: Literal["2.0"]
    method: str
    params: dict[str, Any] = {}
    id: RequestId | None = None


class RpcError(_Envelope):
    """The ``error`` member of a response.

    An :data:`ABORT` error (-32001) whose ``data`` has an ``abort`` member is an abort, and
    that member must be an abort object (``replies/abort.json``); any other error is the
    remote's own failure.
    """

    # JSON Schema cannot derive that rule from the types, so the model states it for its
    # published schema beside abort_of, which enforces it; the reply corpus checks they agree.
    model_config = ConfigDict(json_schema_extra=lambda schema, _: _abort_rule(schema))

    code: int
    message: str
    data: Any = None


class RpcSuccess(_Envelope, Generic[ResultT]):
    """A success response: its ``result`` (null included) and no error (a null one is tolerated)."""

    jsonrpc: Literal["2.0"]
    id: RequestId | None
    result: ResultT | None
    error: None = None


class RpcFailure(_Envelope):
    """An error response; its ``id`` is null when the server could not read the request's."""

    jsonrpc: Literal["2.0"]
    id: RequestId | None
    error: RpcError


@functools.cache
def response_type(result: type[ResultT]) -> TypeAdapter[RpcSuccess[ResultT] | RpcFailure]:
    """A JSON-RPC 2.0 response whose result is a ``result`` (or null): exactly one of
    ``result`` and ``error``, as the spec says, in the types (and so in the schema)."""
    success = RpcSuccess[result]  # type: ignore[valid-type]  # a runtime-chosen parameter
    return TypeAdapter(one_of("result", success, "error", RpcFailure))


def read_response(
    body: bytes | str, result: type[ResultT], *, request_id: RequestId | None
) -> RpcSuccess[ResultT] | RpcFailure:
    """Read the response to request ``request_id`` strictly (:mod:`.strict`).

    Raises:
        ValidationError: ``body`` is not JSON.
        ReplyError: it breaks the envelope or ``result``'s type, a result does not echo
            ``request_id`` (an error may carry null: the server could not read it), or an
            abort's payload does not conform; the fields are named.
    """
    title = f"RpcResponse[{getattr(result, '__name__', result)}]"
    shape = response_type(result)  # type: ignore[arg-type]  # a class is hashable; mypy cannot see it
    reply = read_strict(shape, body, title=title, tagged=True)
    if reply.id != request_id and (isinstance(reply, RpcSuccess) or reply.id is not None):
        problem = f"{reply.id!r} does not match request id {request_id!r}"
        raise ReplyError(title=title, problems=[("id", problem)])
    if isinstance(reply, RpcFailure):
        abort_of(reply.error)  # an abort's payload is part of the reply's contract
    return reply


class AbortRequest(BaseModel):
    """The payload of an :data:`ABORT` error: why, and whether it is a deliberate refusal.

    ``ask`` holds a ``tool.invoked`` call for a person's approval (``timeout_seconds``: how
    long to wait, 0 until answered), as ``HookAbort(ask=True)`` does in-process.
    """

    model_config = ConfigDict(frozen=True)

    reason: str
    refusal: bool = False
    ask: bool = False
    timeout_seconds: float = Field(default=0.0, ge=0, le=7 * 24 * 3600)

    def as_data(self) -> dict[str, object]:
        """The JSON object sent; ``ask`` and its timeout only for an ask (as before ask existed)."""
        return self.model_dump(exclude=None if self.ask else {"ask", "timeout_seconds"})


class _AbortData(BaseModel):
    abort: AbortRequest


_ABORT_DATA: Final = TypeAdapter(_AbortData)


def _abort_rule(schema: dict[str, Any]) -> None:
    """``if`` an error is an :data:`ABORT` whose data has an ``abort``, ``then`` that conforms."""
    carries = {"type": "object", "required": ["abort"]}
    schema["if"] = {"properties": {"code": {"const": ABORT}, "data": carries}, "required": ["data"]}
    abort = AbortRequest.model_json_schema()
    schema["then"] = {"properties": {"data": {"properties": {"abort": abort}}}}


class WireError(ServiceError):
    """A reply that parsed but breaks the contract (wrong id, an error object, ...).

    Raised inside :func:`map_transport_errors`, which turns it into a transport error
    like every other failure, so all of them are worded and redacted in one place.
    """


def encode_request(request_id: RequestId, method: str, params: dict[str, Any]) -> bytes:
    """The JSON of an :class:`RpcRequest`; models inside ``params`` serialised, sets sorted.

    Built from a plain dict rather than through the model: this is the hot path, and
    a test checks the bytes validate as :class:`RpcRequest`.
    """
    envelope = {"jsonrpc": JSONRPC_VERSION, "id": request_id, "method": method}
    return pydantic_core.to_json({**envelope, "params": canonical(params)})


def encode_result(request_id: RequestId | None, result: object) -> bytes:
    """The JSON of a success response carrying ``result`` (``None`` is sent as null)."""
    return pydantic_core.to_json({"jsonrpc": JSONRPC_VERSION, "id": request_id, "result": result})


def encode_error(request_id: RequestId | None, error: RpcError) -> bytes:
    """The JSON of an error response."""
    return pydantic_core.to_json(
        {"jsonrpc": JSONRPC_VERSION, "id": request_id, "error": error.model_dump()}
    )


def decode_request(body: bytes) -> RpcRequest | RpcError:
    """Parse a request body, or say why not as the error object to send back.

    Batches (JSON arrays) are not supported and come back as ``INVALID_REQUEST``.
    """
    try:
        return RpcRequest.model_validate_json(body)
    except ValidationError as exc:
        if any(item["type"] == "json_invalid" for item in exc.errors(include_url=False)):
            return RpcError(code=PARSE_ERROR, message="Parse error: body is not JSON")
        detail = summarise_validation(exc)
        return RpcError(code=INVALID_REQUEST, message=f"Invalid Request: {detail}")


def decode_params(model: type[ModelT], data: object) -> ModelT | RpcError:
    """Validate ``data`` as ``model``, or return the ``INVALID_PARAMS`` error to send back."""
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        return RpcError(code=INVALID_PARAMS, message=f"Invalid params: {summarise_validation(exc)}")


def abort_error(
    reason: str, *, refusal: bool = False, ask: bool = False, timeout_seconds: float = 0.0
) -> RpcError:
    """The error object by which a remote asks to cancel the operation (see :data:`ABORT`)."""
    request = AbortRequest(reason=reason, refusal=refusal, ask=ask, timeout_seconds=timeout_seconds)
    data = {"abort": request.as_data()}
    return RpcError(code=ABORT, message=reason, data=data)


def abort_of(error: RpcError) -> AbortRequest | None:
    """The abort an error object asks for, or ``None`` if it is an ordinary error.

    An ``ABORT`` without an ``abort`` member in its data is an error from someone else.

    Raises:
        ReplyError: the ``abort`` member does not conform (read strictly, as the reply was).
    """
    if error.code != ABORT or not isinstance(error.data, dict) or "abort" not in error.data:
        return None
    data = pydantic_core.to_json(error.data)
    try:
        return read_strict(_ABORT_DATA, data, title="abort", tagged=False).abort
    except ReplyError as refused:
        raise refused.within("error", "data") from None


def describe_error(error: RpcError) -> str:
    """One line for an error object: code, message, and data when there is any."""
    text = f"JSON-RPC error {error.code}: {error.message}"
    if error.data is not None:
        text += f" (data: {pydantic_core.to_json(error.data).decode()})"
    return text


# Everything a transport, a decoder or a validator may raise about a peer's behaviour.
# ValueError covers json.JSONDecodeError, UnicodeDecodeError and pydantic's ValidationError;
# OSError covers TimeoutError and socket errors.
_ALWAYS_FOREIGN: Final[tuple[type[Exception], ...]] = (
    HttpClientError,
    WireError,
    ReplyError,
    ValueError,
    OSError,
    EOFError,
)
# ... and the error types of each transport's library, by the module that defines them.
# They are matched once that library is loaded (nothing raises an error of a library no
# one imported), so the wire loads none of them: a JSON-RPC executor never pulls in the
# MCP SDK, and importing an executor costs no transport at all.
_LIBRARY_FOREIGN: Final[tuple[tuple[str, tuple[str, ...]], ...]] = (
    ("mcp.shared.exceptions", ("MCPError",)),
    ("anyio", ("ClosedResourceError", "BrokenResourceError", "EndOfStream")),
    ("aiohttp", ("ClientError",)),
    ("httpx", ("HTTPError",)),
    ("httpx2", ("HTTPError",)),  # the MCP SDK's streamable HTTP client (connect refused, reset)
)


def _foreign() -> tuple[type[Exception], ...]:
    """The foreign error types of :data:`_ALWAYS_FOREIGN` and of every loaded transport."""
    found = list(_ALWAYS_FOREIGN)
    for module_name, names in _LIBRARY_FOREIGN:
        module = sys.modules.get(module_name)
        if module is not None:
            found.extend(getattr(module, name) for name in names)
    return tuple(found)


def map_transport_errors(point: str, endpoint: str, redactor: Redactor) -> _TransportErrorMap:
    """Turn any transport or protocol failure inside the block into a ``HookTransportError``.

    Use as ``with map_transport_errors(point, endpoint, redactor): ...``.
    ``HookAbort``, ``HookTransportError``, cancellation and programming errors
    (``TypeError``, ``AttributeError``) pass through untouched. An ``ExceptionGroup``
    (anyio task groups, as in the MCP client) is mapped when every leaf is a transport
    failure, after its first leaf.

    Args:
        point: the hook point being served, for the error.
        endpoint: where the remote is (URL, command line); redacted before use.
        redactor: scrubs endpoint and cause, since both end up in Temporal's history.

    Returns:
        The context manager; it raises ``HookTransportError`` ``from`` a
        :class:`~harness.hooks.remote.redacted.RedactedError` copy of the original
        exception (never the original).
    """
    return _TransportErrorMap(point, endpoint, redactor)


@final
class _TransportErrorMap:
    # A class rather than @contextmanager: it is on every remote call's hot path, and a
    # generator-based manager costs a generator frame and two resumptions per call.
    __slots__ = ("endpoint", "point", "redactor")

    def __init__(self, point: str, endpoint: str, redactor: Redactor) -> None:
        self.point = point
        self.endpoint = endpoint
        self.redactor = redactor

    def __enter__(self) -> None:
        return None

    def __exit__(
        self,
        kind: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        # Returning None (never True) tells callers and mypy that nothing is swallowed.
        if exc is None:
            return
        foreign = _foreign()  # only on the way out with an error: no cost on success
        leaf: BaseException = exc
        if not isinstance(exc, foreign):
            if not isinstance(exc, ExceptionGroup):
                return
            matched, rest = exc.split(foreign)
            if matched is None or rest is not None:
                return
            leaf = matched
            while isinstance(leaf, BaseExceptionGroup):
                leaf = leaf.exceptions[0]
        error = _transport_error(self.point, self.endpoint, self.redactor, leaf)
        try:
            raise error from redacted_copy(exc, self.redactor)
        finally:
            # A raise in __exit__ makes exc (unredacted) the error's __context__, which
            # `from` only hides from printing; a debugger still walks it (issue 26).
            error.__context__ = None


def _transport_error(
    point: str, endpoint: str, redactor: Redactor, exc: BaseException
) -> HookTransportError:
    cause = _describe(exc)
    if len(cause) > MAX_CAUSE_CHARS:
        cause = cause[: MAX_CAUSE_CHARS - 3] + "..."
    return HookTransportError(
        point=point, endpoint=redactor.redact_text(endpoint), cause=redactor.redact_text(cause)
    )


def _describe(exc: BaseException) -> str:
    if isinstance(exc, HttpClientError | WireError | ReplyError):
        return str(exc)
    if isinstance(exc, ValidationError):
        return _describe_validation(exc)
    if isinstance(exc, json.JSONDecodeError | UnicodeDecodeError):
        return f"reply is not JSON: {exc}"
    if isinstance(exc, TimeoutError):
        return f"timeout: {exc}" if str(exc) else "timeout"
    return f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__


def _describe_validation(error: ValidationError) -> str:
    items = error.errors(include_url=False, include_input=False)
    if any(item["type"] == "json_invalid" for item in items):
        return f"reply is not JSON: {items[0]['msg']}"
    return f"reply does not conform ({error.title}): {summarise_validation(error)}"


def summarise_validation(error: ValidationError) -> str:
    """``loc: msg`` for each problem, joined; inputs are left out, being the peer's data."""
    parts = []
    for item in error.errors(include_url=False, include_input=False):
        where = ".".join(str(loc) for loc in item["loc"]) or "<root>"
        parts.append(f"{where}: {item['msg']}")
    return "; ".join(parts)
