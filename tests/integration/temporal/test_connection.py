"""Real connections as envconfig describes them: a profile file, TLS and mTLS on loopback.

The TLS endpoint is :class:`tests.support.tls_proxy.TlsProxy` in front of the session's
dev server, with a certificate authority made for the test; the worker and the bot's
client read everything from ``TEMPORAL_*`` (the ``HARNESS_TEMPORAL_*`` ones unset).
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path
from uuid import uuid4

import pytest

from harness.config import Settings
from harness.domain import TaskSpec, TaskStatus
from harness.temporal.client import HarnessClient
from harness.temporal.errors import TaskUnavailable
from harness.temporal.worker import serve
from tests.support.tls_proxy import Pki, TlsProxy, make_pki

from .conftest import assert_replays, free_port, worker_env

ROOT = Path(__file__).resolve().parents[3]

API_KEY = "tc-dev-key-9d8e7f6a5b4c"


def unaddressed(settings: Settings) -> Settings:
    """``settings`` with no ``HARNESS_TEMPORAL_*``: where to connect is envconfig's to say."""
    values = settings.model_dump(exclude={"temporal_address", "temporal_namespace"})
    return Settings(_env_file=None, **values)  # type: ignore[call-arg]  # pydantic-settings kwarg


@pytest.fixture(scope="module")
def pki(tmp_path_factory: pytest.TempPathFactory) -> Pki:
    return make_pki(tmp_path_factory.mktemp("pki"))


@pytest.fixture
def temporal_env(monkeypatch: pytest.MonkeyPatch) -> pytest.MonkeyPatch:
    """The environment with no ``TEMPORAL_*`` of the machine's; the test sets its own."""
    for name in (
        "TEMPORAL_ADDRESS",
        "TEMPORAL_NAMESPACE",
        "TEMPORAL_API_KEY",
        "TEMPORAL_PROFILE",
        "TEMPORAL_TLS",
        "TEMPORAL_CONFIG_FILE",
    ):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("XDG_CONFIG_HOME", "/nonexistent")  # no profile file of the user's
    return monkeypatch


async def test_a_profile_file_with_an_api_key_reaches_the_dev_server(
    settings, temporal_address, temporal_env, tmp_path
):
    profile = tmp_path / "temporal.toml"
    profile.write_text(f"""
[profile.dev]
address = "{temporal_address}"
namespace = "default"
api_key = "{API_KEY}"
tls = {{ disabled = true }}
""")  # the dev server speaks plain gRPC and ignores the bearer header
    temporal_env.setenv("TEMPORAL_CONFIG_FILE", str(profile))
    temporal_env.setenv("TEMPORAL_PROFILE", "dev")
    harness = await HarnessClient.connect(unaddressed(settings))
    config = harness.temporal.service_client.config
    assert (config.target_host, config.api_key, config.tls) == (temporal_address, API_KEY, False)
    assert await harness.temporal.count_workflows(f"WorkflowId = 'none-{uuid4()}'") is not None
    # The key is one of the client's secrets: what it sends to Temporal is redacted of it.
    assert API_KEY in harness.settings.secret_values()


async def test_worker_and_client_work_over_tls_with_the_ca_from_the_environment(
    client, settings, manager, temporal_address, temporal_env, pki
):
    async with TlsProxy(temporal_address, pki) as proxy:
        temporal_env.setenv("TEMPORAL_ADDRESS", proxy.address)
        temporal_env.setenv("TEMPORAL_TLS_SERVER_CA_CERT_PATH", str(pki.ca))
        secured = unaddressed(settings)
        stop = asyncio.Event()
        worker = asyncio.create_task(serve(secured, stop, manager=manager))
        harness = await HarnessClient.connect(secured)
        assert harness.temporal.service_client.config.target_host == proxy.address
        channel = f"C{uuid4().hex[:10]}"
        ref = await harness.start_task(TaskSpec(title="t", owner="U1"), team="T", channel=channel)
        await harness.finish(ref.task_id, summary="over TLS")
        outcome = await asyncio.wait_for(harness.outcome(ref.task_id), 20)
        stop.set()
        await asyncio.wait_for(worker, 10)
    assert outcome.status == TaskStatus.SUCCEEDED
    await assert_replays(client, [ref.task_id])  # the session's plain client: the proxy is gone


async def test_without_the_ca_the_handshake_fails_and_says_so(
    settings, temporal_address, temporal_env, pki
):
    async with TlsProxy(temporal_address, pki) as proxy:
        temporal_env.setenv("TEMPORAL_ADDRESS", proxy.address)
        temporal_env.setenv("TEMPORAL_TLS", "true")  # the system roots: they don't know our CA
        with pytest.raises(TaskUnavailable) as caught:
            await HarnessClient.connect(unaddressed(settings))
    assert "UnknownIssuer" in caught.value.reason  # the SDK's words, then what to set
    assert "give its CA as TEMPORAL_TLS_SERVER_CA_CERT_PATH" in caught.value.reason


async def test_mtls_connects_with_the_client_certificate_and_is_refused_without(
    settings, temporal_address, temporal_env, pki
):
    async with TlsProxy(temporal_address, pki, require_client_cert=True) as proxy:
        temporal_env.setenv("TEMPORAL_ADDRESS", proxy.address)
        temporal_env.setenv("TEMPORAL_TLS_SERVER_CA_CERT_PATH", str(pki.ca))
        with pytest.raises(TaskUnavailable) as caught:
            await HarnessClient.connect(unaddressed(settings))
        assert "it may require a client certificate" in caught.value.reason
        temporal_env.setenv("TEMPORAL_TLS_CLIENT_CERT_PATH", str(pki.client_cert))
        temporal_env.setenv("TEMPORAL_TLS_CLIENT_KEY_PATH", str(pki.client_key))
        harness = await HarnessClient.connect(unaddressed(settings))
        assert await harness.temporal.count_workflows(f"WorkflowId = 'none-{uuid4()}'") is not None


@pytest.mark.parametrize(
    ("command", "says"),
    [
        (("-m", "harness.worker"), "worker not starting: "),
        (("-m", "bot"), "ERROR bot not starting: "),
    ],
    ids=["worker", "bot"],
)
async def test_a_wrong_temporal_setting_stops_either_process_at_start_naming_it(
    settings, tmp_path, command, says
):
    env = worker_env(
        settings,
        BOT_LOCAL="1",
        BOT_PORT=str(free_port()),
        TEMPORAL_CONFIG_FILE=str(tmp_path / "missing.toml"),
        TEMPORAL_API_KEY=API_KEY,
    )
    env.pop("HARNESS_TEMPORAL_ADDRESS")
    process = await asyncio.create_subprocess_exec(
        sys.executable, *command, cwd=ROOT, env=env, stderr=asyncio.subprocess.PIPE
    )
    _, err = await asyncio.wait_for(process.communicate(), 30)
    log = err.decode()
    assert process.returncode == 2, log
    assert f"{says}TEMPORAL_CONFIG_FILE: {tmp_path / 'missing.toml'} is not a file; give " in log
    assert "Traceback" not in log and API_KEY not in log
