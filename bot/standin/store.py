"""The stand-in's posts on disk, so a restarted local bot still knows what it posted (issue 26).

``make run`` restarts the bot; the task, durable in Temporal, still waits on a question whose
buttons only the stand-in kept, and ``python -m bot.say --click`` reads them back from it.
:class:`PostStore` keeps the posts (each call's arguments, method and ``ts``) and the messages
as they are now (edits, streams) in one JSON file under the data directory
(``HARNESS_DATA_DIR``), rewritten whole and atomically (a temporary file, then
``os.replace``) after each change, and bounded to the last :data:`KEPT` of each. Reactions,
assistant statuses and response URLs are not kept: they change nothing a click needs. It is
not Slack's history, and not the recording (:mod:`bot.recording`).
"""

from __future__ import annotations

import json
import logging
import os
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final, final

log = logging.getLogger(__name__)

FILE_NAME: Final = "standin-posts.json"
"""The file under the data directory."""

KEPT: Final = 500
"""Posts (and messages) kept on disk, the latest: enough for any thread a person still reads."""

VERSION: Final = 1


@final
@dataclass
class Kept:
    """What a stand-in restores: its posts, oldest first, and the messages as they are now."""

    posts: list[dict[str, Any]] = field(default_factory=list)
    """Each ``{"method": ..., "args": {...}, "ts": ...}``."""
    messages: list[dict[str, Any]] = field(default_factory=list)


@final
class PostStore:
    """One JSON file of the stand-in's posts.

    Args:
        path: the file (its directory is made on the first save).
        kept: how many posts and messages the file holds at most.
    """

    def __init__(self, path: Path, *, kept: int = KEPT) -> None:
        self.path = path
        self.kept = kept

    @classmethod
    def under(cls, data_dir: Path) -> PostStore:
        """The store of the data directory ``data_dir`` (its :data:`FILE_NAME`)."""
        return cls(data_dir / FILE_NAME)

    def load(self) -> Kept:
        """What the file holds; nothing when it is missing or unreadable (said in the log)."""
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return Kept()
        except (OSError, ValueError) as error:
            log.warning("stand-in posts in %s not read (%s): starting empty", self.path, error)
            return Kept()
        if not isinstance(data, dict) or data.get("version") != VERSION:
            log.warning("stand-in posts in %s are of another version: starting empty", self.path)
            return Kept()
        return Kept(posts=_objects(data.get("posts")), messages=_objects(data.get("messages")))

    def save(self, kept: Kept) -> None:
        """Replace the file with the last :attr:`kept` posts and messages of ``kept``.

        A failure is logged, never raised: the stand-in answers the worker all the same.
        """
        data = {
            "version": VERSION,
            "posts": kept.posts[-self.kept :],
            "messages": kept.messages[-self.kept :],
        }
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            fd, temporary = tempfile.mkstemp(
                dir=self.path.parent, prefix=f".{self.path.name}.", suffix=".tmp"
            )
            try:
                with os.fdopen(fd, "w", encoding="utf-8") as out:
                    json.dump(data, out, ensure_ascii=False)
                os.replace(temporary, self.path)
            except BaseException:
                Path(temporary).unlink(missing_ok=True)
                raise
        except (OSError, TypeError, ValueError) as error:
            log.warning("stand-in posts not saved to %s: %s", self.path, error)


def _objects(value: object) -> list[dict[str, Any]]:
    return [v for v in value if isinstance(v, dict)] if isinstance(value, list) else []
