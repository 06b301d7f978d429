"""A loopback TLS endpoint in front of the dev server: what a secured Temporal cluster looks like.

:func:`make_pki` makes a throwaway certificate authority with a server certificate (for
``localhost`` and ``127.0.0.1``) and a client certificate, with ``cryptography``, at test
time. :class:`TlsProxy` terminates TLS (ALPN ``h2``, as gRPC needs), optionally requires a
client certificate signed by that authority (mTLS), and forwards the bytes to the dev
server's plain gRPC port. It knows nothing of gRPC: what it proves is the TLS handshake.
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime
import ipaddress
import ssl
from dataclasses import dataclass
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID


@dataclass(frozen=True)
class Pki:
    """PEM files of a fresh authority and the certificates it signed."""

    ca: Path
    server_cert: Path
    server_key: Path
    client_cert: Path
    client_key: Path


def _key() -> ec.EllipticCurvePrivateKey:
    return ec.generate_private_key(ec.SECP256R1())


def _pem_key(key: ec.EllipticCurvePrivateKey) -> bytes:
    return key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    )


def _cert(
    subject: str,
    key: ec.EllipticCurvePrivateKey,
    issuer: x509.Name | None = None,
    signer: ec.EllipticCurvePrivateKey | None = None,
    *,
    ca: bool = False,
    usage: x509.ObjectIdentifier | None = None,
) -> x509.Certificate:
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, subject)])
    now = datetime.datetime.now(datetime.UTC)
    builder = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(issuer or name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(x509.BasicConstraints(ca=ca, path_length=None), critical=True)
    )
    if ca:
        builder = builder.add_extension(
            x509.KeyUsage(
                digital_signature=True,
                key_cert_sign=True,
                crl_sign=True,
                content_commitment=False,
                key_encipherment=False,
                data_encipherment=False,
                key_agreement=False,
                encipher_only=False,
                decipher_only=False,
            ),
            critical=True,
        )
    if usage is not None:
        builder = builder.add_extension(x509.ExtendedKeyUsage([usage]), critical=False)
    if usage == ExtendedKeyUsageOID.SERVER_AUTH:
        builder = builder.add_extension(
            x509.SubjectAlternativeName(
                [x509.DNSName("localhost"), x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]
            ),
            critical=False,
        )
    return builder.sign(signer or key, hashes.SHA256())


def make_pki(directory: Path) -> Pki:
    """A new authority, a server certificate for ``localhost``/``127.0.0.1`` and a client one."""
    ca_key, server_key, client_key = _key(), _key(), _key()
    ca = _cert("tiny-harness test CA", ca_key, ca=True)
    server = _cert(
        "localhost", server_key, ca.subject, ca_key, usage=ExtendedKeyUsageOID.SERVER_AUTH
    )
    client = _cert(
        "tiny-harness worker", client_key, ca.subject, ca_key, usage=ExtendedKeyUsageOID.CLIENT_AUTH
    )
    files = {
        "ca": ca.public_bytes(serialization.Encoding.PEM),
        "server_cert": server.public_bytes(serialization.Encoding.PEM),
        "server_key": _pem_key(server_key),
        "client_cert": client.public_bytes(serialization.Encoding.PEM),
        "client_key": _pem_key(client_key),
    }
    for name, data in files.items():
        (directory / f"{name}.pem").write_bytes(data)
    return Pki(**{name: directory / f"{name}.pem" for name in files})


class TlsProxy:
    """TLS on a loopback port, plain TCP to ``target``; mTLS with ``require_client_cert``."""

    def __init__(self, target: str, pki: Pki, *, require_client_cert: bool = False) -> None:
        host, _, port = target.rpartition(":")
        self.target = (host, int(port))
        self.context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        self.context.load_cert_chain(pki.server_cert, pki.server_key)
        self.context.set_alpn_protocols(["h2"])  # gRPC over TLS negotiates HTTP/2 by ALPN
        if require_client_cert:
            self.context.verify_mode = ssl.CERT_REQUIRED
            self.context.load_verify_locations(pki.ca)
        self._server: asyncio.Server | None = None
        self._pipes: set[asyncio.Task[None]] = set()

    @property
    def address(self) -> str:
        assert self._server is not None
        return f"127.0.0.1:{self._server.sockets[0].getsockname()[1]}"

    async def __aenter__(self) -> TlsProxy:
        # The handshake runs before _serve: a refused client never reaches the dev server.
        self._server = await asyncio.start_server(
            self._serve, "127.0.0.1", 0, ssl=self.context, ssl_handshake_timeout=5
        )
        return self

    async def __aexit__(self, *exc: object) -> None:
        assert self._server is not None
        self._server.close()
        for pipe in list(self._pipes):
            pipe.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await asyncio.gather(*self._pipes, return_exceptions=True)
        await self._server.wait_closed()

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        up_reader, up_writer = await asyncio.open_connection(*self.target)
        pipes = [
            asyncio.create_task(self._pipe(reader, up_writer)),
            asyncio.create_task(self._pipe(up_reader, writer)),
        ]
        self._pipes.update(pipes)
        try:
            await asyncio.gather(*pipes, return_exceptions=True)
        finally:
            self._pipes.difference_update(pipes)
            for w in (writer, up_writer):
                w.close()

    @staticmethod
    async def _pipe(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        with contextlib.suppress(ConnectionError, ssl.SSLError):
            while data := await reader.read(65536):
                writer.write(data)
                await writer.drain()
        with contextlib.suppress(OSError, RuntimeError):
            writer.write_eof()
