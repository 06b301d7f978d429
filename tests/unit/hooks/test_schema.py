"""The published schemas (issue 15, point 1): committed as the code makes them, and true of
what a remote executor really receives and answers."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest

from harness.domain import EFFECTS, CommandResult, SetEffort
from harness.hooks import OPERATIONS, HookAbort
from harness.hooks.contexts import HookContext, context_type
from harness.hooks.remote.reply import abort_reply, reply_of
from harness.hooks.remote.wire import SCHEMA_VERSION, RpcRequest, encode_request
from harness.hooks.schema import render, schemas
from harness.hooks.schema_diff import BREAKING, REGENERATE, classify
from tests.integration.temporal.activity.test_hooked_activity import sample as activity_sample

ROOT = Path(__file__).resolve().parents[3]
COMMITTED = ROOT / "schemas" / SCHEMA_VERSION


def sample(operation: str) -> HookContext:
    """A filled-in context of ``operation`` (the worker-side two take only defaults)."""
    if operation == "heartbeat.tick":
        return context_type(operation)(activity="a", elapsed_seconds=1.5, detail="d")
    if operation == "shutdown":
        return context_type(operation)(reason="SIGTERM", in_flight=2)
    return activity_sample(operation)


def validator(path: str) -> jsonschema.Draft202012Validator:
    schema = schemas()[path]
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)


CORPUS = ROOT / "tests" / "fixtures" / "replies"
ENVELOPE_CORPUS = {"replies/jsonrpc_result.json": "jsonrpc", "replies/hook_reply.json": "mcp"}
"""The envelopes a corpus of replies (tests/unit/hooks/remote/test_reply_corpus.py) is for."""


def refused_now(committed: dict[str, str], generated: dict[str, dict]) -> list[str]:
    """The corpus replies a committed envelope accepts and its generated successor refuses:
    each one an executor that worked and would not (issue 28), whatever the classifier says."""
    found = []
    for path, transport in ENVELOPE_CORPUS.items():
        if path not in committed or path not in generated:
            continue
        before = jsonschema.Draft202012Validator(json.loads(committed[path]))
        now = jsonschema.Draft202012Validator(generated[path])
        replies = json.loads((CORPUS / f"{transport}.json").read_text())["replies"]
        for entry in replies:
            if before.is_valid(entry["reply"]) and not now.is_valid(entry["reply"]):
                found.append(f"{path}: corpus reply {entry['id']} accepted before, refused now")
    return found


def compatibility(committed: dict[str, str], generated: dict[str, dict]) -> str:
    """What differs between the committed and the generated schemas, classified, and the fix."""
    report = [f"{line}\n{BREAKING}" for line in refused_now(committed, generated)]
    for path in sorted(set(committed) - set(generated)):
        report.append(f"{path}: removed\n{BREAKING}")
    for path in sorted(set(generated) - set(committed)):
        report.append(f"{path}: new file\n{REGENERATE}")
    for path in sorted(set(committed) & set(generated)):
        if committed[path] != render(generated[path]):
            diff = classify(json.loads(committed[path]), generated[path])
            report.append(f"{path}:\n{diff.advice() or 'formatting only: ' + REGENERATE}")
    return "\n\n".join(report)


def test_the_committed_schemas_are_what_the_code_generates():
    on_disk = {str(p.relative_to(COMMITTED)): p.read_text() for p in COMMITTED.rglob("*.json")}
    assert compatibility(on_disk, schemas()) == ""


def test_a_difference_from_the_committed_schemas_says_whether_it_needs_a_new_version():
    on_disk = {str(p.relative_to(COMMITTED)): p.read_text() for p in COMMITTED.rglob("*.json")}
    generated = schemas()
    tool = json.loads(on_disk["contexts/tool.invoked.json"])
    added = {**tool, "properties": {**tool["properties"], "surprise": {"type": "string"}}}
    message = compatibility(on_disk, {**generated, "contexts/tool.invoked.json": added})
    assert "new optional property" in message and message.endswith(REGENERATE)
    removed = {**tool, "properties": {k: v for k, v in tool["properties"].items() if k != "call"}}
    message = compatibility(on_disk, {**generated, "contexts/tool.invoked.json": removed})
    assert "$.call: property removed" in message and message.endswith(BREAKING)


def test_an_envelope_that_refuses_a_reply_it_accepted_needs_a_new_version():
    on_disk = {str(p.relative_to(COMMITTED)): p.read_text() for p in COMMITTED.rglob("*.json")}
    generated = schemas()
    reply = json.loads(on_disk["replies/hook_reply.json"])
    reason = reply["$defs"]["AbortRequest"]["properties"]["reason"]
    reply["$defs"]["AbortRequest"]["properties"]["reason"] = {**reason, "maxLength": 2}
    message = compatibility(on_disk, {**generated, "replies/hook_reply.json": reply})
    assert "corpus reply abort-ask accepted before, refused now" in message
    assert "maxLength None -> 2" in message and message.endswith(BREAKING)


def test_every_operation_has_its_context_schema_and_the_index_lists_them():
    index = schemas()["index.json"]
    assert index["version"] == SCHEMA_VERSION
    assert {f"contexts/{op}.json" for op in OPERATIONS} <= set(index["schemas"])
    assert len([p for p in index["schemas"] if p.startswith("contexts/")]) == len(OPERATIONS)


@pytest.mark.parametrize("operation", OPERATIONS)
def test_a_real_context_as_sent_validates_and_a_wrong_one_does_not(operation):
    check = validator(f"contexts/{operation}.json")
    sent = json.loads(encode_request(1, f"{operation}.pre", {"context": sample(operation)}))
    check.validate(sent["params"]["context"])
    check.validate(reply_of(sample(operation))["context"])  # a replacement sent back
    assert not check.is_valid({**sent["params"]["context"], "surprise": 1})  # extra: refused
    assert not check.is_valid({**sent["params"]["context"], "correlation_id": 7})


def test_the_envelopes_describe_requests_and_replies():
    request = json.loads(encode_request(1, "tool.invoked.pre", {"context": sample("tool.invoked")}))
    validator("replies/jsonrpc_request.json").validate(request)
    RpcRequest.model_validate(request)
    reply = validator("replies/hook_reply.json")
    reply.validate({"context": None})
    reply.validate(abort_reply(HookAbort("no", refusal=True)))
    ask = abort_reply(HookAbort("a person decides", ask=True, timeout_seconds=60))
    reply.validate(ask)
    validator("replies/abort.json").validate(ask["abort"])
    assert not validator("replies/abort.json").is_valid({"refusal": True})  # no reason


def test_the_cli_writes_them(tmp_path):
    done = subprocess.run(
        [sys.executable, "-m", "harness.hooks", "schema", "--out", str(tmp_path)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    wrote = f"wrote {len(schemas())} schemas ({SCHEMA_VERSION}) under {tmp_path}"
    assert done.stdout.strip() == wrote
    assert (tmp_path / "contexts" / "tool.invoked.json").read_text() == (
        COMMITTED / "contexts" / "tool.invoked.json"
    ).read_text()
    assert done.stderr == ""


async def test_every_jsonrpc_request_names_the_schema_version(tmp_path):
    from aiohttp import web

    from harness.domain import ToolCall
    from harness.hooks import HookManager, load_hooks_config
    from harness.hooks.contexts import ToolInvokedContext
    from harness.hooks.remote.wire import SCHEMA_HEADER

    seen: list[str | None] = []

    async def handle(request: web.Request) -> web.Response:
        body = await request.json()
        seen.append(request.headers.get(SCHEMA_HEADER))
        validator("replies/jsonrpc_request.json").validate(body)
        return web.json_response({"jsonrpc": "2.0", "id": body["id"], "result": None})

    app = web.Application()
    app.router.add_post("/hooks", handle)
    runner = web.AppRunner(app)
    await runner.setup()
    await web.TCPSite(runner, "127.0.0.1", 0).start()
    url = f"http://127.0.0.1:{runner.addresses[0][1]}/hooks"
    path = tmp_path / "hooks.toml"
    path.write_text(
        f'[[executor]]\nname = "policy"\npoints = "tool.invoked.pre"\n'
        f'kind = "jsonrpc"\nurl = "{url}"\n'
    )
    manager = HookManager()
    load_hooks_config(path).apply(manager)
    try:
        await manager.run("tool.invoked", ToolInvokedContext(call=ToolCall(id="c", name="echo")))
    finally:
        await manager.aclose()
        await runner.cleanup()
    assert seen == [SCHEMA_VERSION]


V1 = ROOT / "schemas" / "v1"
FLAT = {"kind": "set_effort", "value": "high", "user_id": "", "subtask": None, "amount": 0.0}


def with_effect(effect: dict) -> dict:
    ctx = sample("command.invoked").model_dump(mode="json")
    return {**ctx, "result": {"reply": "r", "effects": [effect], "public": False}}


def test_typed_effects_are_why_v2_exists_and_v1_stays_as_published():
    """A v1 executor validating what it receives would refuse a typed effect, and a flat one
    is no longer what we send: breaking, by the classifier too, so a new version (issue 25)."""
    v1 = json.loads((V1 / "contexts" / "command.invoked.json").read_text())
    v2 = schemas()["contexts/command.invoked.json"]
    typed = json.loads(
        CommandResult(reply="r", effects=(SetEffort(effort="high"),)).model_dump_json()
    )
    old, new = jsonschema.Draft202012Validator(v1), validator("contexts/command.invoked.json")
    assert old.is_valid(with_effect(FLAT)) and not old.is_valid(with_effect(typed["effects"][0]))
    assert new.is_valid(with_effect(typed["effects"][0])) and not new.is_valid(with_effect(FLAT))
    diff = classify(v1, v2)
    assert diff.kind == "breaking" and diff.advice().endswith(BREAKING)
    assert all(c.path.startswith("$.result.anyOf[0].effects[]") for c in diff.changes if c.breaking)
    assert json.loads((V1 / "index.json").read_text())["version"] == "v1"


def test_the_published_schema_tells_every_kind_of_effect_apart_by_kind():
    effects = schemas()["contexts/command.invoked.json"]["$defs"]["CommandResult"]
    mapping = effects["properties"]["effects"]["items"]["discriminator"]["mapping"]
    kinds = {effect.model_fields["kind"].default: effect.__name__ for effect in EFFECTS}
    assert mapping == {kind: f"#/$defs/{name}" for kind, name in kinds.items()}
    defs = schemas()["contexts/command.invoked.json"]["$defs"]
    assert all(defs[name]["required"][0] == "kind" for name in kinds.values())
    check = validator("contexts/command.invoked.json")
    assert not check.is_valid(with_effect({"kind": "set_effort", "effort": "extreme"}))
    assert not check.is_valid(with_effect({"effort": "high"}))  # no kind: refused
