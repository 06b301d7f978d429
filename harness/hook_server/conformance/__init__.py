"""The conformance kit for remote hook executors (issue 15): fixtures, targets, a runner.

Language-neutral JSON fixtures (``fixtures/*.json``, shipped with the package) are sent
to a third party's executor over JSON-RPC or MCP and judged against the conformance
profile (:mod:`harness.hook_server.profile`); ``python -m harness.hooks
conformance`` prints a verdict per fixture and a compliance figure. The kit uses the
harness's own executors, reply readers and executor loop (identity rule included), so a
PASS means the harness would read that reply the same way.
"""

from __future__ import annotations

from harness.hook_server.conformance.fixture import Expect, Fixture, load_fixtures
from harness.hook_server.conformance.jsonrpc_target import JsonRpcTarget
from harness.hook_server.conformance.mcp_target import McpTarget
from harness.hook_server.conformance.runner import Verdict, judge, report, run_fixtures
from harness.hook_server.conformance.targets import Got, Target

__all__ = [
    "Expect",
    "Fixture",
    "Got",
    "JsonRpcTarget",
    "McpTarget",
    "Target",
    "Verdict",
    "judge",
    "load_fixtures",
    "report",
    "run_fixtures",
]
