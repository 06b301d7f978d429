"""How to reach Temporal: envconfig's variables and profiles, HARNESS_* precedence, no secret shown.

Each test gives ``resolve`` an explicit environment and asserts the exact keyword
arguments ``Client.connect`` gets; the real connections (a profile, TLS, mTLS) are in
``tests/integration/temporal/test_connection.py``.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from temporalio.service import TLSConfig

from harness.config import Settings
from harness.secret_values import temporal_secret_values as secret_values
from harness.temporal.connection import resolve
from harness.temporal.errors import TemporalConfigError

API_KEY = "tc-api-key-7f3a9e1b2c4d"
KEY_DATA = "-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQ\n-----END PRIVATE KEY-----"


def settings(**values: object) -> Settings:
    return Settings(_env_file=None, **values)  # type: ignore[call-arg]  # pydantic-settings kwarg


def profiles(tmp_path: Path, text: str) -> dict[str, str]:
    """An environment pointing at a profile file holding ``text``."""
    path = tmp_path / "temporal.toml"
    path.write_text(text)
    return {"TEMPORAL_CONFIG_FILE": str(path)}


CLOUD = f"""
[profile.default]
address = "127.0.0.1:7233"

[profile.cloud]
address = "my-ns.a1b2c.tmprl.cloud:7233"
namespace = "my-ns.a1b2c"
api_key = "{API_KEY}"
"""


def test_with_nothing_configured_it_is_the_local_dev_server_without_tls():
    assert resolve(settings(), {}).config == {
        "target_host": "127.0.0.1:7233",
        "namespace": "default",
    }


def test_temporal_variables_decide_when_the_harness_ones_are_unset():
    env = {"TEMPORAL_ADDRESS": "temporal.internal:7233", "TEMPORAL_NAMESPACE": "prod"}
    assert resolve(settings(), env).config == {
        "target_host": "temporal.internal:7233",
        "namespace": "prod",
    }


def test_harness_address_and_namespace_win_over_variables_and_profile(tmp_path):
    env = profiles(tmp_path, CLOUD) | {
        "TEMPORAL_PROFILE": "cloud",
        "TEMPORAL_ADDRESS": "other:7233",
    }
    config = resolve(settings(temporal_address="proxy:7233", temporal_namespace="mine"), env).config
    # Only where and which namespace are overridden: the profile's key (and so TLS) stays.
    assert config == {
        "target_host": "proxy:7233",
        "namespace": "mine",
        "api_key": API_KEY,
        "tls": True,
    }


def test_harness_variables_in_the_environment_count_as_set(monkeypatch, tmp_path):
    monkeypatch.setenv("HARNESS_TEMPORAL_ADDRESS", "from-harness:7233")
    env = profiles(tmp_path, CLOUD) | {"TEMPORAL_PROFILE": "cloud"}
    assert resolve(settings(), env).address == "from-harness:7233"


def test_a_profile_with_an_api_key_turns_tls_on(tmp_path):
    env = profiles(tmp_path, CLOUD) | {"TEMPORAL_PROFILE": "cloud"}
    connection = resolve(settings(), env)
    cloud = "my-ns.a1b2c.tmprl.cloud:7233"
    assert connection.config == {
        "target_host": cloud,
        "namespace": "my-ns.a1b2c",
        "api_key": API_KEY,
        "tls": True,
    }
    assert API_KEY not in repr(connection) and API_KEY not in connection.describe()
    assert connection.describe() == f"{cloud}, namespace my-ns.a1b2c, TLS, API key"


def test_the_default_profile_is_read_without_temporal_profile(tmp_path):
    assert resolve(settings(), profiles(tmp_path, CLOUD)).address == "127.0.0.1:7233"


def test_variables_override_the_profile_as_envconfig_says(tmp_path):
    env = profiles(tmp_path, CLOUD) | {
        "TEMPORAL_PROFILE": "cloud",
        "TEMPORAL_NAMESPACE": "n2",
        "TEMPORAL_TLS": "false",
    }
    config = resolve(settings(), env).config
    assert (config["namespace"], config["tls"]) == ("n2", False)  # e.g. a plain-text local proxy


def test_an_api_key_variable_alone_means_tls_with_the_system_roots():
    config = resolve(settings(), {"TEMPORAL_API_KEY": API_KEY}).config
    assert (config["api_key"], config["tls"]) == (API_KEY, True)


def test_an_empty_api_key_is_no_key_and_does_not_turn_tls_on():
    assert resolve(settings(), {"TEMPORAL_API_KEY": ""}).config == {
        "target_host": "127.0.0.1:7233",
        "namespace": "default",
    }


def test_tls_files_are_read_into_the_tls_config(tmp_path):
    (tmp_path / "ca.pem").write_bytes(b"CA")
    (tmp_path / "c.pem").write_bytes(b"CERT")
    (tmp_path / "c.key").write_bytes(b"KEY")
    env = {
        "TEMPORAL_ADDRESS": "t:7233",
        "TEMPORAL_TLS_SERVER_CA_CERT_PATH": str(tmp_path / "ca.pem"),
        "TEMPORAL_TLS_CLIENT_CERT_PATH": str(tmp_path / "c.pem"),
        "TEMPORAL_TLS_CLIENT_KEY_PATH": str(tmp_path / "c.key"),
        "TEMPORAL_TLS_SERVER_NAME": "temporal.internal",
    }
    connection = resolve(settings(), env)
    assert connection.config["tls"] == TLSConfig(
        server_root_ca_cert=b"CA",
        client_cert=b"CERT",
        client_private_key=b"KEY",
        domain="temporal.internal",
    )
    assert connection.describe() == "t:7233, namespace default, TLS, client certificate"


def test_profile_tls_paths_and_inline_data_work_the_same(tmp_path):
    (tmp_path / "ca.pem").write_bytes(b"CA")
    env = profiles(
        tmp_path,
        f"""
