"""A conformance fixture: one request sent to an executor and the behaviour expected back.

Fixtures are language-neutral JSON files shipped in ``fixtures/`` (one fixture object, or
a list of them, per file); this module is their pydantic model and loader. What a fixture
sends is one of three shapes: a hook ``point`` and ``context`` sent through the harness's
own executor (what the harness would see), a raw JSON-RPC ``body``, or a raw MCP ``tool``
call; or a probe signed (or not) as a ``signature`` fixture says, sent only when the kit
was given the executor's secret. Sending is the targets' job, judging :mod:`.runner`'s.
"""

from __future__ import annotations

import json
from importlib import resources
from typing import Any, Final, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, model_validator

from harness.hooks.contexts import context_type

Transport = Literal["any", "jsonrpc", "mcp"]
Outcome = Literal[
    "pass",
    "rewrite",
    "abort",
    "ask",
    "error",
    "no_reply",
    "timeout",
    "too_large",
    "batch",
    "unauthorized",
]
"""What came back, as the kit names it: a pass-through, a replacement, an abort (refusal or
not), an ask (the call held for a person's approval), a protocol error (JSON-RPC code, or
an MCP protocol error or ``isError`` result), no reply (a notification), the call
outlasting its deadline, a reply over the size cap refused by the harness, a batch
answered as JSON-RPC 2.0 allows, and HTTP 401 (a request whose signature does not verify
refused before anything ran)."""

Signature = Literal["valid", "unsigned", "tampered", "stale"]
"""How a ``signature`` fixture's request is signed: as the harness signs it, not at all,
signed and then changed (the body no longer matches), or with a timestamp an hour old."""


class _Strict(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class Call(_Strict):
    """Send ``context`` at ``point`` through the harness's own executor for the transport."""

    point: str
    context: dict[str, Any]
    timeout: float = Field(default=5.0, gt=0)
    max_reply_bytes: int | None = Field(default=None, gt=0)

    @model_validator(mode="after")
    def _context_is_valid(self) -> Call:
        # Our own JSON, not a peer's reply: read leniently however strict the wire is.
        context_type(self.point).model_validate(self.context, strict=False)  # must not rot
        return self


class RawJsonRpc(_Strict):
    """POST ``body`` as it is (it may be broken on purpose) with extra ``headers``."""

    body: str
    headers: dict[str, str] = {}


class Signed(_Strict):
    """Send ``context`` at ``point`` over JSON-RPC signed as ``signature`` says.

    Run only when the kit has the executor's secret (``--secret-env``): without it the
    kit cannot sign, and the executor is not expected to verify anything.
    """

    signature: Signature
    point: str
    context: dict[str, Any]

    @model_validator(mode="after")
    def _context_is_valid(self) -> Signed:
        context_type(self.point).model_validate(self.context, strict=False)
        return self


class RawMcp(_Strict):
    """Call MCP tool ``tool`` with ``arguments`` and ``meta`` as they are."""

    tool: str
    arguments: dict[str, Any] = {}
    meta: dict[str, Any] | None = None


class Expect(_Strict):
    """The behaviour expected: an :data:`Outcome`, and for some what it must carry."""

    outcome: Outcome
    context: dict[str, Any] | None = None
    """For ``rewrite``: a subset the replacement must contain (nested objects compared
    key by key, anything else by equality)."""
    refusal: bool | None = None
    """For ``abort``: whether it must be a refusal."""
    code: int | list[int] | None = None
    """For ``error``: the JSON-RPC (or MCP protocol) error code, or the codes any of which
    will do; ``None`` accepts any error."""
    timeout_seconds: float | None = Field(default=None, ge=0)
    """For ``ask``: how long the harness must read that the ask waits."""
    meaning: str | None = None
    """What a FAIL of this fixture says about the executor, printed under the verdict."""


class Fixture(_Strict):
    """One fixture; ``id`` is unique and stable (``--only`` takes it)."""

    id: str = Field(pattern=r"^[a-z0-9][a-z0-9._-]*$")
    description: str
    transport: Transport = "any"
    send: Call | Signed | RawJsonRpc | RawMcp
    expect: Expect

    @property
    def signed(self) -> bool:
        """Whether this fixture probes signature verification (it needs the secret)."""
        return isinstance(self.send, Signed)

    @model_validator(mode="after")
    def _send_fits_transport(self) -> Fixture:
        if isinstance(self.send, RawJsonRpc) and self.transport != "jsonrpc":
            raise ValueError(f"{self.id}: a raw body is JSON-RPC only")
        if isinstance(self.send, Signed) and self.transport != "jsonrpc":
            raise ValueError(f"{self.id}: signatures are JSON-RPC only (MCP calls are not signed)")
        if isinstance(self.send, RawMcp) and self.transport != "mcp":
            raise ValueError(f"{self.id}: a raw tool call is MCP only")
        return self


_FILE: Final = TypeAdapter(Fixture | list[Fixture])


def load_fixtures(
    transport: Literal["jsonrpc", "mcp"] | None = None, *, signed: bool | None = None
) -> list[Fixture]:
    """Every shipped fixture, in file then list order; those of ``transport`` when given.

    Args:
        transport: keep the fixtures this transport runs.
        signed: whether the kit signs its requests: the ``signature`` fixtures run only
            then (``True``) and never without (``False``); ``None`` keeps them all.

    Raises:
        ValueError: a fixture file does not parse or two fixtures share an id.
    """
    found: list[Fixture] = []
    folder = resources.files(__package__) / "fixtures"
    for entry in sorted(folder.iterdir(), key=lambda item: item.name):
        if not entry.name.endswith(".json"):
            continue
        try:
            parsed = _FILE.validate_python(json.loads(entry.read_text(encoding="utf-8")))
        except ValueError as error:
            raise ValueError(f"fixture file {entry.name}: {error}") from error
        found.extend(parsed if isinstance(parsed, list) else [parsed])
    ids = [fixture.id for fixture in found]
    if len(set(ids)) != len(ids):
        raise ValueError(f"duplicate fixture ids: {sorted({i for i in ids if ids.count(i) > 1})}")
    return [
        f
        for f in found
        if (transport is None or f.transport in ("any", transport))
        and (signed is None or signed or not f.signed)
    ]
