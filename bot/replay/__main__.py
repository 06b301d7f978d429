"""``python -m bot.replay FILE``: replay a recording against this code and say what changed.

By default it starts its own stack (a Temporal dev server, the worker and the bot in local
mode, with the settings the recording carries, yours where your environment sets one, and
your ``HARNESS_HOOKS_CONFIG``), re-signs each recorded request with that bot's secret, sends
them in order, and compares what the bot and the worker did with what the recording says,
exchange by exchange (:mod:`bot.replay.view`), and the settings it ran with
(:mod:`bot.replay.settings`): one line per exchange, a diff under each that differs, exit
status 1 on any difference.

``--url`` replays against a bot you run yourself (local mode, ``BOT_RECORD`` set: it reads
what the bot did from the bot's own recording). ``--audit`` runs your hooks file in audit
mode (``HARNESS_HOOKS_AUDIT_ONLY``) and lists what it would have vetoed or rewritten on
this traffic. ``--update`` writes what this run did into FILE as the new expectations.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import logging
import os
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Final, TextIO
from urllib.parse import urlsplit

from bot.config import LOCAL_SIGNING_SECRET
from bot.recording.format import Recording, RecordingError, RequestLine, load
from bot.replay.compare import compare, report
from bot.replay.runner import Replay, Target
from bot.replay.settings import compare_settings, report_settings, stack_environment
from bot.replay.view import title, views
from harness.config import Settings
from harness.errors import HarnessError
from harness.hooks import AuditRecord
from harness.startup import SettingsInvalid, load_settings, one_line
from harness.storage.audit import recent_audit

USAGE: Final = 2
DIFFERENT: Final = 1


def parser() -> argparse.ArgumentParser:
    """The command line."""
    p = argparse.ArgumentParser(
        prog="python -m bot.replay",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("file", type=Path, help="a recording (BOT_RECORD's JSON lines)")
    p.add_argument(
        "--url",
        default="",
        help="a running bot's Slack endpoint (local mode, "
        "BOT_RECORD set), e.g. http://127.0.0.1:3000/slack/events; signed with "
        "SLACK_SIGNING_SECRET or the development secret; default: start a stack of "
        "our own",
    )
    p.add_argument(
        "--audit",
        action="store_true",
        help="run the hooks file in audit mode and list what it would have vetoed or rewritten",
    )
    p.add_argument(
        "--update",
        action="store_true",
        help="write what this run did into FILE as the expectations",
    )
    p.add_argument(
        "--timing",
        action="store_true",
        help="keep the recording's relative timing between requests",
    )
    p.add_argument(
        "--patience",
        type=float,
        default=20.0,
        metavar="S",
        help="the longest to wait for one exchange (default 20)",
    )
    p.add_argument(
        "--quiet",
        type=float,
        default=1.0,
        metavar="S",
        help="how long nothing new must happen to end an exchange (1)",
    )
    return p


def main(argv: Sequence[str] | None = None, out: TextIO = sys.stdout) -> int:
    """Run the command; the exit status (0 the same, 1 different, 2 could not replay)."""
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s %(message)s")
    args = parser().parse_args(argv)
    try:
        recording = load(args.file)
        if not recording.requests:
            raise RecordingError(f"{args.file} holds no request to replay")
        if args.url and args.audit:
            raise RecordingError(
                "--audit starts its own stack (the audit is read from its "
                "database): drop --url, or start your worker with "
                "HARNESS_HOOKS_AUDIT_ONLY=1 and read `python -m harness.hooks "
                "audit`"
            )
        settings = load_settings(Settings)
    except (RecordingError, SettingsInvalid) as error:
        print(f"replay: {one_line(error)}", file=sys.stderr)
        return USAGE
    try:
        with _target(args, recording, settings) as (target, data):
            replay = Replay(
                recording,
                target,
                patience=args.patience,
                quiet=args.quiet,
                timing=args.timing,
                progress=_progress(out),
            )
            everything = asyncio.run(replay.run())
            audit = asyncio.run(_audited(data, replay.sent_at)) if args.audit else []
    except HarnessError as error:
        print(f"replay: {one_line(error)}", file=sys.stderr)
        return USAGE
    if "worker_web_api" not in recording.header.captures and not args.update:
        print(
            "note: recorded against Slack itself, so the worker's posts are not in the file "
            "and are not compared; `--update` takes this release's as expectations",
            file=out,
        )
    observed = replay.observed()
    verdicts = compare(recording.requests, views(recording), views(observed))
    if args.update:
        _update(args.file, recording, everything)
        print(
            f"replay: {args.file} updated with what this run did "
            f"({len(recording.requests)} exchanges)",
            file=out,
        )
        return 0
    diffs, notes = compare_settings(recording.header, observed.header)
    report_settings(diffs, notes, out)
    same = report(verdicts, out, settings_different=len(diffs))
    if args.audit:
        _print_audit(audit, recording.requests, replay.sent_at, out)
    return 0 if same else DIFFERENT


def _progress(out: TextIO) -> Callable[[RequestLine], None]:
    def say(request: RequestLine) -> None:
        print(f"...   {title(request)}", file=out, flush=True)

    return say


@contextlib.contextmanager
def _target(
    args: argparse.Namespace, recording: Recording, settings: Settings
) -> Iterator[tuple[Target, Path | None]]:
    """The bot to replay against, and the data dir of the stack started for it (if one was):
    a stack with the recording's settings, and yours where you set one."""
    if args.url:
        secret = os.environ.get("SLACK_SIGNING_SECRET") or LOCAL_SIGNING_SECRET
        parts = urlsplit(args.url)
        path = parts.path if parts.path not in ("", "/") else "/slack/events"
        yield Target(base=f"{parts.scheme}://{parts.netloc}", secret=secret, path=path), None
        return
    from bot.testing.stack import running_stack

    # HARNESS_PLUGINS in env wins over running_stack's default (the slash commands), which is
    # what an older recording that carries no settings replays with, when you set none.
    env = stack_environment(recording.header, settings)
    if args.audit:
        env["HARNESS_HOOKS_AUDIT_ONLY"] = "1"
    record = Path(os.environ.get("TMPDIR", "/tmp")) / f"replay-{os.getpid()}-{time.time_ns()}.jsonl"
    try:
        with running_stack(env=env, record=record) as stack:
            yield (
                Target(
                    base=stack.bot_base, secret=stack.signing_secret, bot_user_id=stack.bot_user
                ),
                stack.data_dir,
            )
    finally:
        record.unlink(missing_ok=True)


