"""How the worker and the bot reach Temporal: the one place that turns settings into a connection.

Where the server is and how to authenticate (TLS, mTLS, an API key) come from Temporal's
own environment configuration (:mod:`temporalio.envconfig`: the ``TEMPORAL_*`` variables
and the profiles of a TOML file, as the ``temporal`` CLI reads them). Precedence, highest
first: ``HARNESS_TEMPORAL_ADDRESS`` / ``HARNESS_TEMPORAL_NAMESPACE`` when set, then
``TEMPORAL_*`` variables, then the profile (``TEMPORAL_PROFILE``, ``default`` unless set,
of ``TEMPORAL_CONFIG_FILE`` or ``~/.config/temporalio/temporal.toml``), then the harness
defaults (``127.0.0.1:7233``, ``default``). This module is the boundary for envconfig's
errors (:class:`~harness.temporal.errors.TemporalConfigError`); it neither retries nor
waits (the worker's loop does, :func:`harness.temporal.worker.connect.connect`).
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Final, final

from temporalio.client import Client
from temporalio.converter import DataConverter
from temporalio.envconfig import ClientConfigProfile, ClientConfigTLS, ClientConnectConfig
from temporalio.runtime import Runtime
from temporalio.service import RetryConfig, TLSConfig

from harness.temporal.errors import TemporalConfigError

if TYPE_CHECKING:
    from harness.config import Settings

CONFIG_FILE_ENV: Final = "TEMPORAL_CONFIG_FILE"
PROFILE_ENV: Final = "TEMPORAL_PROFILE"
TLS_ENV: Final = "TEMPORAL_TLS"
DEFAULT_CONFIG_FILE: Final = "$XDG_CONFIG_HOME/temporalio/temporal.toml, ~/.config by default"
"""Where envconfig looks for profiles without ``TEMPORAL_CONFIG_FILE`` (Linux; said in errors)."""

# Each TLS file: the ClientConfigTLS field, the variable and the profile key that set it.
_TLS_FILES: Final = (
    ("server_root_ca_cert", "TEMPORAL_TLS_SERVER_CA_CERT_PATH", "tls.server_ca_cert_path"),
    ("client_cert", "TEMPORAL_TLS_CLIENT_CERT_PATH", "tls.client_cert_path"),
    ("client_private_key", "TEMPORAL_TLS_CLIENT_KEY_PATH", "tls.client_key_path"),
)
# envconfig's own spelling of a boolean; anything else it silently ignores.
_BOOLEANS: Final = {"true", "1", "false", "0"}
_QUOTED: Final = re.compile(r"\"[^\"]*\"|'[^']*'")


@final
@dataclass(frozen=True)
class Connection:
    """Where and how to connect: ``Client.connect``'s keyword arguments, resolved and read.

    ``repr`` and :meth:`describe` never show the API key or key data.
    """

    config: ClientConnectConfig = field(repr=False)

    @property
    def address(self) -> str:
        """``host:port`` of the server."""
        return self.config["target_host"]

    @property
    def namespace(self) -> str:
        """The namespace every call goes to."""
        return self.config.get("namespace", "default")

    def describe(self) -> str:
        """``host:port, namespace n, TLS, client certificate, API key``: nothing secret."""
        tls = self.config.get("tls", False)
        parts = [self.address, f"namespace {self.namespace}"]
        parts += ["TLS"] if tls else []
        parts += ["client certificate"] if isinstance(tls, TLSConfig) and tls.client_cert else []
        parts += ["API key"] if self.config.get("api_key") else []
        return ", ".join(parts)


def resolve(settings: Settings, env: Mapping[str, str] | None = None) -> Connection:
    """The connection ``settings`` and Temporal's environment configuration describe.

    TLS files are read here, so a wrong path fails now, named, not at the first call.

    Args:
        settings: ``temporal_address`` and ``temporal_namespace`` win when set explicitly
            (``HARNESS_*``, ``.env`` or code); otherwise they are the last fallback.
        env: the environment to read ``TEMPORAL_*`` from; the process's when ``None``.

    Raises:
        TemporalConfigError: a variable, the profile file, the profile or a TLS file is
            wrong; the message names it and never holds a secret.
    """
    env = os.environ if env is None else env
    profile = _load_profile(env)
    chosen = settings.model_fields_set
    address = settings.temporal_address if "temporal_address" in chosen else None
    namespace = settings.temporal_namespace if "temporal_namespace" in chosen else None
    profile = replace(
        profile,
        address=address or profile.address or settings.temporal_address,
        namespace=namespace or profile.namespace or settings.temporal_namespace,
        api_key=profile.api_key or None,  # an empty TEMPORAL_API_KEY would turn TLS on
        tls=_read_tls_files(profile.tls),
    )
    return Connection(config=profile.to_client_connect_config())


async def open_client(
    connection: Connection,
    *,
    data_converter: DataConverter,
    runtime: Runtime | None = None,
    retry_config: RetryConfig | None = None,
) -> Client:
    """One attempt to connect as ``connection`` says.

    Raises:
        RuntimeError: how the SDK reports a server it cannot reach, or a TLS handshake
            that failed (an unknown certificate authority, a refused client certificate).
    """
    config = dict(connection.config)
    target = str(config.pop("target_host"))
    return await Client.connect(
        target,
        **config,  # type: ignore[arg-type]  # the remaining ClientConnectConfig keys are Client.connect's
        data_converter=data_converter,
        runtime=runtime,
        retry_config=retry_config,
    )


# What the SDK's connection errors mean, by a phrase of their text (rustls and tonic's names),
# and whether the hint is for a TLS connection (None: either).
_HINTS: Final = (
    (
        "UnknownIssuer",
        None,
        "the server's certificate is signed by an authority this process does not trust: give "
        "its CA as TEMPORAL_TLS_SERVER_CA_CERT_PATH (or the profile's tls.server_ca_cert_path)",
    ),
    (
        "NotValidForName",
        None,
        "the server's certificate is not for this host name: connect by a name it holds, or set "
        "TEMPORAL_TLS_SERVER_NAME",
    ),
    (
        "InvalidContentType",
        None,
        "the server does not speak TLS: set TEMPORAL_TLS=false (an API key turns TLS on)",
    ),
    (
        "after connection",
        True,
        "the server closed the connection after the TLS handshake: it may require a client "
        "certificate (TEMPORAL_TLS_CLIENT_CERT_PATH and TEMPORAL_TLS_CLIENT_KEY_PATH) or refuse "
        "this one",
    ),
    (
        "after connection",
        False,
        "the server closed the connection: if it uses TLS (Temporal Cloud does), set "
        "TEMPORAL_TLS=true or an API key",
    ),
    (
        "ConnectionRefused",
        None,
        "nothing listens there: is the server up, and is the address right "
        "(HARNESS_TEMPORAL_ADDRESS, TEMPORAL_ADDRESS or the profile)?",
    ),
)


def explain(error: BaseException, connection: Connection) -> str:
    """The SDK's connection error, followed by what it most likely means and what to set."""
    text = str(error)
    tls = bool(connection.config.get("tls", False))
    for phrase, when_tls, hint in _HINTS:
        if phrase in text and when_tls in (None, tls):
            return f"{text}; {hint}"
    return text


