"""``python -m harness.hooks``: show the effective chains, or the last audited aborts.

``list [--config FILE]`` registers the built-in plugin and the configuration file (by
default ``HARNESS_HOOKS_CONFIG``) on a fresh manager and prints each point's chain in
run order; it fails, naming every problem, on a file the worker would refuse. Plugins
from ``HARNESS_PLUGINS`` are code, not configuration, and are not loaded here.
``audit [--last N] [--task ID] [--db FILE]`` prints the last audit records.
"""

from __future__ import annotations

import argparse
import sys
from datetime import UTC, datetime
from pathlib import Path

from harness.hooks import POINTS, HookConfigError, HookManager, register_builtin
from harness.hooks.config import load_hooks_config
from harness.hooks.config.plan import executor_kind


def _list(config: Path | None) -> int:
    from harness.providers import system_random
    from harness.store import SqliteArtefactStore

    manager = HookManager()
    loaded = load_hooks_config(config) if config is not None else None
    store = SqliteArtefactStore(Path(":memory:"))  # registered, never called: listing runs nothing
    register_builtin(
        manager, store=store, random=system_random(),
        retry=loaded.retry_defaults() if loaded else None,
    )  # fmt: skip
    if loaded is not None:
        loaded.apply(manager)
    print(f"# chains from the built-in plugin{f' and {config}' if config else ''}")
    for point in POINTS:
        regs = manager.registrations(point)
        if not regs:
            continue
        print(point)
        for reg in regs:
            kind = executor_kind(reg.executor)
            print(f"  {reg.priority:>11}  {reg.name:<48} {kind:<8} {reg.mode}")
    store.close()
    return 0


def _audit(db: Path, last: int, task: str | None) -> int:
    from harness.audit_store import recent_audit

    records = recent_audit(db, last, task_id=task)
    if not records:
        print(f"no audit records in {db}")
    for r in records:
        when = datetime.fromtimestamp(r.at, UTC).strftime("%Y-%m-%d %H:%M:%S")
        print(f"{when}  {r.kind:<15} {r.point:<26} {r.executor}  task={r.task_id or '-'} "
              f"corr={r.correlation_id or '-'}: {r.reason}")  # fmt: skip
    return 0


def main(argv: list[str] | None = None) -> int:
    """Run the command line; returns the exit status."""
    from harness.config import Settings

    settings = Settings()
    parser = argparse.ArgumentParser(prog="python -m harness.hooks")
    sub = parser.add_subparsers(dest="command", required=True)
    listing = sub.add_parser("list", help="print the effective chain of every point")
    listing.add_argument("--config", type=Path, default=settings.hooks_config)
    audit = sub.add_parser("audit", help="print the last audited aborts and failures")
    audit.add_argument("--last", type=int, default=20)
    audit.add_argument("--task", default=None)
    audit.add_argument("--db", type=Path, default=settings.artefact_store_path)
    args = parser.parse_args(argv)
    try:
        if args.command == "list":
            return _list(args.config)
        return _audit(args.db, args.last, args.task)
    except HookConfigError as error:
        print(error, file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
