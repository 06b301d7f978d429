"""What Slack shows for a response URL: the slash command's ack and the late replies after it.

A post to a response URL replaces the ack (``replace_original``), deletes it
(``delete_original``) or follows it, as Slack applies it; :class:`ResponseView` keeps the
result, so a test can ask what the sender sees, not only what was sent. Pure: the stand-in
(:class:`bot.standin.SlackStandIn`) serves it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Final, final

FLAGS: Final = ("replace_original", "delete_original")
"""A response URL post's flags: how it changes the ack, not part of the message."""


def flag(value: object) -> bool:
    """A JSON ``true`` or a form field ``"true"``."""
    return value is True or str(value).lower() == "true"


@final
@dataclass
class ResponseView:
    """What Slack shows for one response URL: the ack ("original") and what followed it.

    ``original`` is ``"shown"`` until a post replaces or deletes it; ``messages`` are
    the visible messages posted through the URL (a replacement first), without the flags.
    """

    original: str = "shown"
    messages: list[dict[str, Any]] = field(default_factory=list)

    def apply(self, payload: dict[str, Any]) -> None:
        """Apply one post as Slack does."""
        message = {k: v for k, v in payload.items() if k not in FLAGS}
        if flag(payload.get("delete_original")):
            self.original = "deleted"
        elif flag(payload.get("replace_original")):
            if self.original == "replaced":
                self.messages[0] = message
            else:
                self.original = "replaced"
                self.messages.insert(0, message)
        else:
            self.messages.append(message)

    def as_json(self) -> dict[str, Any]:
        """``{"original": ..., "messages": [...]}``."""
        return {"original": self.original, "messages": self.messages}
