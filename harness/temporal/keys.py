"""Payload keys: what ``HARNESS_PAYLOAD_KEY`` holds, how a key gets its id, and a CLI to make one.

A key is 32 random bytes written as standard base64. Its id is derived from it (the
first 8 bytes of its SHA-256, hex), so operators never invent ids and every process
given the same key agrees on it. Which key encrypts and how is :mod:`harness.temporal.codec`;
nothing here talks to Temporal::

    python -m harness.temporal.keys new          print a fresh key
    python -m harness.temporal.keys ensure PATH  create PATH (0600) with a new key unless it exists
    python -m harness.temporal.keys ids          the configured keys' ids, the encrypting one first
"""

from __future__ import annotations

import argparse
import base64
import binascii
import hashlib
import os
import secrets
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Final, final

from harness.programs import program
from harness.secret_values import split_keys
from harness.temporal.errors import PayloadKeyError

if TYPE_CHECKING:
    from harness.config import Settings

KEY_BYTES: Final = 32
"""AES-256 takes a 32-byte key."""
ENV_VAR: Final = "HARNESS_PAYLOAD_KEY"
FILE_ENV_VAR: Final = "HARNESS_PAYLOAD_KEY_FILE"


@final
@dataclass(frozen=True, slots=True)
class PayloadKey:
    """One AES-256 key and its derived id; ``repr`` shows the id only, so a log never holds it."""

    id: str
    secret: bytes = field(repr=False)

    @classmethod
    def from_bytes(cls, secret: bytes) -> PayloadKey:
        """The key of 32 raw bytes.

        Raises:
            ValueError: ``secret`` is not 32 bytes long.
        """
        if len(secret) != KEY_BYTES:
            raise ValueError(f"a payload key is {KEY_BYTES} bytes, not {len(secret)}")
        return cls(id=key_id(secret), secret=secret)


def key_id(secret: bytes) -> str:
    """The id recorded on every payload ``secret`` encrypts: 16 hex digits of its SHA-256.

    A digest, not a counter, so nobody has to keep ids unique by hand; 64 bits tell
    a handful of keys apart and say nothing usable about the key.
    """
    return hashlib.sha256(secret).digest()[:8].hex()


def new_key() -> str:
    """A fresh random key, base64, as ``HARNESS_PAYLOAD_KEY`` and the key file take it."""
    return base64.b64encode(secrets.token_bytes(KEY_BYTES)).decode("ascii")


def parse_keys(text: str, *, source: str = ENV_VAR) -> tuple[PayloadKey, ...]:
    """The keys in ``text``, the encrypting one first; a key listed twice counts once.

    Args:
        text: comma- or whitespace-separated base64 keys.
        source: where ``text`` came from, for the error message.

    Raises:
        PayloadKeyError: no key, or one that is not base64 of 32 bytes (named by its
            position, never by its value).
    """
    items = split_keys(text)
    if not items:
        raise PayloadKeyError(source=source, problem=f"holds no key; {_how()}")
    keys: dict[str, PayloadKey] = {}
    for n, item in enumerate(items, 1):
        where = f"key {n} of {len(items)}"
        try:
            raw = base64.b64decode(item, validate=True)
        except (binascii.Error, ValueError):
            raise PayloadKeyError(
                source=source, problem=f"{where} is not base64; {_how()}"
            ) from None
        if len(raw) != KEY_BYTES:
            problem = f"{where} decodes to {len(raw)} bytes, not {KEY_BYTES}; {_how()}"
            raise PayloadKeyError(source=source, problem=problem)
        key = PayloadKey.from_bytes(raw)
        keys.setdefault(key.id, key)
    return tuple(keys.values())


def load_keys(settings: Settings) -> tuple[PayloadKey, ...]:
    """The configured keys: ``HARNESS_PAYLOAD_KEY``, or else the key file.

    There is no unencrypted fallback: a process with no key refuses to talk to
    Temporal rather than store plain text (DESIGN, "Nothing readable at rest").

    Raises:
        PayloadKeyError: neither is set, the file cannot be read, or a key is malformed.
    """
    if settings.payload_key is not None and settings.payload_key.get_secret_value().strip():
        return parse_keys(settings.payload_key.get_secret_value(), source=ENV_VAR)
    path = settings.payload_key_path
    try:
        text = path.read_text()
    except FileNotFoundError:
        problem = (
            f"not set, and there is no key file {path} ({FILE_ENV_VAR}); "
            f"create one with: {program('harness.temporal.keys')} ensure {path}"
        )
        raise PayloadKeyError(source=ENV_VAR, problem=problem) from None
    except OSError as error:
        raise PayloadKeyError(
            source=f"{FILE_ENV_VAR} {path}", problem=f"cannot be read: {error.strerror}"
        ) from None
    return parse_keys(text, source=f"{FILE_ENV_VAR} {path}")


def ensure_key_file(path: Path) -> bool:
    """Create ``path`` holding a fresh key, readable by its owner only, unless it exists.

    Returns:
        ``True`` if it was created; ``False`` if a file was there (left untouched).
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        # O_EXCL: two processes starting at once cannot both write, and one never truncates
        # the other's key (a lost key is every stored payload lost).
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        return False
    with os.fdopen(fd, "w") as file:
        os.fchmod(fd, 0o600)  # the mode given to open is narrowed by the umask, never widened
        file.write(new_key() + "\n")
    return True


def _how() -> str:
    """How to make a key, naming this interpreter (the hint works with no venv active)."""
    return f"make one with: {program('harness.temporal.keys')} new"


def main(argv: Sequence[str] | None = None) -> int:
    """The ``new``, ``ensure`` and ``ids`` commands (see the module docstring)."""
    parser = argparse.ArgumentParser(
        prog="python -m harness.temporal.keys", description="Payload keys for HARNESS_PAYLOAD_KEY."
    )
    commands = parser.add_subparsers(dest="command", required=True)
    commands.add_parser("new", help="print a fresh base64 key")
    ensure = commands.add_parser("ensure", help="create PATH with a fresh key unless it exists")
    ensure.add_argument("path", type=Path)
    commands.add_parser("ids", help="print the configured keys' ids, the encrypting one first")
    args = parser.parse_args(argv)
    try:
        if args.command == "new":
            print(new_key())
        elif args.command == "ensure":
            created = ensure_key_file(args.path)
            ids = ", ".join(k.id for k in parse_keys(args.path.read_text(), source=str(args.path)))
            print(
                f"created {args.path} (key id {ids})"
                if created
                else f"{args.path} exists (key ids {ids}); left as it is"
            )
        else:
            from harness.config import Settings  # here: only this command reads the settings

            for n, key in enumerate(load_keys(Settings())):
                print(f"{key.id} {'encrypts and decrypts' if n == 0 else 'decrypts'}")
    except PayloadKeyError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    except OSError as error:  # ensure: a parent that is a file, a directory we may not write
        print(f"error: {error.filename}: {error.strerror}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
