"""The kit's runner: every fixture against one executor, a verdict per fixture, a compliance figure.

``python -m harness.hooks conformance --jsonrpc URL`` (or ``--mcp CMD``) ends here:
:func:`add_arguments` declares the options, :func:`run_command` runs them. One line per
fixture, ``PASS|FAIL id — description`` (a FAIL adds what was expected and what came
back), then ``compliance: N/M (P %)``; exit 0 only at 100 %, 2 on a usage error. Secrets
given on the command line or through the environment are never printed.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import os
import re
import shlex
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Final, Literal, TextIO

from harness.hook_server.conformance.fixture import Expect, Fixture, load_fixtures
from harness.hook_server.conformance.jsonrpc_target import JsonRpcTarget
from harness.hook_server.conformance.mcp_target import McpTarget
from harness.hook_server.conformance.targets import Got, Target
from harness.hooks.config.loader import resolve_program
from harness.hooks.contexts import ToolInvokedContext
from harness.hooks.remote.signing import SignatureError, decode_secret
from harness.redaction import Redactor

USAGE_ERROR: Final = 2
_ENV_VALUE: Final = re.compile(r"^(.*?)env:([A-Za-z_][A-Za-z0-9_]*)$")
SIGNED_REFUSED: Final = (
    "either the --secret-env variable holds a secret it does not accept, or it verifies "
    "signatures wrongly (the key is the base64-decoded text after whsec_; the signed content "
    "is id.timestamp.raw body bytes: docs/hooks/signing.md)"
)
"""Why an executor refuses what the harness signs; the ``signature.valid`` fixture's meaning
is made from it (``tests/support/conformance_fixtures.py``)."""
_GRACE: Final = 15.0
"""Seconds past a fixture's own deadline before the runner gives up on it (a hung peer)."""


def _command(text: str) -> list[str]:
    """``--mcp CMD`` as the worker would start it: ``python`` is this interpreter."""
    words = shlex.split(text)
    if words and (program := resolve_program(words[0])) is not None:
        words[0] = program
    return words


class KitUsageError(ValueError):
    """A command line the runner cannot act on; its message is the one line printed."""


@dataclass(frozen=True)
class Verdict:
    """One fixture's result: ``problem`` is ``None`` when it passed."""

    fixture: Fixture
    got: Got
    problem: str | None


def contains(whole: object, part: object) -> bool:
    """Whether ``whole`` holds ``part``: objects key by key (recursively), the rest by equality."""
    if isinstance(part, dict):
        return isinstance(whole, dict) and all(
            key in whole and contains(whole[key], value) for key, value in part.items()
        )
    return whole == part


def judge(expect: Expect, got: Got) -> str | None:
    """Why ``got`` does not meet ``expect``, or ``None`` when it does."""
    wanted = _describe(expect)
    if expect.outcome == "batch" and got.kind == "error" and got.code == -32600:
        return None  # JSON-RPC 2.0 batches are optional for hook executors: -32600 is fine
    ok = got.kind == expect.outcome
    if ok and expect.outcome == "rewrite" and expect.context is not None:
        ok = contains(got.context, expect.context)
    if ok and expect.outcome == "abort" and expect.refusal is not None:
        ok = got.refusal == expect.refusal
    if ok and expect.outcome == "error" and expect.code is not None:
        ok = got.code in (expect.code if isinstance(expect.code, list) else [expect.code])
    if ok and expect.outcome == "ask" and expect.timeout_seconds is not None:
        ok = got.timeout_seconds == expect.timeout_seconds
    if ok:
        return None
    detail = got.detail
    if got.kind == "rewrite" and expect.context is not None:
        detail = f"{detail}: {_compact(_project(got.context, expect.context))}"
    problem = f"expected {wanted}, got {got.kind}: {detail}"
    return problem if expect.meaning is None else f"{problem}\n{expect.meaning}"


def _project(whole: object, part: object) -> object:
    """The parts of ``whole`` that ``part`` names (what a failed subset check shows)."""
    if isinstance(part, dict) and isinstance(whole, dict):
        return {key: _project(whole[key], value) for key, value in part.items() if key in whole}
    return whole


