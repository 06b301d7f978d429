"""``python -m harness.hooks``: show the effective chains, or the last audited aborts.

``list [--config FILE]`` registers what the worker registers (the built-in plugin, the
code plugins of ``HARNESS_PLUGINS`` such as the commands' role guard, and the
configuration file, by default ``HARNESS_HOOKS_CONFIG``) on a fresh manager and prints
each point's chain in run order; it fails, naming every problem, on a file or plugin
path the worker would refuse.
``audit [--last N] [--task ID] [--database URL]`` prints the last audit records of every
worker sharing the database (``HARNESS_DATABASE_URL``, else this host's SQLite file).
``conformance --jsonrpc URL | --mcp CMD`` runs the conformance kit against an executor
(:mod:`harness.hook_server.conformance`).
``stats [--since 1h] [--database URL]`` merges every worker's executor stats (``[observability]
executor_stats``) and prints one line per executor, the slowest p99 first.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import re
import sys
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Final

from harness.config import Settings
from harness.hooks import POINTS, HookConfigError
from harness.hooks.decisions import DECISIONS
from harness.hooks.executor import executor_kind
from harness.hooks.latency import ExecutorSummary, summarise
from harness.hooks.schema import SCHEMA_VERSION
from harness.hooks.schema import write as write_schemas
from harness.storage import DatabaseError

EDGE_PRIORITY: Final = 2**62
"""Priorities this far out mean "before/after everything" (the commands' identity seal
registers at ±2**62); the 19-digit number tells a reader nothing, so the listing says
``first`` or ``last`` instead."""

SIGPIPE_STATUS: Final = 141
"""What a shell reports for a process killed by SIGPIPE (128 + 13), as ``yes | head`` does."""


def priority_label(priority: int) -> str:
    """How the listing shows ``priority``: the number, or ``first``/``last`` at the edges.

    Args:
        priority: a registration's priority.

    Returns:
        The text of the priority column.
    """
    if priority <= -EDGE_PRIORITY:
        return "first"
    if priority >= EDGE_PRIORITY:
        return "last"
    return str(priority)


async def _list(settings: Settings, config: Path | None) -> int:
    from harness.hooks.pure import is_pure
    from harness.plugins import effective_manager

    async with effective_manager(settings, config=config) as manager:
        sources = ["the built-in plugin", *settings.plugins, *([str(config)] if config else [])]
        print(f"# chains from {', '.join(sources)}")
        for point in POINTS:
            regs = manager.registrations(point)
            if not regs:
                continue
            print(point)
            for reg in regs:
                kind = executor_kind(reg.executor)
                pure = " pure" if is_pure(reg.executor) else ""  # docs/hooks/pure.md
                print(
                    f"  {priority_label(reg.priority):>11}  {reg.name:<48} {kind:<8} {reg.mode}"
                    + pure
                )
    return 0


async def _audit(settings: Settings, database: str, last: int, task: str | None) -> int:
    from harness.storage import database_url
    from harness.storage.audit import recent_audit

    url = database_url(database, settings.artefact_store_path) if database else settings.database
    records = await recent_audit(url, last, task_id=task)
    if not records:
        print(f"no audit records in {url.render_as_string(hide_password=True)}")
    for r in records:
        when = datetime.fromtimestamp(r.at, UTC).strftime("%Y-%m-%d %H:%M:%S")
        print(
            f"{when}  {r.kind:<15} {r.point:<26} {r.executor}  task={r.task_id or '-'} "
            f"corr={r.correlation_id or '-'}: {r.reason}"
        )
    return 0


_DURATION: Final = re.compile(r"(\d+(?:\.\d+)?)([smhd])")
_UNIT_SECONDS: Final = {"s": 1, "m": 60, "h": 3600, "d": 86400}


def duration(text: str) -> float:
    """Seconds in ``30s``, ``15m``, ``1h`` or ``7d`` (what ``--since`` takes).

    Raises:
        argparse.ArgumentTypeError: anything else, saying what it takes.
    """
    found = _DURATION.fullmatch(text.strip())
    if found is None:
        raise argparse.ArgumentTypeError(f"{text!r}: give a number and s, m, h or d (e.g. 1h)")
    return float(found.group(1)) * _UNIT_SECONDS[found.group(2)]


def stats_lines(summaries: list[ExecutorSummary]) -> list[str]:
    """The table ``stats`` prints: a header, then one line per executor as given (slowest first).

    Args:
        summaries: every worker's rows merged per executor (``latency.summarise``).
    """
    wide = (
        max((len(s.key[0]) for s in summaries), default=0),
        max((len(s.key[1]) for s in summaries), default=0),
    )
    at, by = max(wide[0], len("point")), max(wide[1], len("executor"))
    header = (
        f"{'point':<{at}} {'executor':<{by}} {'kind':<7} {'calls':>7} "
        + " ".join(f"{word:>{max(len(word), 5)}}" for word in DECISIONS)
        + f" {'p50 ms':>9} {'p95 ms':>9} {'p99 ms':>9} {'max ms':>9}"
    )
    lines = [header]
    for s in summaries:
        point, name, kind = s.key
        agg = s.aggregate
        counts = " ".join(f"{s.count(word):>{max(len(word), 5)}}" for word in DECISIONS)
        quantiles = (agg.percentile(0.5), agg.percentile(0.95), agg.percentile(0.99), agg.max_ms)
        times = " ".join(f"{value:>9.2f}" for value in quantiles)
        lines.append(f"{point:<{at}} {name:<{by}} {kind:<7} {agg.calls:>7} {counts} {times}")
    return lines


async def _stats(settings: Settings, database: str, since: float) -> int:
    from harness.storage import database_url
    from harness.storage.executor_stats import executor_stats

    url = database_url(database, settings.artefact_store_path) if database else settings.database
    start = time.time() - since
    summaries = summarise(await executor_stats(url, start))
    where = url.render_as_string(hide_password=True)
    if not summaries:
        print(
            f"no executor stats since {_when(start)} in {where} (is [observability] "
            "executor_stats = true in the workers' hooks file?)"
        )
        return 0
    workers = len(set().union(*(s.workers for s in summaries)))
    print(f"# executor stats since {_when(start)} UTC, {workers} worker(s), {where}")
    for line in stats_lines(summaries):
        print(line)
    return 0


def _when(at: float) -> str:
    return datetime.fromtimestamp(at, UTC).strftime("%Y-%m-%d %H:%M:%S")


def _conformance(argv: list[str]) -> int:
    from harness.hook_server.conformance.runner import add_arguments, run_command

    parser = argparse.ArgumentParser(prog="python -m harness.hooks conformance")
    add_arguments(parser)
    return run_command(parser.parse_args(argv))


def main(argv: list[str] | None = None) -> int:
    """Run the command line; returns the exit status."""
    settings = Settings()
    parser = argparse.ArgumentParser(prog="python -m harness.hooks")
    sub = parser.add_subparsers(dest="command", required=True)
    listing = sub.add_parser("list", help="print the effective chain of every point")
    listing.add_argument("--config", type=Path, default=settings.hooks_config)
    audit = sub.add_parser("audit", help="print the last audited aborts and failures")
    audit.add_argument("--last", type=int, default=20)
    audit.add_argument("--task", default=None)
    audit.add_argument(
        "--database",
        default="",
        metavar="URL",
        help="postgresql://… or sqlite:///file; default: the worker's",
    )
    stats = sub.add_parser("stats", help="per-executor calls, decisions and latency percentiles")
    stats.add_argument(
        "--since",
        type=duration,
        default=3600.0,
        metavar="DURATION",
        help="how far back: 30s, 15m, 1h (default), 7d",
    )
    stats.add_argument(
        "--database",
        default="",
        metavar="URL",
        help="postgresql://… or sqlite:///file; default: the worker's",
    )
    schema = sub.add_parser("schema", help="write the JSON Schemas remote executors follow")
    schema.add_argument(
        "--out",
        type=Path,
        required=True,
        metavar="DIR",
        help=f"where to write them (the repository keeps schemas/{SCHEMA_VERSION})",
    )
    # The kit (and the MCP SDK, ~0.5 s) loads only for its own command: its options are its
    # parser's, which also answers ``conformance --help``.
    sub.add_parser(
        "conformance", help="run the conformance kit against an executor", add_help=False
    )
    args, rest = parser.parse_known_args(argv)
    if args.command == "conformance":
        return _conformance(rest)
    if rest:
        parser.error(f"unrecognized arguments: {' '.join(rest)}")
    try:
        if args.command == "schema":
            written = write_schemas(args.out)
            print(f"wrote {len(written)} schemas ({SCHEMA_VERSION}) under {args.out}")
            status = 0
        elif args.command == "list":
            status = asyncio.run(_list(settings, args.config))
        elif args.command == "stats":
            status = asyncio.run(_stats(settings, args.database, args.since))
        else:
            status = asyncio.run(_audit(settings, args.database, args.last, args.task))
        sys.stdout.flush()  # inside the try: a closed pipe surfaces here, not at exit
    except (HookConfigError, DatabaseError) as error:
        print(error, file=sys.stderr)
        return 2
    except BrokenPipeError:
        # The reader (``| head``) has what it wanted: stop quietly, like coreutils.
        # Point stdout at devnull so the interpreter's final flush does not complain
        # (the recipe in the Python docs, "Note on SIGPIPE").
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return SIGPIPE_STATUS
    return status


if __name__ == "__main__":
    sys.exit(main())