def _load_profile(env: Mapping[str, str]) -> ClientConfigProfile:
    """The profile envconfig loads, with what it would silently ignore refused instead."""
    tls = env.get(TLS_ENV, "")
    if tls and tls.strip().lower() not in _BOOLEANS:
        raise TemporalConfigError(source=TLS_ENV, problem="must be true or false")
    config_file = env.get(CONFIG_FILE_ENV, "")
    if config_file and not Path(config_file).is_file():
        # envconfig would fall back to no file at all: a typo would silently drop TLS and the key.
        raise TemporalConfigError(
            source=CONFIG_FILE_ENV,
            problem=f"{config_file} is not a file; give the TOML file of Temporal profiles, "
            "or unset it",
        )
    try:
        return ClientConfigProfile.load(override_env_vars=dict(env))  # the bridge takes a dict only
    except RuntimeError as error:  # temporal_sdk_bridge.ConfigError
        raise _config_error(str(error), env) from None  # its text may quote the file


def _config_error(message: str, env: Mapping[str, str]) -> TemporalConfigError:
    """envconfig's error, without the excerpt of the file or any quoted value in it."""
    where = env.get(CONFIG_FILE_ENV) or f"the default profile file ({DEFAULT_CONFIG_FILE})"
    if "not found" in message.lower() and "profile" in message.lower():
        name = env.get(PROFILE_ENV, "default")
        return TemporalConfigError(
            source=PROFILE_ENV, problem=f"no profile {name!r} in {where}; name one it defines"
        )
    lines = [line.strip() for line in message.splitlines() if line.strip()]
    lines = [line for line in lines if "|" not in line]  # the excerpt: "1 | address = ..."
    what = _QUOTED.sub("…", "; ".join(lines))
    return TemporalConfigError(
        source=where, problem=f"{what}; fix the file or point {CONFIG_FILE_ENV} at another"
    )


def _read_tls_files(tls: ClientConfigTLS | None) -> ClientConfigTLS | None:
    """``tls`` with each file read, so a missing or unreadable one is named now."""
    if tls is None:
        return None
    read: dict[str, bytes] = {}
    for name, variable, key in _TLS_FILES:
        source = getattr(tls, name)
        if isinstance(source, Path):
            try:
                read[name] = source.read_bytes()
            except OSError as error:
                raise TemporalConfigError(
                    source=f"{variable} (or the profile's {key})",
                    problem=f"cannot read {source}: {error.strerror}",
                ) from None
    tls = replace(tls, **read)  # type: ignore[arg-type]  # names from _TLS_FILES, all DataSource fields
    if bool(tls.client_cert) != bool(tls.client_private_key):
        raise TemporalConfigError(
            source="TEMPORAL_TLS_CLIENT_CERT_PATH / TEMPORAL_TLS_CLIENT_KEY_PATH",
            problem="a client certificate and its key go together (mTLS): give both or neither",
        )
    return tls