def _describe(expect: Expect) -> str:
    if expect.outcome == "abort" and expect.refusal is not None:
        return f"abort (refusal={str(expect.refusal).lower()})"
    if expect.outcome == "error" and isinstance(expect.code, list):
        return "error " + " or ".join(str(code) for code in expect.code)
    if expect.outcome == "error" and expect.code is not None:
        return f"error {expect.code}"
    if expect.outcome == "rewrite" and expect.context is not None:
        return f"rewrite containing {_compact(expect.context)}"
    if expect.outcome == "batch":
        return "a batch of replies, or error -32600"
    if expect.outcome == "ask" and expect.timeout_seconds is not None:
        return f"ask (timeout_seconds={expect.timeout_seconds:g})"
    if expect.outcome == "unauthorized":
        return "unauthorized (HTTP 401)"
    return expect.outcome


def _compact(value: Any) -> str:  # noqa: ANN401  # any JSON value
    text = json.dumps(value, separators=(",", ":"))
    return text if len(text) <= 120 else text[:117] + "..."


async def run_fixtures(target: Target, fixtures: Sequence[Fixture]) -> list[Verdict]:
    """Send each fixture to ``target`` in order and judge what came back."""
    verdicts = []
    for fixture in fixtures:
        deadline = getattr(fixture.send, "timeout", 5.0) + _GRACE
        try:
            async with asyncio.timeout(deadline):
                got = await target.send(fixture)
        except TimeoutError:
            got = Got("transport_error", f"no answer within {deadline:g} s")
        verdicts.append(Verdict(fixture, got, judge(fixture.expect, got)))
    return verdicts


def report(verdicts: Sequence[Verdict], out: TextIO, scrub: Redactor | None = None) -> bool:
    """Print one line per verdict and the compliance line; whether all passed."""
    clean = scrub.redact_text if scrub is not None else str
    for verdict in verdicts:
        mark = "PASS" if verdict.problem is None else "FAIL"
        print(f"{mark} {verdict.fixture.id} — {verdict.fixture.description}", file=out)
        for line in (verdict.problem or "").splitlines():
            print(f"    {clean(line)}", file=out)
    passed = sum(verdict.problem is None for verdict in verdicts)
    total = len(verdicts)
    percent = 100.0 * passed / total if total else 0.0
    print(f"compliance: {passed}/{total} ({percent:.1f} %)", file=out)
    return passed == total and total > 0


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The ``conformance`` subcommand's options."""
    parser.add_argument("--jsonrpc", metavar="URL", help="the JSON-RPC executor's endpoint")
    parser.add_argument(
        "--mcp", metavar="CMD", help="the MCP executor: a stdio command, or an http(s) URL"
    )
    parser.add_argument(
        "--header",
        action="append",
        default=[],
        metavar="'NAME: VALUE'",
        help="extra JSON-RPC header; VALUE may end in env:VAR "
        "('Authorization: Bearer env:POLICY_TOKEN')",
    )
    parser.add_argument(
        "--secret-env",
        action="append",
        default=[],
        metavar="VAR",
        help="sign JSON-RPC requests (Standard Webhooks) with the whsec_ secret in VAR",
    )
    parser.add_argument(
        "--only",
        action="append",
        default=[],
        metavar="ID",
        help="run only this fixture (repeatable)",
    )
    parser.add_argument("--list", action="store_true", help="list the fixtures and exit")


def _unlisted(record: logging.LogRecord) -> bool:
    return "not listed by server" not in record.getMessage()


def run_command(args: argparse.Namespace, out: TextIO | None = None) -> int:
    """Run the parsed ``conformance`` command; the exit status (usage errors print one line).

    ``out``: where the report goes; ``sys.stdout`` as it is at the call (not at import).
    """
    out = out or sys.stdout
    # The MCP SDK's client (logger "client") warns of every probe at a point the server does
    # not list; probing those is the kit's purpose, so the warning is noise here.
    logging.getLogger("client").addFilter(_unlisted)
    try:
        return asyncio.run(_run(args, out))
    except KitUsageError as error:
        print(f"conformance: {error}", file=sys.stderr)
        return USAGE_ERROR


