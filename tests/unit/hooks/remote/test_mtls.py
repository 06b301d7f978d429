"""mTLS for remote executors (issue 15, point 3): client certificates, private CAs, load checks.

Real HTTPS servers that require a client certificate signed by the test CA
(``ssl.CERT_REQUIRED``): an aiohttp ``jsonrpc_app`` and an MCP streamable-HTTP hook
server (uvicorn). The certificates are made at test time (:mod:`tests.support.certs`).
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from aiohttp import web

from harness.domain import ToolCall
from harness.hook_server.jsonrpc import jsonrpc_app
from harness.hooks import (
    HookConfigError,
    HookManager,
    HooksReload,
    HookTransportError,
    load_hooks_config,
)
from harness.hooks.contexts import ToolInvokedContext
from tests.support.certs import Pki, make_pki

POINT = "tool.invoked.pre"
EXAMPLE = Path(__file__).resolve().parents[4] / "examples" / "mcp_rewriter.py"


def tag(ctx: ToolInvokedContext) -> ToolInvokedContext:
    return ctx.model_copy(update={"entities": {**ctx.entities, "over": "mtls"}})


@pytest.fixture(scope="module")
def pki(tmp_path_factory: pytest.TempPathFactory) -> Pki:
    return make_pki(tmp_path_factory.mktemp("pki"))


async def _jsonrpc_server(pki: Pki) -> tuple[web.AppRunner, str]:
    runner = web.AppRunner(jsonrpc_app({POINT: tag}, path="/hooks"))
    await runner.setup()
    await web.TCPSite(runner, "127.0.0.1", 0, ssl_context=pki.server_context()).start()
    return runner, f"https://127.0.0.1:{runner.addresses[0][1]}/hooks"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture(scope="module")
async def urls(pki: Pki) -> AsyncIterator[dict[str, str]]:
    """``{"jsonrpc": url, "mcp": url}``: both servers require a client certificate.

    The MCP one is ``examples/mcp_rewriter.py`` run as a third party would, with TLS flags.
    """
    runner, jsonrpc = await _jsonrpc_server(pki)
    port = free_port()
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        str(EXAMPLE),
        "--http",
        "--port",
        str(port),
        "--tls-cert",
        str(pki.server_cert),
        "--tls-key",
        str(pki.server_key),
        "--tls-client-ca",
        str(pki.ca),
        stdout=asyncio.subprocess.DEVNULL,
        stderr=asyncio.subprocess.DEVNULL,
    )
    try:
        async with asyncio.timeout(20):
            while True:
                assert proc.returncode is None, "the MCP example exited at start"
                with contextlib.suppress(OSError):
                    _, writer = await asyncio.open_connection("127.0.0.1", port)
                    writer.close()
                    await writer.wait_closed()
                    break
                await asyncio.sleep(0.05)
        yield {"jsonrpc": jsonrpc, "mcp": f"https://127.0.0.1:{port}/mcp"}
    finally:
        proc.terminate()
        await proc.wait()
        await runner.cleanup()


def ctx() -> ToolInvokedContext:
    call = ToolCall(id="c1", name="write_artefact", arguments={"name": "Notes/Plan v2.md"})
    return ToolInvokedContext(idempotency_key="k", call=call)


def served(out: ToolInvokedContext, kind: str) -> bool:
    """Whether the server's rewrite came back (each server rewrites its own way)."""
    if kind == "jsonrpc":
        return out.entities.get("over") == "mtls"
    return out.call.arguments["name"] == "plan-v2.md"


def hooks_file(tmp_path: Path, pki: Pki, kind: str, url: str, **tls: Path) -> Path:
    # Paths relative to the hooks file, as an operator writes them.
    (tmp_path / "tls").mkdir(exist_ok=True)
    lines = [
        f'[[executor]]\nname = "secure"\npoints = "{POINT}"\nkind = "{kind}"\n'
        f'url = "{url}"\ntimeout = 5'
    ]
    for key, source in tls.items():
        target = tmp_path / "tls" / source.name
        target.write_bytes(source.read_bytes())
        lines.append(f'{key} = "tls/{source.name}"')
    path = tmp_path / "hooks.toml"
    path.write_text("\n".join(lines) + "\n")
    return path


async def run_once(path: Path) -> ToolInvokedContext:
    manager = HookManager()
    load_hooks_config(path, environ={}).apply(manager)
    try:
        return await manager.run("tool.invoked", ctx())
    finally:
        await manager.aclose()


@pytest.mark.parametrize("kind", ["jsonrpc", "mcp"])
async def test_with_the_client_certificate_the_call_succeeds(tmp_path, pki, kind, urls):
    url = urls[kind]
    path = hooks_file(
        tmp_path,
        pki,
        kind,
        url,
        tls_client_cert=pki.client_cert,
        tls_client_key=pki.client_key,
        tls_ca=pki.ca,
    )
    assert served(await run_once(path), kind)