async def _audited(data: Path | None, sent: dict[str, float]) -> list[AuditRecord]:
    """The dry-run verdicts the stack's worker audited during the replay."""
    if data is None or not sent:
        return []
    url = Settings(_env_file=None, data_dir=data).database
    since = min(sent.values())
    found: list[AuditRecord] = []
    for _ in range(30):  # the worker writes its audit in batches: wait for them to land
        records = [
            r
            for r in await recent_audit(url, 10_000)
            if r.kind.startswith("audit_") and r.at >= since
        ]
        if records and len(records) == len(found):
            break
        found = records
        await asyncio.sleep(0.3)
    return found


def _print_audit(
    records: list[AuditRecord], requests: Sequence[RequestLine], sent: dict[str, float], out: TextIO
) -> None:
    print(f"audit: {len(records)} decision(s) the hooks file would have applied", file=out)
    order = sorted(requests, key=lambda r: sent.get(r.id, 0.0))
    for record in records:
        during = [r for r in order if sent.get(r.id, 0.0) <= record.at]
        where = during[-1].id if during else "-"
        failed = "failed, ignored in audit mode: " if record.kind == "audit_failure" else ""
        print(
            f"  exchange {where}: {record.executor} at {record.point}: {failed}{record.reason}",
            file=out,
        )  # the reason says it: "would refuse: …", "would rewrite args"


def _update(path: Path, recording: Recording, observed: Recording) -> None:
    """Write ``recording``'s requests with what ``observed`` did as the expectations."""
    answers = {r.id: r.response for r in observed.requests}
    updated = Recording(
        recording.header.model_copy(
            update={
                "captures": observed.header.captures,
                "local": observed.header.local,
                "settings": observed.header.settings,
                "unrecorded": observed.header.unrecorded,
            }
        )
    )
    for request in recording.requests:
        updated.requests.append(request.model_copy(update={"response": answers.get(request.id)}))
        updated.effects[request.id] = observed.effects.get(request.id, [])
    temporary = path.with_name(path.name + ".tmp")
    temporary.write_text("".join(updated.lines()), encoding="utf-8")
    temporary.replace(path)


if __name__ == "__main__":
    raise SystemExit(main())