async def _run(args: argparse.Namespace, out: TextIO) -> int:
    if args.list:
        for fixture in _selected(args, load_fixtures()):
            print(f"{fixture.id:<34} {fixture.transport:<8} {fixture.description}", file=out)
        return 0
    if (args.jsonrpc is None) == (args.mcp is None):
        raise KitUsageError("give exactly one of --jsonrpc URL and --mcp CMD")
    headers = dict(_header(text) for text in args.header)
    secrets = [_secret(name) for name in args.secret_env]
    scrub = Redactor(secrets=[*headers.values(), *secrets])
    target: JsonRpcTarget | McpTarget
    transport: Literal["jsonrpc", "mcp"]
    if args.jsonrpc is not None:
        target = JsonRpcTarget(args.jsonrpc, headers=headers, signing_secrets=secrets)
        transport = "jsonrpc"
    else:
        if args.header or args.secret_env:
            raise KitUsageError("--header and --secret-env are for --jsonrpc")
        server = args.mcp if re.match(r"https?://", args.mcp) else _command(args.mcp)
        target = McpTarget(server)
        transport = "mcp"
    fixtures = _selected(args, load_fixtures(transport, signed=bool(secrets)))
    try:
        refused = await _reachable(target, scrub)
        print(
            f"# conformance kit against {scrub.redact_text(target.endpoint)} ({transport}), "
            f"{len(fixtures)} fixtures",
            file=out,
        )
        if refused is not None:
            print(f"# {refused}", file=out)
        verdicts = await run_fixtures(target, fixtures)
    finally:
        await target.aclose()
    return 0 if report(verdicts, out, scrub) else 1


def _selected(args: argparse.Namespace, fixtures: list[Fixture]) -> list[Fixture]:
    if not args.only:
        return fixtures
    unknown = sorted(set(args.only) - {fixture.id for fixture in fixtures})
    if unknown:
        raise KitUsageError(f"no fixture {', '.join(unknown)} for this transport (see --list)")
    return [fixture for fixture in fixtures if fixture.id in args.only]


def _header(text: str) -> tuple[str, str]:
    name, colon, value = text.partition(":")
    if not colon or not name.strip():
        raise KitUsageError(f"--header takes 'NAME: VALUE', got {name.strip()!r} with no value")
    value = value.strip()
    found = _ENV_VALUE.match(value)
    if found is not None:
        var = found.group(2)
        if var not in os.environ:
            raise KitUsageError(f"--header {name.strip()}: environment variable {var} is not set")
        value = found.group(1) + os.environ[var]
    return name.strip(), value


def _secret(name: str) -> str:
    value = os.environ.get(name, "")
    if not value:
        raise KitUsageError(f"--secret-env {name}: the environment variable is not set")
    try:
        decode_secret(value)
    except SignatureError as error:
        raise KitUsageError(f"--secret-env {name}: {error.detail}") from None
    return value


async def _reachable(target: JsonRpcTarget | McpTarget, scrub: Redactor) -> str | None:
    """Raise a :class:`KitUsageError` naming the fix when the executor cannot be used at all
    (the caller closes ``target`` either way).

    Returns:
        A line to print first when the executor refused a request signed as the harness
        signs it: the kit was given the secret, so that is a verdict (the fixtures run and
        fail), not a usage error.
    """
    where = scrub.redact_text(target.endpoint)
    if isinstance(target, McpTarget):
        try:
            await target.connect()
        except Exception as error:  # any spawn or handshake failure is the user's to fix
            raise KitUsageError(
                f"cannot start or reach the MCP server {where}: "
                f"{scrub.redact_text(str(error) or type(error).__name__)}; check "
                "the command (or URL) and that it serves MCP"
            ) from None
        return None
    got = await target.send(_PROBE)
    refused = got.kind == "unauthorized" or got.detail.startswith("HTTP 403")
    if refused and target.signs:
        return (
            f"the executor refused a request signed as the harness signs it "
            f"({scrub.redact_text(got.detail)}): {SIGNED_REFUSED}"
        )
    if refused:
        raise KitUsageError(
            f"{where} refused the kit: {scrub.redact_text(got.detail)}; give its "
            "credentials with --header 'Authorization: Bearer env:VAR' or "
            "--secret-env VAR"
        )
    if got.kind == "transport_error" and ("connect" in got.detail or "closed" in got.detail):
        raise KitUsageError(
            f"cannot reach {where}: {scrub.redact_text(got.detail)}; is the "
            "executor running there? check the URL given to --jsonrpc"
        )
    return None


_PROBE: Final = Fixture.model_validate(
    {
        "id": "reachable",
        "description": "the executor answers",
        "transport": "any",
        "send": {
            "point": f"{ToolInvokedContext.operation}.pre",
            "context": {
                "correlation_id": "conformance-reachable",
                "call": {"id": "c1", "name": "conformance.pass", "arguments": {}},
            },
        },
        "expect": {"outcome": "pass"},
    }
)
