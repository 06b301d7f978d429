"""Record the replay test's histories: ``python -m tests.support.record_histories [--ref REF]``.

Runs a few representative tasks (a plain message, tool calls, slash commands, a
sub-task, a question answered by a click, a continue-as-new) on a real dev server and a
real worker with the offline model, and writes every run's history to
``tests/fixtures/histories/`` with its payloads *opened* by the codec (the recording's
key is fresh and thrown away; a plain payload passes the codec's decode untouched, so
the replayer needs no key and a reviewer can read what the fixtures hold). ``--ref``
records the code of a git ref (``git archive`` into a temporary directory, this
package's recording modules copied in): the histories of a release, replayed by
``tests/unit/temporal/test_replay.py`` against today's code. ``--only NAME`` records
that scenario alone and keeps every other history as it is (a scenario added after a
release: the index notes what it was recorded from)."""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
OUT = ROOT / "tests" / "fixtures" / "histories"
SUPPORT = ("__init__.py", "record_histories.py", "recording.py", "history.py")
"""This package's modules the recording needs, copied into an exported ref."""


def from_ref(ref: str, out: Path, only: tuple[str, ...] = ()) -> None:
    """Record the code of git ``ref``: exported whole, with this recorder copied in."""
    commit = subprocess.run(
        ["git", "rev-parse", "--short", ref], cwd=ROOT, check=True, capture_output=True, text=True
    ).stdout.strip()
    with tempfile.TemporaryDirectory() as tree:
        archive = subprocess.run(
            ["git", "archive", commit], cwd=ROOT, check=True, capture_output=True
        ).stdout
        subprocess.run(["tar", "-x", "-C", tree], input=archive, check=True)
        for module in SUPPORT:
            shutil.copy(Path(__file__).with_name(module), Path(tree) / "tests" / "support" / module)
        env = {**os.environ, "PYTHONPATH": tree}
        subprocess.run(
            [
                sys.executable,
                "-m",
                "tests.support.record_histories",
                "--out",
                str(out),
                "--label",
                f"{ref} ({commit})",
                *(arg for name in only for arg in ("--only", name)),
            ],
            cwd=tree,
            env=env,
            check=True,
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ref", help="record the code of this git ref instead of the tree")
    parser.add_argument("--out", type=Path, default=OUT)
    parser.add_argument("--label", default="the working tree")
    parser.add_argument(
        "--only", action="append", default=[], help="record this scenario alone (repeatable)"
    )
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    if args.ref:
        from_ref(args.ref, args.out.resolve(), tuple(args.only))
        return
    from tests.support.recording import record  # the harness of this tree (or of --ref's)

    if not args.only:
        for old in args.out.glob("*.json"):
            old.unlink()
    asyncio.run(record(args.out, args.label, tuple(args.only)))


if __name__ == "__main__":
    main()