[profile.default.tls]
server_ca_cert_path = "{tmp_path / "ca.pem"}"
client_cert_data = "CERT"
client_key_data = "KEY"
""",
    )
    assert resolve(settings(), env).config["tls"] == TLSConfig(
        server_root_ca_cert=b"CA", client_cert=b"CERT", client_private_key=b"KEY"
    )


@pytest.mark.parametrize(
    ("env", "source", "problem"),
    [
        (
            {"TEMPORAL_CONFIG_FILE": "/nonexistent/temporal.toml"},
            "TEMPORAL_CONFIG_FILE",
            "/nonexistent/temporal.toml is not a file",
        ),
        ({"TEMPORAL_PROFILE": "prod"}, "TEMPORAL_PROFILE", "no profile 'prod'"),
        ({"TEMPORAL_TLS": "yes"}, "TEMPORAL_TLS", "must be true or false"),
        (
            {"TEMPORAL_TLS_SERVER_CA_CERT_PATH": "/nonexistent/ca.pem"},
            "TEMPORAL_TLS_SERVER_CA_CERT_PATH (or the profile's tls.server_ca_cert_path)",
            "cannot read /nonexistent/ca.pem: No such file or directory",
        ),
        (
            {"TEMPORAL_TLS_CLIENT_CERT_DATA": "CERT"},
            "TEMPORAL_TLS_CLIENT_CERT_PATH / TEMPORAL_TLS_CLIENT_KEY_PATH",
            "give both or neither",
        ),
    ],
    ids=["missing-file", "unknown-profile", "tls-not-a-boolean", "unreadable-ca", "cert-no-key"],
)
def test_a_wrong_setting_is_named_before_anything_connects(env, source, problem):
    with pytest.raises(TemporalConfigError) as caught:
        resolve(settings(), env)
    assert caught.value.source == source
    assert problem in caught.value.problem


def test_a_broken_profile_file_is_named_without_quoting_the_key_on_the_broken_line(tmp_path):
    env = profiles(tmp_path, f'[profile.default]\napi_key = "{API_KEY}\n')  # unterminated string
    with pytest.raises(TemporalConfigError) as caught:
        resolve(settings(), env)
    assert caught.value.source == env["TEMPORAL_CONFIG_FILE"]
    assert "line 2" in str(caught.value) and "fix the file" in str(caught.value)
    assert API_KEY not in str(caught.value)
    assert caught.value.__cause__ is None and not caught.value.retryable


def test_the_api_key_and_inline_key_data_are_secrets_wherever_they_come_from(tmp_path):
    from_file = profiles(tmp_path, CLOUD) | {"TEMPORAL_PROFILE": "cloud"}
    assert secret_values(from_file) == (API_KEY,)
    inline = {
        "TEMPORAL_API_KEY": "k" * 12,
        "TEMPORAL_TLS_CLIENT_KEY_DATA": KEY_DATA,
        "TEMPORAL_TLS_CLIENT_CERT_DATA": "CERT",
    }
    assert secret_values(inline) == ("k" * 12, KEY_DATA)
    # A configuration too broken to load still has its variables masked.
    broken = {"TEMPORAL_PROFILE": "nope", "TEMPORAL_API_KEY": API_KEY}
    assert secret_values(broken) == (API_KEY,)
    assert secret_values({}) == ()


def test_settings_hand_the_temporal_secrets_to_the_redactor(monkeypatch):
    monkeypatch.setenv("TEMPORAL_API_KEY", API_KEY)
    assert API_KEY in settings().secret_values()


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("worker_max_concurrent_activities", 0),
        ("worker_max_concurrent_workflow_tasks", 1),
        ("worker_activity_pollers", 0),
        ("worker_workflow_pollers", 1),
    ],
)
def test_worker_tuning_below_what_the_sdk_accepts_is_refused(field, value):
    with pytest.raises(ValueError, match=field):
        settings(**{field: value})
