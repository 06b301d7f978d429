"""TLS for remote executors over HTTPS: a client certificate (mTLS) and a private CA bundle.

Only building the ``ssl.SSLContext`` from files, once, when the hooks file is loaded, so
a missing file or a key that does not match its certificate fails the configuration,
not the first call. The HTTP clients take the context: :class:`harness.http.AiohttpClient`
(JSON-RPC) and :class:`~harness.hooks.remote.mcp_connection.McpConnection` (MCP over
streamable HTTP).
"""

from __future__ import annotations

import ssl
from pathlib import Path


def client_context(
    *, cert: Path | None = None, key: Path | None = None, ca: Path | None = None
) -> ssl.SSLContext:
    """A client context that verifies the server (against ``ca``, else the system store).

    Args:
        cert: PEM client certificate (chain) presented to a server that asks for one; it
            may hold the private key too.
        key: PEM private key of ``cert`` when it is a separate file (unencrypted: a
            worker has nobody to type a passphrase).
        ca: PEM bundle of the CAs trusted to sign the server's certificate, instead of
            the system's.

    Returns:
        The context, TLS 1.2 at least, hostname checked.

    Raises:
        ValueError: ``key`` without ``cert``.
        OSError: a file cannot be read, or is not what it should be (``ssl.SSLError``
            is an ``OSError``): a PEM that does not parse, a key that does not match.
    """
    if key is not None and cert is None:
        raise ValueError("a client key needs its certificate (tls_client_cert)")
    context = ssl.create_default_context(cafile=str(ca) if ca is not None else None)
    context.minimum_version = ssl.TLSVersion.TLSv1_2
    if cert is not None:
        # The password callback refuses, so an encrypted key fails here instead of
        # prompting on the worker's terminal.
        context.load_cert_chain(
            str(cert), str(key) if key is not None else None, password=_no_password
        )
    return context


def _no_password() -> str:
    raise ValueError("encrypted private keys are not supported; give an unencrypted PEM key")
