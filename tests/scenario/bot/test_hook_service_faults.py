"""Issue 26: a hook service that answers badly, as the thread, log, audit and history read it.

Real bot, real worker, real dev server, and a hook service on a loopback port named in a
hooks file (``policy-gate``, on ``tool.invoked.pre``):

- a JSON-RPC service whose every answer is HTTP 500 with a body holding a Slack token and
  one of the worker's own secrets: the thread hears the one-sentence outage notice, and
  neither secret is in any post, any of the worker's log records (tracebacks and their
  chained causes included), the audit records or the workflow's history (as stored, and
  as the codec opens it);
- an MCP service that answers the handshake with a protocol version this harness does
  not speak: the thread hears the same sentence, no class name or version; the worker's
  log names both versions.
"""

from __future__ import annotations

import logging
import secrets

import pytest
from aiohttp import web
from mcp_types.version import LATEST_HANDSHAKE_VERSION
from pydantic import SecretStr

from harness.config import Settings
from harness.storage.audit import read_audit
from tests.support.history import opened_bytes

from .conftest import posting_to
from .loopback import LoopbackService, bot_beside
from .threads import Thread

DOWN = "the hook service `policy-gate` could not be reached"
FAILED = f"failed: {DOWN} (tried 4 times); try again in a minute"
TOKEN = "xoxb-" + "-".join(secrets.token_hex(6) for _ in range(3))
"""A Slack bot token: a family every redactor knows."""
WORKER_SECRET = "hs-" + secrets.token_hex(16)
"""One of the worker's own secrets (its OpenAI key here): no family, only the worker knows it."""
OLD_VERSION = "1999-01-01"
INTERNALS = ("HookTransportError", "RuntimeError", "Error:", OLD_VERSION, LATEST_HANDSHAKE_VERSION)


class FaultyService(LoopbackService):
    """``policy-gate``: answers every request as ``kind`` says; counts the requests."""

    def __init__(self, kind: str) -> None:
        super().__init__()
        self.kind = kind
        self.requests = 0

    async def error_page(self, request: web.Request) -> web.Response:
        self.requests += 1
        await request.read()
        body = f"Traceback: upstream refused token={TOKEN} key={WORKER_SECRET}"
        return web.Response(status=500, text=body)

    async def old_mcp(self, request: web.Request) -> web.Response:
        """An MCP server over HTTP that speaks only a protocol version of 1999."""
        if request.method != "POST":
            return web.Response(status=405)
        self.requests += 1
        message = await request.json()
        if "id" not in message:
            return web.Response(status=202)
        result = {
            "protocolVersion": OLD_VERSION,
            "capabilities": {"tools": {}},
            "serverInfo": {"name": "old", "version": "0"},
        }
        return web.json_response({"jsonrpc": "2.0", "id": message["id"], "result": result})

    def app(self) -> web.Application:
        app = web.Application()
        if self.kind == "jsonrpc":
            app.router.add_post("/rpc", self.error_page)
        else:
            app.router.add_route("*", "/rpc", self.old_mcp)
        return app


@pytest.fixture
def service(request) -> FaultyService:
    return FaultyService(request.param)


@pytest.fixture
def settings(settings: Settings, bot_port, tmp_path, service) -> Settings:
    hooks = tmp_path / "hooks.toml"
    hooks.write_text(
        "[[executor]]\n"
        'name = "policy-gate"\n'
        f'kind = "{service.kind}"\n'
        'points = ["tool.invoked.pre"]\n'
        f'url = "http://127.0.0.1:{service.port}/rpc"\n'
        "timeout = 2.0\n"
    )
    return posting_to(
        settings,
        bot_port,
        hooks_config=hooks,
        openai_api_key=SecretStr(WORKER_SECRET),
        retry_initial_backoff_seconds=0.2,
        retry_backoff_multiplier=1,
        retry_max_backoff_seconds=0.2,
    )


@pytest.fixture
async def slack(harness, tmp_path, bot_port, worker, service):
    async for sender in bot_beside(service, harness, tmp_path, bot_port):
        yield sender


class Raised:
    """An operator's executor monitor (``around="executor"``): keeps what each call raised."""

    def __init__(self) -> None:
        self.errors: list[BaseException] = []

    async def __call__(self, call, ctx, proceed):
        try:
            return await proceed()
        except Exception as error:
            self.errors.append(error)
            raise


def chain_texts(error: BaseException) -> list[str]:
    """The text of ``error`` and of every exception reachable from it as a cause or context."""
    seen: list[BaseException] = []
    todo: list[BaseException | None] = [error]
    while todo:
        link = todo.pop()
        if link is None or any(link is s for s in seen):
            continue
        seen.append(link)
        todo += [link.__cause__, link.__context__]
    return [f"{type(e).__name__}: {e} {e.args!r}" for e in seen]


def logged(caplog: pytest.LogCaptureFixture) -> str:
    """Every record the worker logged, message and traceback (chained causes included)."""
    formatter = logging.Formatter("%(name)s %(levelname)s %(message)s")
    return "\n".join(formatter.format(record) for record in caplog.records)


async def failed_request(thread: Thread) -> list[str]:
    await thread.start('call echo {"text": "deploy"}')
    assert await thread.until_posted(FAILED) == FAILED
    posts = thread.posts()
    assert f"{DOWN}; retrying, 2 of 4" in posts
    assert "echo: deploy" not in posts
    for post in posts:
        assert not [word for word in INTERNALS if word in post], post
    return posts


@pytest.mark.parametrize("service", ["jsonrpc"], indirect=True)
async def test_a_500_page_holding_secrets_reaches_no_post_log_audit_or_history(
    slack, harness, store, manager, service, caplog
):
    caplog.set_level(logging.DEBUG)
    raised = Raised()
    manager.add_monitor(raised, around="executor")
    thread = Thread(slack, harness)
    posts = await failed_request(thread)
    assert service.requests >= 4
    assert len(raised.errors) >= 4
    reachable = [text for error in raised.errors for text in chain_texts(error)]
    assert len(reachable) > len(raised.errors)  # the control: each error has a cause kept

    log_text = logged(caplog)
    assert "HTTP 500" in log_text  # the control: the failure was logged, with its cause
    await manager.audit.aclose()  # what is queued is written
    audit = [r.as_dict() for r in manager.audit.last(500)]
    audit += [r.as_dict() for r in await read_audit(store.database, 500)]
    handle = harness.temporal.get_workflow_handle(thread.task_id)
    stored = (await handle.fetch_history()).to_json()
    opened = (await opened_bytes(harness.temporal, thread.task_id)).decode(errors="replace")
    assert "HTTP 500" in stored + opened  # the control: the failure is in history
    places = {"posts": "\n".join(posts), "log": log_text, "audit": repr(audit)}
    places |= {"raised errors, their causes and contexts": "\n".join(reachable)}
    places |= {"history": stored, "opened history": opened}
    for secret in (TOKEN, WORKER_SECRET):
        leaked = [where for where, text in places.items() if secret in text]
        assert leaked == [], f"{secret[:8]}… in {leaked}"


@pytest.mark.parametrize("service", ["mcp"], indirect=True)
async def test_an_mcp_service_of_another_protocol_version_is_an_outage_whose_log_names_both(
    slack, harness, service, caplog
):
    caplog.set_level(logging.DEBUG)
    thread = Thread(slack, harness)
    await failed_request(thread)
    assert service.requests >= 1
    said = [r.getMessage() for r in caplog.records if OLD_VERSION in r.getMessage()]
    assert said, "no log record names the server's version"
    assert any(LATEST_HANDSHAKE_VERSION in line for line in said), said
