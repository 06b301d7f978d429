"""The stand-in's posts on disk, so a restarted local bot still knows what it posted (issue 26).

``make run`` restarts the bot; the task, durable in Temporal, still waits on a question whose
buttons only the stand-in kept, and ``python -m bot.say --click`` reads them back from it.
:class:`PostStore` keeps the posts (each call's arguments, method and ``ts``) and the messages
as they are now (edits, streams) in one file under the data directory (``HARNESS_DATA_DIR``),
bounded to the last :data:`KEPT` of each: a JSON object of them all on its first line, written
whole and atomically (a temporary file, then ``os.replace``), then, while the bot runs, one
JSON line per change appended (a post, or a message as it is now), until as many lines were
appended as it keeps, when it is written whole again, as it is when the bot stops (issue 27:
rewriting it all on each save cost the bot 14 % of its time under ``bench/load.py``).
Reactions, assistant statuses and response URLs are not kept: they change nothing a click
needs. It is not Slack's history, and not the recording (:mod:`bot.recording`).
"""

from __future__ import annotations

import json
import logging
import os
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final, final

log = logging.getLogger(__name__)

FILE_NAME: Final = "standin-posts.json"
"""The file under the data directory."""

KEPT: Final = 500
"""Posts (and messages) kept on disk, the latest: enough for any thread a person still reads."""

VERSION: Final = 2
"""The first line's ``version``; a file of version 1 (that line alone) is read too."""
READ_VERSIONS: Final = (1, VERSION)


@final
@dataclass
class Kept:
    """What a stand-in restores: its posts, oldest first, and the messages as they are now."""

    posts: list[dict[str, Any]] = field(default_factory=list)
    """Each ``{"method": ..., "args": {...}, "ts": ...}``."""
    messages: list[dict[str, Any]] = field(default_factory=list)


@final
class PostStore:
    """One file of the stand-in's posts: their last state whole, then the changes since.

    Args:
        path: the file (its directory is made on the first save).
        kept: how many posts and messages the file holds at most (and lines appended to it
            before it is written whole again).
    """

    def __init__(self, path: Path, *, kept: int = KEPT) -> None:
        self.path = path
        self.kept = kept
        self.appended: int | None = None
        """Lines appended since this store last wrote the file whole (``None``: it has not)."""

    @classmethod
    def under(cls, data_dir: Path) -> PostStore:
        """The store of the data directory ``data_dir`` (its :data:`FILE_NAME`)."""
        return cls(data_dir / FILE_NAME)

    def load(self) -> Kept:
        """What the file holds; nothing when it is missing or unreadable (said in the log).

        A line after the first that does not parse (a write cut short) is left out.
        """
        try:
            first, *changes = self.path.read_text(encoding="utf-8").split("\n")
            data = json.loads(first)
        except FileNotFoundError:
            return Kept()
        except (OSError, ValueError) as error:
            log.warning("stand-in posts in %s not read (%s): starting empty", self.path, error)
            return Kept()
        if not isinstance(data, dict) or data.get("version") not in READ_VERSIONS:
            log.warning("stand-in posts in %s are of another version: starting empty", self.path)
            return Kept()
        posts = _objects(data.get("posts"))
        messages = {_key(m): m for m in _objects(data.get("messages"))}
        for line in changes:
            try:
                change = json.loads(line)
            except ValueError:
                continue
            if isinstance(change, dict) and isinstance(change.get("post"), dict):
                posts.append(change["post"])
            if isinstance(change, dict) and isinstance(change.get("message"), dict):
                messages[_key(change["message"])] = change["message"]  # in place, or last
        return Kept(posts=posts[-self.kept :], messages=list(messages.values())[-self.kept :])

    def save(self, kept: Kept) -> None:
        """Replace the file with the last :attr:`kept` posts and messages of ``kept``.

        A failure is logged, never raised: the stand-in answers the worker all the same.
        """
        data = {
            "version": VERSION,
            "posts": kept.posts[-self.kept :],
            "messages": kept.messages[-self.kept :],
        }
        self.appended = None
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            fd, temporary = tempfile.mkstemp(
                dir=self.path.parent, prefix=f".{self.path.name}.", suffix=".tmp"
            )
            try:
                with os.fdopen(fd, "w", encoding="utf-8") as out:
                    out.write(json.dumps(data, ensure_ascii=False) + "\n")
                os.replace(temporary, self.path)
            except BaseException:
                Path(temporary).unlink(missing_ok=True)
                raise
        except (OSError, TypeError, ValueError) as error:
            log.warning("stand-in posts not saved to %s: %s", self.path, error)
            return
        self.appended = 0

    def append(self, changes: Kept, whole: Callable[[], Kept]) -> None:
        """Append ``changes`` (new posts; new or changed messages as they are now), or write
        ``whole()`` (everything, the changes too) instead when this store has not written the
        file whole yet or the lines appended since would pass :attr:`kept`.

        A failure is logged, never raised; the next write is then whole.
        """
        lines = [{"post": post} for post in changes.posts]
        lines += [{"message": message} for message in changes.messages]
        if not lines:
            return
        if self.appended is None or self.appended + len(lines) > self.kept:
            self.save(whole())
            return
        appended, self.appended = self.appended, None
        try:
            text = "".join(json.dumps(line, ensure_ascii=False) + "\n" for line in lines)
            with self.path.open("a", encoding="utf-8") as out:
                out.write(text)
        except (OSError, TypeError, ValueError) as error:
            log.warning("stand-in posts not saved to %s: %s", self.path, error)
            return
        self.appended = appended + len(lines)


def _key(message: dict[str, Any]) -> str:
    """Which message this is: its channel and ``ts``, as the stand-in finds it
    (:meth:`bot.standin.live.LiveMessages.find`)."""
    return json.dumps([message.get("channel"), message.get("ts")])


def _objects(value: object) -> list[dict[str, Any]]:
    return [v for v in value if isinstance(v, dict)] if isinstance(value, list) else []
