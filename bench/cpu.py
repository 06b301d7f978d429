"""What each process of a run spent in CPU, per message: why ours is slower when it is.

On a machine with few cores every process of the stack (the Temporal dev server, the
worker, the bot with its Slack stand-in, the bench itself) shares the same cores, so a
message's time to reply is mostly the CPU all of them spend on it, queued behind the
other lanes'. :func:`processes` finds the stack's processes (each runs in its data
directory), :func:`cpu_seconds` reads their user + system time from ``/proc``, and
:func:`per_message` turns two readings into milliseconds per message and process. On a
system without ``/proc`` the figures are empty, not wrong.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Final

TICKS: Final = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100
MODULES: Final = {"harness.worker": "worker", "bot": "bot"}
"""``python -m <module>`` -> its name in the report (the dev server is ``temporal``)."""


def processes(data_dir: Path, scripts: Mapping[str, str] | None = None) -> dict[str, int]:
    """The stack's processes by name (pids of those whose working directory is ``data_dir``),
    and this process as ``bench``; ``scripts``: a script's file name -> its name (a bench's
    own baseline server, started as one of the stack's extra processes)."""
    found = {"bench": os.getpid()}
    proc = Path("/proc")
    if not proc.is_dir():
        return {}
    for entry in proc.iterdir():
        if not entry.name.isdigit():
            continue
        try:
            if Path(os.readlink(entry / "cwd")) != data_dir:
                continue
            words = (entry / "cmdline").read_bytes().split(b"\0")
        except OSError:  # gone, or not ours to read
            continue
        args = [w.decode(errors="replace") for w in words if w]
        if args and Path(args[0]).name == "temporal":
            found.setdefault("temporal", int(entry.name))
        elif len(args) > 2 and args[1] == "-m" and args[2] in MODULES:
            found.setdefault(MODULES[args[2]], int(entry.name))
        elif len(args) > 1 and Path(args[1]).name in (scripts or {}):
            found.setdefault((scripts or {})[Path(args[1]).name], int(entry.name))
    return found


def cpu_seconds(pids: Mapping[str, int]) -> dict[str, float]:
    """User + system CPU seconds of each process so far (one that ended is left out)."""
    seconds = {}
    for name, pid in pids.items():
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        seconds[name] = (int(fields[11]) + int(fields[12])) / TICKS  # utime, stime
    return seconds


def per_message(
    before: Mapping[str, float], after: Mapping[str, float], messages: int
) -> dict[str, float]:
    """Milliseconds of CPU per message and process between two readings, and their ``total``."""
    spent = {
        name: (after[name] - before[name]) * 1000 / messages for name in after if name in before
    }
    return {**{k: round(v, 1) for k, v in spent.items()}, "total": round(sum(spent.values()), 1)}
