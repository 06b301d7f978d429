"""The stand-in's live-message methods: ``chat.update``, streams, reactions, assistant status.

Applied to the messages the stand-in keeps (:class:`bot.standin.server.SlackStandIn`), as Slack
applies them, so ``conversations.*`` and ``/_local/posts`` show a message's current text
and a test can ask what a thread looks like now, not only what was sent. A stand-in built
with ``streaming=False`` (``BOT_STANDIN_STREAMING=0``) answers the streaming methods as a
workspace without them does (``unknown_method``), so the worker's fallback can be tried.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final, final

LIVE_METHODS: Final = (
    "chat.update",
    "chat.startStream",
    "chat.appendStream",
    "chat.stopStream",
    "reactions.add",
    "reactions.remove",
    "assistant.threads.setStatus",
)


def _apply_chunks(message: dict[str, Any], chunks: object) -> None:
    """Chunks as Slack shows them: a ``task_update`` replaces its ``id``'s, text appends."""
    tasks: list[dict[str, Any]] = message.setdefault("chunks", [])
    for chunk in chunks if isinstance(chunks, list) else []:
        if not isinstance(chunk, dict):
            continue
        if chunk.get("type") == "markdown_text":
            message["text"] = str(message.get("text") or "") + str(chunk.get("text") or "")
            continue
        same = next((i for i, t in enumerate(tasks) if t.get("id") == chunk.get("id")), None)
        if same is None:
            tasks.append(dict(chunk))
        else:
            tasks[same] = dict(chunk)


@final
class LiveMessages:
    """Slack's in-place changes to kept messages.

    Args:
        messages: the stand-in's messages (``chat.postMessage`` and streams), changed in place.
        next_ts: gives a new message's ``ts``.
        streaming: whether this workspace offers ``chat.startStream`` and its kin.
    """

    def __init__(
        self, messages: list[dict[str, Any]], next_ts: Callable[[], str], *, streaming: bool = True
    ) -> None:
        self.messages = messages
        self.next_ts = next_ts
        self.streaming = streaming
        self.reactions: dict[tuple[str, str], list[str]] = {}
        """``(channel, ts)`` -> the bot's reactions on that message, in the order added."""
        self.statuses: dict[tuple[str, str], str] = {}
        """``(channel, thread)`` -> the assistant status shown now (``""``: cleared)."""
        self._at: dict[tuple[object, object], dict[str, Any]] = {}
        """``(channel, ts)`` -> the first kept message there, for :attr:`_indexed` messages."""
        self._indexed = 0

    def find(self, channel: object, ts: object) -> dict[str, Any] | None:
        """The kept message at ``ts`` in ``channel`` (the first, were there two).

        Looked up in an index of the messages by ``(channel, ts)``, which neither a change
        in place nor Slack ever moves; messages appended to the list since the last look-up
        are indexed first (the stand-in appends them; it never removes one, and a shorter
        list is indexed anew).
        """
        if len(self.messages) < self._indexed:
            self._at, self._indexed = {}, 0
        for message in self.messages[self._indexed :]:
            try:
                self._at.setdefault((message.get("channel"), message.get("ts")), message)
            except TypeError:  # a list or object for a channel: equal to no key below
                pass
        self._indexed = len(self.messages)
        try:
            return self._at.get((channel, ts))
        except TypeError:  # a list or object asked for: only such a message can be equal
            return next(
                (m for m in self.messages if m.get("ts") == ts and m.get("channel") == channel),
                None,
            )

    def answer(self, method: str, args: dict[str, Any]) -> dict[str, Any]:
        """Slack's answer to one live method, the change applied."""
        channel = args.get("channel") or args.get("channel_id")
        if method.startswith("chat.") and "Stream" in method and not self.streaming:
            return {"ok": False, "error": "unknown_method"}
        if method == "chat.startStream":
            ts = self.next_ts()
            message: dict[str, Any] = {
                "type": "message",
                "bot_id": "BLOCAL",
                "ts": ts,
                "channel": channel,
                "text": args.get("markdown_text") or "",
                "streaming": True,
            }
            if args.get("thread_ts"):
                message["thread_ts"] = args["thread_ts"]
            _apply_chunks(message, args.get("chunks"))
            self.messages.append(message)
            return {"ok": True, "channel": channel, "ts": ts}
        if method == "assistant.threads.setStatus":
            self.statuses[(str(channel), str(args.get("thread_ts") or ""))] = str(
                args.get("status") or ""
            )
            return {"ok": True}
        if method.startswith("reactions."):
            return self._react(
                method, str(channel), str(args.get("timestamp") or ""), str(args.get("name") or "")
            )
        found = self.find(channel, args.get("ts"))
        if found is None:
            return {"ok": False, "error": "message_not_found"}
        if method == "chat.update":
            if found.get("streaming"):
                return {"ok": False, "error": "message_is_streaming"}
            found.update({k: args[k] for k in ("text", "blocks") if k in args})
            found["edits"] = int(found.get("edits", 0)) + 1
        else:  # chat.appendStream, chat.stopStream
            if not found.get("streaming"):
                return {"ok": False, "error": "message_not_in_streaming_state"}
            if args.get("markdown_text"):
                _apply_chunks(found, [{"type": "markdown_text", "text": args["markdown_text"]}])
            _apply_chunks(found, args.get("chunks"))
            if method == "chat.stopStream":
                found["streaming"] = False
                found.update({k: args[k] for k in ("blocks", "metadata") if k in args})
        return {"ok": True, "channel": channel, "ts": found["ts"]}

    def _react(self, method: str, channel: str, ts: str, name: str) -> dict[str, Any]:
        names = self.reactions.setdefault((channel, ts), [])
        if method == "reactions.add":
            if name in names:
                return {"ok": False, "error": "already_reacted"}
            names.append(name)
        else:
            if name not in names:
                return {"ok": False, "error": "no_reaction"}
            names.remove(name)
        return {"ok": True}
