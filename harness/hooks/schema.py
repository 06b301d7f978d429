"""Published JSON Schemas of what a remote executor receives and answers, versioned.

A third party writing an executor in any language needs the contract without reading
our pydantic source: one schema per operation's context (``contexts/<operation>.json``,
what arrives in a JSON-RPC request's ``params.context`` and an MCP call's ``context``
argument, and what a replacement sends back), and the reply envelopes
(``replies/*.json``: the JSON-RPC request, result and error, the abort data, and the MCP
hook reply). :data:`SCHEMA_VERSION` names the set; every JSON-RPC request says it in the
:data:`SCHEMA_HEADER` header. The committed copy is ``schemas/<SCHEMA_VERSION>/`` (a test
checks it is what the code generates); a change that an executor built against it would
reject needs a new version (:mod:`harness.hooks.schema_diff` tells which), and the older
versions stay committed as they were published. ``python -m harness.hooks schema --out DIR``
writes them.
"""

from __future__ import annotations

import json
import warnings
from pathlib import Path
from typing import Annotated, Any, Final

from pydantic import Field, TypeAdapter
from pydantic.json_schema import PydanticJsonSchemaWarning
from typing_extensions import TypeAliasType

from harness.hooks.catalogue import OPERATIONS
from harness.hooks.contexts import context_type
from harness.hooks.remote.reply import hook_reply_type
from harness.hooks.remote.wire import (
    SCHEMA_HEADER,
    SCHEMA_VERSION,
    AbortRequest,
    RpcError,
    RpcRequest,
    response_type,
)

__all__ = ["SCHEMA_HEADER", "SCHEMA_VERSION", "render", "schemas", "write"]

BASE_URI: Final = f"https://tiny-harness.dev/schemas/{SCHEMA_VERSION}/"
"""The schemas' ``$id`` prefix (an identifier, not a place they are fetched from)."""

Context = TypeAliasType(
    "Context",
    Annotated[
        dict[str, Any],
        Field(description="The point's context, as contexts/<operation>.json describes it."),
    ],
)
"""A replacement as the envelopes publish it: any object there, the point's context
(``contexts/<operation>.json``) to the harness, which reads both in one strict pass."""

ENVELOPES: Final[dict[str, tuple[TypeAdapter[Any], str]]] = {
    "jsonrpc_request": (TypeAdapter(RpcRequest), "A JSON-RPC 2.0 hook request."),
    "jsonrpc_result": (
        response_type(Context),
        "A JSON-RPC 2.0 reply to a hook request: exactly one of result (the replacement "
        "context, or null to pass through) and error (an ABORT error vetoes).",
    ),
    "jsonrpc_error": (TypeAdapter(RpcError), "The error member of a JSON-RPC 2.0 reply."),
    "abort": (TypeAdapter(AbortRequest), "Why a remote vetoes, or asks a person."),
    "hook_reply": (
        hook_reply_type(Context),
        "An MCP hook reply: exactly one of context (the replacement, or null to pass "
        "through) and abort.",
    ),
}
"""The reply envelopes by file name (``replies/<name>.json``): the very types the
executors read replies with (:mod:`.remote.wire`, :mod:`.remote.reply`), so the schema
cannot say less than the harness checks."""


def _schema(shape: TypeAdapter[Any], path: str, title: str) -> dict[str, Any]:
    with warnings.catch_warnings():  # a frozen empty map's default is left out, rightly
        warnings.simplefilter("ignore", PydanticJsonSchemaWarning)
        schema = shape.json_schema(mode="serialization")
    schema["title"] = title
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": BASE_URI + path,
        **schema,
    }


def schemas() -> dict[str, dict[str, Any]]:
    """Every published schema by its path under the version's directory, and ``index.json``."""
    found: dict[str, dict[str, Any]] = {}
    for operation in OPERATIONS:
        path = f"contexts/{operation}.json"
        found[path] = _schema(TypeAdapter(context_type(operation)), path, f"{operation} context")
    for name, (shape, description) in ENVELOPES.items():
        path = f"replies/{name}.json"
        found[path] = {**_schema(shape, path, name.replace("_", " ")), "description": description}
    found["index.json"] = {
        "version": SCHEMA_VERSION,
        "header": SCHEMA_HEADER,
        "schemas": sorted(found),
    }
    return found


def render(schema: dict[str, Any]) -> str:
    """One schema as written: sorted keys, two-space indent, a final newline."""
    return json.dumps(schema, indent=2, sort_keys=True, ensure_ascii=False) + "\n"


def write(out: Path) -> list[Path]:
    """Write :func:`schemas` under ``out``; the paths written, in order."""
    written = []
    for path, schema in schemas().items():
        target = out / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(render(schema), encoding="utf-8")
        written.append(target)
    return written
