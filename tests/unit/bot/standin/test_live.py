"""The stand-in finds a kept message by channel and ``ts`` in an index, not by a scan (issue 27:
``chat.update``, streams and ``/_local/posts`` look one up for each call and each post), and
the index follows what the stand-in keeps: new posts and streams, edits, a restored store."""

from __future__ import annotations

from typing import Any

from bot.standin import SlackStandIn
from bot.standin.live import LiveMessages
from bot.standin.store import FILE_NAME, PostStore


class Read(dict[str, Any]):
    """A kept message that counts the look-ups of its fields (a scan reads each message)."""

    reads = 0

    def get(self, key: str, default: Any = None) -> Any:
        Read.reads += 1
        return super().get(key, default)


def test_finding_a_message_reads_no_other_message():
    messages: list[dict[str, Any]] = [
        Read(channel=f"C{n % 7}", ts=f"{n}.000000", text=f"m{n}") for n in range(2000)
    ]
    live = LiveMessages(messages, lambda: "9999.000000")
    assert live.find("C4", "1998.000000") is None  # another channel (1998 is in C3)
    Read.reads = 0
    for n in range(0, 2000, 50):
        assert live.find(f"C{n % 7}", f"{n}.000000")["text"] == f"m{n}"
    messages.append(Read(channel="C1", ts="2000.000000", text="new"))
    assert live.find("C1", "2000.000000")["text"] == "new"
    assert Read.reads <= 2  # the new message's channel and ts, read once to index it


def test_the_index_follows_posts_streams_edits_and_a_restored_store(tmp_path):
    store = PostStore(tmp_path / FILE_NAME)
    standin = SlackStandIn("UBOT", store=store)
    posted = standin._answer("chat.postMessage", {"channel": "C1", "text": "asked"})
    assert standin.live.find("C1", posted["ts"])["text"] == "asked"
    assert standin.live.find("C2", posted["ts"]) is None
    standin._answer("chat.update", {"channel": "C1", "ts": posted["ts"], "text": "closed"})
    stream = standin._answer("chat.startStream", {"channel": "C1", "markdown_text": "a"})
    standin._answer(
        "chat.appendStream", {"channel": "C1", "ts": stream["ts"], "markdown_text": "b"}
    )
    standin._answer("chat.stopStream", {"channel": "C1", "ts": stream["ts"]})
    assert standin.live.find("C1", posted["ts"]) == {
        "type": "message",
        "bot_id": "BLOCAL",
        "ts": posted["ts"],
        "channel": "C1",
        "text": "closed",
        "edits": 1,
    }
    assert standin.live.find("C1", stream["ts"])["text"] == "ab"

    again = SlackStandIn("UBOT", store=store)
    assert again.live.find("C1", posted["ts"])["text"] == "closed"
    assert again._answer("chat.update", {"channel": "C1", "ts": posted["ts"], "text": "x"})["ok"]
    assert again.live.find("C1", stream["ts"])["streaming"] is False


def test_the_first_of_two_messages_at_one_place_is_found_and_odd_keys_find_nothing():
    messages: list[dict[str, Any]] = [
        {"channel": "C1", "ts": "1.0", "text": "first"},
        {"channel": ["C1"], "ts": "1.0", "text": "a list for a channel"},
        {"channel": "C1", "ts": "1.0", "text": "second"},
    ]
    live = LiveMessages(messages, lambda: "2.0")
    assert live.find("C1", "1.0")["text"] == "first"
    assert live.find(["C1"], "1.0")["text"] == "a list for a channel"  # as Slack's JSON allows
    assert live.find({"C1": 1}, "1.0") is None
    assert live.find(None, "1.0") is None
    assert live.answer("chat.update", {"channel": ["C1"], "ts": "1.0", "text": "x"})["ok"]
    del messages[:]
    assert live.find("C1", "1.0") is None  # a list emptied is indexed anew
