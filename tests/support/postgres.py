"""A real PostgreSQL server for the tests, started from the machine's binaries or a wheel's.

Where it comes from, first found wins: ``initdb`` on ``PATH``, the Debian layout
(``/usr/lib/postgresql/<n>/bin``), or the ``pgserver`` wheel the dev extra installs
(it bundles the server), so a fresh machine needs nothing installed by hand. PostgreSQL
refuses to run as root: as root, the cluster belongs to the ``postgres`` user (or
``nobody``) and every command runs as that user (``runuser``). It listens on loopback
only, on a free port, trusts local connections, and is stopped with ``pg_ctl stop``.
"""

from __future__ import annotations

import contextlib
import importlib.util
import os
import pwd
import shutil
import socket
import subprocess
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path


def binaries() -> Path:
    """The directory holding ``initdb``, ``pg_ctl`` and ``postgres``."""
    found = shutil.which("initdb")
    candidates = [Path(found).resolve().parent] if found else []
    candidates += sorted(Path("/usr/lib/postgresql").glob("*/bin"), reverse=True)
    spec = importlib.util.find_spec("pgserver")
    if spec is not None and spec.origin is not None:
        candidates.append(Path(spec.origin).parent / "pginstall" / "bin")
    for directory in candidates:
        if (directory / "initdb").is_file() and (directory / "pg_ctl").is_file():
            return directory
    raise RuntimeError(
        "no PostgreSQL server binaries: install the dev extra (pgserver) "
        "or the machine's postgresql package"
    )


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _run_as() -> str | None:
    """The user to run the server as when we are root (PostgreSQL refuses root)."""
    if os.geteuid() != 0:
        return None
    for name in ("postgres", "nobody"):
        with contextlib.suppress(KeyError):
            pwd.getpwnam(name)
            return name
    raise RuntimeError("running as root with neither a postgres nor a nobody user")


@dataclass(frozen=True)
class PostgresServer:
    """A running cluster: ``url(database)`` names one of its databases."""

    bin: Path
    data: Path
    port: int
    user: str | None

    def url(self, database: str = "postgres") -> str:
        return f"postgresql://postgres@127.0.0.1:{self.port}/{database}"

    def _cmd(self, *args: str) -> list[str]:
        return ["runuser", "-u", self.user, "--", *args] if self.user else list(args)

    def create_database(self, name: str) -> str:
        """Create database ``name`` (a fresh one per test that needs isolation); its URL."""
        command = self._cmd(
            str(self.bin / "createdb"),
            "-h",
            "127.0.0.1",
            "-p",
            str(self.port),
            "-U",
            "postgres",
            name,
        )
        for attempt in range(5):  # template1 busy (a backend still closing) is a passing state
            done = subprocess.run(command, capture_output=True, text=True)
            if done.returncode == 0:
                return self.url(name)
            time.sleep(0.2 * (attempt + 1))
        raise RuntimeError(f"createdb {name} failed: {done.stderr.strip()}")

    def stop(self) -> None:
        subprocess.run(
            self._cmd(str(self.bin / "pg_ctl"), "stop", "-D", str(self.data), "-m", "immediate"),
            capture_output=True,
        )


def start(base: Path) -> PostgresServer:
    """Initialise a cluster under ``base`` and start it; the caller stops it."""
    bin_dir, user = binaries(), _run_as()
    base.mkdir(parents=True, exist_ok=True)
    data = base / "pgdata"
    if user is not None:
        entry = pwd.getpwnam(user)
        os.chown(base, entry.pw_uid, entry.pw_gid)
        for parent in base.parents:  # the user must be able to reach base
            if parent == Path("/"):
                break
            parent.chmod(parent.stat().st_mode | 0o011)
    server = PostgresServer(bin=bin_dir, data=data, port=_free_port(), user=user)
    subprocess.run(
        server._cmd(
            str(bin_dir / "initdb"),
            "-D",
            str(data),
            "-U",
            "postgres",
            "-A",
            "trust",
            "-E",
            "UTF8",
            "--no-sync",
        ),
        check=True,
        capture_output=True,
    )
    options = f"-c listen_addresses=127.0.0.1 -p {server.port} -k {base} -c fsync=off"
    subprocess.run(
        server._cmd(
            str(bin_dir / "pg_ctl"),
            "start",
            "-w",
            "-D",
            str(data),
            "-l",
            str(base / "server.log"),
            "-o",
            options,
        ),
        check=True,
        capture_output=True,
    )
    return server


@contextlib.contextmanager
def running(base: Path) -> Iterator[PostgresServer]:
    """A server for the ``with`` block."""
    server = start(base)
    try:
        yield server
    finally:
        server.stop()
