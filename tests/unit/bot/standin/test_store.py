"""The stand-in's posts on disk: kept whole, bounded, and an unreadable file starts empty."""

from __future__ import annotations

import json

from bot.standin import SlackStandIn
from bot.standin.store import FILE_NAME, Kept, PostStore


def test_posts_and_edits_survive_a_new_stand_in_on_the_same_file(tmp_path):
    store = PostStore(tmp_path / "data" / FILE_NAME)
    first = SlackStandIn("UBOT", store=store)
    posted = first._answer("chat.postMessage", {"channel": "C1", "text": "question?"})
    first._answer("chat.update", {"channel": "C1", "ts": posted["ts"], "text": "closed"})
    first._answer("reactions.add", {"channel": "C1", "timestamp": posted["ts"], "name": "eyes"})

    again = SlackStandIn("UBOT", store=store)
    assert again.calls == [("chat.postMessage", {"channel": "C1", "text": "question?"})]
    assert again.live.find("C1", posted["ts"])["text"] == "closed"
    later = again._answer("chat.postMessage", {"channel": "C1", "text": "next"})
    assert float(later["ts"]) > float(posted["ts"])  # ts keep growing across the restart


def test_the_file_keeps_the_last_posts_only(tmp_path):
    store = PostStore(tmp_path / FILE_NAME, kept=3)
    standin = SlackStandIn("UBOT", store=store)
    for i in range(5):
        standin._answer("chat.postMessage", {"channel": "C1", "text": f"post {i}"})
    kept = store.load()
    assert [p["args"]["text"] for p in kept.posts] == ["post 2", "post 3", "post 4"]
    assert [m["text"] for m in kept.messages] == ["post 2", "post 3", "post 4"]
    assert [p.name for p in tmp_path.iterdir()] == [FILE_NAME]  # no temporary file left


def test_an_unreadable_or_foreign_file_starts_empty(tmp_path):
    path = tmp_path / FILE_NAME
    path.write_text("{not json")
    assert PostStore(path).load() == Kept()
    path.write_text(json.dumps({"version": 99, "posts": [{"method": "chat.postMessage"}]}))
    assert PostStore(path).load() == Kept()
    assert SlackStandIn("UBOT", store=PostStore(path)).calls == []