@pytest.mark.parametrize("kind", ["jsonrpc", "mcp"])
@pytest.mark.parametrize("who", ["none", "stranger"])
async def test_without_a_trusted_client_certificate_the_call_fails_naming_tls(
    tmp_path, pki, kind, who, urls
):
    url = urls[kind]
    tls = {"tls_ca": pki.ca}
    if who == "stranger":  # a certificate from a CA the server does not trust
        tls |= {"tls_client_cert": pki.stranger_cert, "tls_client_key": pki.stranger_key}
    path = hooks_file(tmp_path, pki, kind, url, **tls)
    with pytest.raises(HookTransportError) as caught:
        await run_once(path)
    assert "TLS" in str(caught.value) or "SSL" in str(caught.value)


@pytest.mark.parametrize("kind", ["jsonrpc", "mcp"])
async def test_a_server_certificate_from_another_ca_is_refused(tmp_path, pki, kind, urls):
    url = urls[kind]
    path = hooks_file(
        tmp_path,
        pki,
        kind,
        url,
        tls_client_cert=pki.client_cert,
        tls_client_key=pki.client_key,
        tls_ca=pki.other_ca,
    )
    with pytest.raises(HookTransportError) as caught:
        await run_once(path)
    assert "CERTIFICATE_VERIFY_FAILED" in str(caught.value)


@pytest.mark.parametrize(
    ("settings", "expected"),
    [
        ({"tls_ca": "missing.pem"}, "field 'tls_ca': no file"),
        ({"tls_client_key": "client.key"}, "tls_client_key needs tls_client_cert"),
        (
            {"tls_client_cert": "client.pem", "tls_client_key": "stranger.key"},
            "fields tls_client_cert, tls_client_key: not a usable TLS set-up",
        ),
        ({"tls_ca": "client.key"}, "fields tls_ca: not a usable TLS set-up"),
        (
            {"tls_client_cert": "client.pem", "tls_client_key": "client-encrypted.key"},
            "encrypted private keys are not supported",
        ),
    ],
    ids=[
        "missing-file",
        "key-without-cert",
        "key-of-another-cert",
        "not-a-ca-bundle",
        "encrypted-key",
    ],
)
def test_the_tls_files_are_checked_when_the_hooks_file_loads(tmp_path, pki, settings, expected):
    for source in (pki.client_cert, pki.client_key, pki.stranger_key, pki.client_key_encrypted):
        (tmp_path / source.name).write_bytes(source.read_bytes())
    keys = "\n".join(f'{k} = "{v}"' for k, v in settings.items())
    path = tmp_path / "hooks.toml"
    path.write_text(
        f'[[executor]]\nname = "secure"\npoints = "{POINT}"\nkind = "jsonrpc"\n'
        f'url = "https://hooks.example/rpc"\n{keys}\n'
    )
    with pytest.raises(HookConfigError) as caught:
        load_hooks_config(path, environ={})
    assert "line 1: executor[0] ('secure')" in str(caught.value)
    assert expected in str(caught.value)


@pytest.mark.parametrize(
    "entry",
    [
        'kind = "jsonrpc"\nurl = "http://hooks.example/rpc"',
        'kind = "mcp"\ncommand = ["python", "hooks.py"]',
    ],
    ids=["plain-http", "stdio"],
)
def test_tls_settings_need_an_https_url(tmp_path, entry):
    path = tmp_path / "hooks.toml"
    path.write_text(f'[[executor]]\npoints = "{POINT}"\n{entry}\ntls_ca = "ca.pem"\n')
    with pytest.raises(HookConfigError, match=r"tls_ca need an https:// url"):
        load_hooks_config(path, environ={})


async def test_a_reload_reads_the_certificate_files_again(tmp_path, pki, urls):
    """Renewed certificates apply on SIGHUP: an entry with TLS files is rebuilt by a reload."""
    path = hooks_file(tmp_path, pki, "jsonrpc", urls["jsonrpc"], tls_ca=pki.ca)
    manager = HookManager()
    config = load_hooks_config(path, environ={})
    reload = HooksReload(
        manager, path, config, config.apply(manager), grace_seconds=0.5, worker="test pid 1"
    )
    try:
        with pytest.raises(HookTransportError, match="TLS"):  # no client certificate yet
            await manager.run("tool.invoked", ctx())
        # The operator puts the certificate in place and names it; same CA file, re-read.
        hooks_file(
            tmp_path,
            pki,
            "jsonrpc",
            urls["jsonrpc"],
            tls_client_cert=pki.client_cert,
            tls_client_key=pki.client_key,
            tls_ca=pki.ca,
        )
        outcome = await reload.reload(trigger="SIGHUP")
        assert outcome.applied, outcome.problems
        assert served(await manager.run("tool.invoked", ctx()), "jsonrpc")
        before = [r.executor for r in manager.registrations(POINT)]
        outcome = await reload.reload(trigger="SIGHUP")  # the same file again
        assert outcome.applied
        after = [r.executor for r in manager.registrations(POINT)]
        assert not set(map(id, after)) & set(map(id, before))
        assert served(await manager.run("tool.invoked", ctx()), "jsonrpc")
    finally:
        await manager.aclose()
