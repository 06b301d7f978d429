"""A throwaway PKI for mTLS tests: one CA, a server certificate for 127.0.0.1, a client's.

Made at test time with ``cryptography`` (already a dependency of the payload codec);
nothing is committed. ``server_context`` is what a real HTTPS server requiring client
certificates uses (``ssl.CERT_REQUIRED``).
"""

from __future__ import annotations

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
    """Paths of the PEM files written by :func:`make_pki`."""

    ca: Path
    server_cert: Path
    server_key: Path
    client_cert: Path
    client_key: Path
    other_ca: Path
    """A second CA, unrelated: the server's certificate does not verify against it."""
    stranger_cert: Path
    stranger_key: Path
    """A client certificate signed by ``other_ca``: the server must refuse it."""
    client_key_encrypted: Path
    """``client_key`` under a passphrase, which a worker cannot type."""

    def server_context(self) -> ssl.SSLContext:
        """An HTTPS server context that requires a client certificate signed by ``ca``."""
        context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH, cafile=str(self.ca))
        context.verify_mode = ssl.CERT_REQUIRED
        context.load_cert_chain(str(self.server_cert), str(self.server_key))
        return context


def _key() -> ec.EllipticCurvePrivateKey:
    return ec.generate_private_key(ec.SECP256R1())


def _write_key(key: ec.EllipticCurvePrivateKey, path: Path) -> Path:
    path.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
    )
    return path


def _write_cert(cert: x509.Certificate, path: Path) -> Path:
    path.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    return path


def _ca(name: str) -> tuple[x509.Certificate, ec.EllipticCurvePrivateKey]:
    key = _key()
    subject = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, name)])
    now = datetime.datetime.now(datetime.UTC)
    cert = (
        x509.CertificateBuilder()
        .subject_name(subject)
        .issuer_name(subject)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
        .add_extension(
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
        .add_extension(x509.SubjectKeyIdentifier.from_public_key(key.public_key()), critical=False)
        .sign(key, hashes.SHA256())
    )
    return cert, key


def _leaf(
    name: str, ca: tuple[x509.Certificate, ec.EllipticCurvePrivateKey], *, server: bool
) -> tuple[x509.Certificate, ec.EllipticCurvePrivateKey]:
    key = _key()
    ca_cert, ca_key = ca
    now = datetime.datetime.now(datetime.UTC)
    builder = (
        x509.CertificateBuilder()
        .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, name)]))
        .issuer_name(ca_cert.subject)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
        .add_extension(
            x509.ExtendedKeyUsage(
                [ExtendedKeyUsageOID.SERVER_AUTH if server else ExtendedKeyUsageOID.CLIENT_AUTH]
            ),
            critical=False,
        )
        .add_extension(
            x509.AuthorityKeyIdentifier.from_issuer_public_key(ca_key.public_key()),
            critical=False,
        )
    )
    if server:
        builder = builder.add_extension(
            x509.SubjectAlternativeName(
                [x509.IPAddress(ipaddress.ip_address("127.0.0.1")), x509.DNSName("localhost")]
            ),
            critical=False,
        )
    return builder.sign(ca_key, hashes.SHA256()), key


def make_pki(directory: Path) -> Pki:
    """Write a CA, a server and a client certificate (and a stranger's) under ``directory``."""
    directory.mkdir(parents=True, exist_ok=True)
    ca = _ca("tiny-harness test CA")
    other = _ca("some other CA")
    server = _leaf("127.0.0.1", ca, server=True)
    client = _leaf("tiny-harness worker", ca, server=False)
    stranger = _leaf("stranger", other, server=False)
    return Pki(
        ca=_write_cert(ca[0], directory / "ca.pem"),
        server_cert=_write_cert(server[0], directory / "server.pem"),
        server_key=_write_key(server[1], directory / "server.key"),
        client_cert=_write_cert(client[0], directory / "client.pem"),
        client_key=_write_key(client[1], directory / "client.key"),
        other_ca=_write_cert(other[0], directory / "other-ca.pem"),
        stranger_cert=_write_cert(stranger[0], directory / "stranger.pem"),
        stranger_key=_write_key(stranger[1], directory / "stranger.key"),
        client_key_encrypted=_write_encrypted(client[1], directory / "client-encrypted.key"),
    )


def _write_encrypted(key: ec.EllipticCurvePrivateKey, path: Path) -> Path:
    path.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.BestAvailableEncryption(b"passphrase"),
        )
    )
    return path
