"""One process of a test stack: started with its own log, waited for until it serves, stopped.

The mechanics under :mod:`bot.testing.stack`, which decides what runs. "Ready" is what
the process itself says (its ``/readyz``) where it has one, else a listening port: a
process that is up but cannot serve yet is not ready. A failure names the process and
carries the end of its log, because that file goes away with the stack's directory.
"""

from __future__ import annotations

import contextlib
import json
import socket
import subprocess
import time
import urllib.error
import urllib.request
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Final, final

from harness.errors import HarnessError

TAIL_LINES: Final = 30
"""How much of a failed process's log its error carries."""
SETTLE_SECONDS: Final = 3.0
"""After one process exits, how long the others may take to exit too or be ready before the
error is made: a bad hooks file stops the worker and the bot, and both are named, in start
order, whichever noticed first."""
STOP_SECONDS: Final = 10.0
"""How long a process may take to stop after SIGTERM before it is killed."""
# Readiness is asked on loopback: a proxy from the caller's environment must not answer it.
_OPENER: Final = urllib.request.build_opener(urllib.request.ProxyHandler({}))


class StackStartError(HarnessError):
    """A process of the stack exited before it was ready, or was not ready in time.

    Args:
        part: the process to look at first (``temporal``, ``worker``, ``bot``, …).
        problem: what happened to it.
        logs: ``(name, log file)`` of each process concerned, ``part`` first; the end of
            each file is copied into the message (the files may be gone when it is read).
    """

    def __init__(self, *, part: str, problem: str, logs: Sequence[tuple[str, Path]] = ()) -> None:
        self.part = part
        self.tails = {name: tail(path) for name, path in logs}
        shown = [
            f"--- the end of the {name}'s log ({path}) ---\n{self.tails[name] or '(empty)'}"
            for name, path in logs
        ]
        super().__init__("\n".join([f"the stack's {part} {problem}", *shown]))

    @property
    def retryable(self) -> bool:
        """No: what stopped the process (a setting, a hooks file, a port) has to change first."""
        return False


@final
@dataclass
class Part:
    """A started process: its name, its log, and how to tell that it serves."""

    name: str
    proc: subprocess.Popen[bytes]
    log: Path
    port: int | None = None
    """Ready once something listens here (when there is no ``ready_url``)."""
    ready_url: str | None = None
    """Ready once this answers 200."""
    ready: bool = False
    reason: str = "not asked yet"
    """Why it was not ready when last asked."""

    def check(self) -> bool:
        """Ask once whether it serves; remembers the answer and, if not, why not."""
        if self.ready_url is not None:
            self.ready = self._ready_by_url(self.ready_url)
        elif self.port is not None:
            with (
                contextlib.suppress(OSError),
                socket.create_connection(("127.0.0.1", self.port), 0.2),
            ):
                self.ready = True
            self.reason = "" if self.ready else f"nothing listens on 127.0.0.1:{self.port}"
        else:
            self.ready = True
        return self.ready

    def _ready_by_url(self, url: str) -> bool:
        try:
            with _OPENER.open(url, timeout=2) as response:
                return int(response.status) == 200
        except urllib.error.HTTPError as error:
            with contextlib.suppress(ValueError, AttributeError, OSError):
                self.reason = f"{url}: {json.loads(error.read()).get('reason', error.code)}"
                return False
            self.reason = f"{url} answered {error.code}"
        except OSError:
            self.reason = f"{url} does not answer yet"
        return False


def spawn(
    name: str,
    command: Sequence[str],
    *,
    env: Mapping[str, str],
    cwd: Path,
    log: Path,
    port: int | None = None,
    ready_url: str | None = None,
) -> Part:
    """Start ``command`` with stdout and stderr appended to ``log``."""
    with log.open("ab") as out:  # the child keeps its own descriptor
        proc = subprocess.Popen(
            list(command), env=dict(env), cwd=cwd, stdout=out, stderr=subprocess.STDOUT
        )
    return Part(name, proc, log, port=port, ready_url=ready_url)


def wait_ready(parts: Sequence[Part], patience: float) -> None:
    """Wait until every part is ready, failing on the first that exits.

    Raises:
        StackStartError: a part exited (every part that exited by then is named, in start
            order), or one was still not ready after ``patience`` seconds.
    """
    deadline = time.monotonic() + patience
    while True:
        if any(part.proc.poll() is not None for part in parts):
            _settle(parts)
            _raise_exited(parts)
        waiting = [part for part in parts if not part.ready and not part.check()]
        if not waiting:
            return
        if time.monotonic() > deadline:
            late = waiting[0]
            raise StackStartError(
                part=late.name,
                logs=[(late.name, late.log)],
                problem=f"was not ready within {patience:.0f} s ({late.reason}); if the "
                "machine is only slow, give it longer (ready_timeout)",
            )
        time.sleep(0.1)


def _settle(parts: Sequence[Part]) -> None:
    """Wait until every part has exited or is ready, for :data:`SETTLE_SECONDS` at most."""
    deadline = time.monotonic() + SETTLE_SECONDS
    while time.monotonic() < deadline:
        if all(p.proc.poll() is not None or p.ready or p.check() for p in parts):
            return
        time.sleep(0.1)


def _raise_exited(parts: Sequence[Part]) -> None:
    exited = [part for part in parts if part.proc.poll() is not None]
    first, *others = exited
    also = "; ".join(f"the {p.name} exited too, with status {p.proc.returncode}" for p in others)
    problem = f"exited with status {first.proc.returncode} before it was ready"
    raise StackStartError(
        part=first.name,
        problem=problem + (f" ({also})" if also else ""),
        logs=[(p.name, p.log) for p in exited],
    )


def stop_all(parts: Sequence[Part], patience: float = STOP_SECONDS) -> None:
    """SIGTERM every part still running, wait ``patience`` seconds for each, then kill it."""
    for part in reversed(parts):
        if part.proc.poll() is None:
            part.proc.terminate()
    for part in reversed(parts):
        try:
            part.proc.wait(patience)
        except subprocess.TimeoutExpired:
            part.proc.kill()
            part.proc.wait()


def tail(path: Path, lines: int = TAIL_LINES) -> str:
    """The last ``lines`` lines of ``path`` ("" when it does not exist)."""
    try:
        text = path.read_text(errors="replace")
    except OSError:
        return ""
    return "\n".join(text.splitlines()[-lines:])
